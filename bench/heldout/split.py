#!/usr/bin/env python3
"""Splits the held-out chat-line sets into a development half and a test
half by a fixed seed, in the form `kibitz bench chat --set` reads (its main
intent, its first fact). Tune on the *_dev.json halves only; the *_test.json
halves are for reporting. Run from the repository root:
python3 bench/heldout/split.py

- chat_lines.json -> chat_dev.json / chat_test.json
- news_lines.json -> news_dev.json / news_test.json: the news a line tells
  (good, bad, ahead, none), for `kibitz bench news`.
- moment_bound_lines.json -> moment_bound_dev.json / moment_bound_test.json:
  lasting facts against moment-bound lines, for what is remembered; its
  intents were named in the writer's own words and are mapped to the
  listener's here (`WRITERS_INTENTS`), so its intent accuracy is not a
  figure to report.
"""
import json
import random

SEED = 51
WRITERS_INTENTS = {
    "banter": "trash_talk",
    "emotion": "self_disclosure",
    "move_comment": "asks_position",
    "question_about_game": "asks_position",
    "request_advice": "asks_position",
    "question_about_persona": "asks_persona",
}


def main_intent(line):
    if "intents" in line:
        return line["intents"][0]
    return WRITERS_INTENTS.get(line["intent"], line["intent"])


def first_fact(line):
    if line.get("facts"):
        return line["facts"][0]
    return line.get("fact")


def split(source, prefix):
    lines = json.load(open(f"bench/heldout/{source}"))["lines"]
    order = list(range(len(lines)))
    random.Random(SEED).shuffle(order)
    half = len(order) // 2
    for name, picked in (("dev", order[:half]), ("test", order[half:])):
        out = []
        for i in sorted(picked):
            line = lines[i]
            item = {"text": line["text"], "intent": main_intent(line), "remember": line["remember"]}
            if first_fact(line):
                item["fact"] = first_fact(line)
            out.append(item)
        about = f"The {name} half (seed {SEED}) of bench/heldout/{source}, made by split.py."
        with open(f"bench/heldout/{prefix}_{name}.json", "w") as f:
            json.dump({"about": about, "lines": out}, f, indent=1, ensure_ascii=False)
        kept = sum(1 for x in out if x["remember"])
        print(f"{prefix}_{name}.json: {len(out)} lines, {kept} worth remembering")


def split_news():
    lines = json.load(open("bench/heldout/news_lines.json"))["lines"]
    order = list(range(len(lines)))
    random.Random(SEED).shuffle(order)
    half = len(order) // 2
    for name, picked in (("dev", order[:half]), ("test", order[half:])):
        out = [{"text": lines[i]["text"], "news": lines[i]["news"]} for i in sorted(picked)]
        about = f"The {name} half (seed {SEED}) of bench/heldout/news_lines.json, made by split.py."
        with open(f"bench/heldout/news_{name}.json", "w") as f:
            json.dump({"about": about, "lines": out}, f, indent=1, ensure_ascii=False)
        print(f"news_{name}.json: {len(out)} lines")


split("chat_lines.json", "chat")
split("moment_bound_lines.json", "moment_bound")
split_news()
