#!/usr/bin/env python3
"""Splits the held-out chat lines into a development half and a test half
by a fixed seed, in the form `kibitz bench chat --set` reads (its main
intent, its first fact). Tune on chat_dev.json only; chat_test.json is
for reporting. Run from the repository root: python3 bench/heldout/split.py
"""
import json
import random

SEED = 51

lines = json.load(open("bench/heldout/chat_lines.json"))["lines"]
order = list(range(len(lines)))
random.Random(SEED).shuffle(order)
half = len(order) // 2
for name, picked in (("dev", order[:half]), ("test", order[half:])):
    out = []
    for i in sorted(picked):
        line = lines[i]
        item = {"text": line["text"], "intent": line["intents"][0], "remember": line["remember"]}
        if line.get("facts"):
            item["fact"] = line["facts"][0]
        out.append(item)
    about = f"The {name} half (seed {SEED}) of bench/heldout/chat_lines.json, made by split.py."
    with open(f"bench/heldout/chat_{name}.json", "w") as f:
        json.dump({"about": about, "lines": out}, f, indent=1, ensure_ascii=False)
    print(f"chat_{name}.json: {len(out)} lines")
