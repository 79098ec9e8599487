#!/usr/bin/env python3
"""Keeps a training corpus apart from the held-out sets: drops from the
corpus files (in the order given) any line already in an earlier file and
any line whose text is equal or near (most of its words shared, or nearly
the same characters) to a text of the held-out sets in bench/heldout/ (chat
lines, memories, the recall moments' chat lines and memories), so both
halves of each set stay unseen by the trained readers. Run from the
repository root after adding lines:

    python3 corpus/decontaminate.py corpus/lines/*.jsonl

A file of player profiles (`corpus/recall/`: one player a line, with
`memories` and labelled chat `lines`) is cleaned inside each profile: a
chat line or a memory near a held-out text is dropped, and a dropped
memory's key leaves the labels that named it.
"""
import difflib
import glob
import json
import re
import sys


def held_texts():
    texts = []
    for path in glob.glob("bench/heldout/*.json"):
        data = json.load(open(path))
        for item in data.get("lines", []) + data.get("memories", []):
            texts.append(item["text"])
        for profile in data.get("profiles", {}).values():
            texts.extend(m["content"] for m in profile.get("memories", []))
        for case in data.get("cases", []):
            texts.extend(s["chat"] for s in case.get("steps", []) if isinstance(s, dict) and "chat" in s)
    return sorted(set(texts))


def words(text):
    return set(re.findall(r"[a-z0-9']+", text.lower()))


def near(text, held):
    lowered = text.strip().lower()
    mine = words(text)
    for other, other_words in held:
        if lowered == other:
            return True
        if mine and other_words and len(mine & other_words) / len(mine | other_words) >= 0.6:
            return True
        if difflib.SequenceMatcher(None, lowered, other).quick_ratio() >= 0.85 and \
                difflib.SequenceMatcher(None, lowered, other).ratio() >= 0.85:
            return True
    return False


def clean_profile(row, seen, dropped):
    """A profile with its near-held-out memories and chat lines dropped."""
    gone = set()
    memories = []
    for m in row["memories"]:
        if near(m["content"], held):
            gone.add(m["key"])
            dropped.append(m["content"])
        else:
            memories.append(m)
    lines = []
    for line in row["lines"]:
        key = line["text"].strip().lower()
        if key in seen or near(line["text"], held):
            dropped.append(line["text"])
            continue
        seen.add(key)
        lines.append(dict(line, relevant=[k for k in line["relevant"] if k not in gone]))
    return dict(row, memories=memories, lines=lines)


held = [(t.strip().lower(), words(t)) for t in held_texts()]
seen = set()
for path in sys.argv[1:]:
    rows = [json.loads(line) for line in open(path) if line.strip()]
    if rows and "memories" in rows[0] and "lines" in rows[0]:
        dropped = []
        cleaned = [clean_profile(row, seen, dropped) for row in rows]
        with open(path, "w") as f:
            f.write("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in cleaned))
        kept = sum(len(r["lines"]) + len(r["memories"]) for r in cleaned)
        print(f"{path}: {kept} lines and memories kept, {len(dropped)} dropped")
        for text in dropped:
            print(f"  dropped: {text}")
        continue
    keep, dropped = [], []
    for line in open(path):
        if not line.strip():
            continue
        text = json.loads(line)["text"]
        key = text.strip().lower()
        if key in seen or near(text, held):
            dropped.append(text)
            continue
        seen.add(key)
        keep.append(line.rstrip("\n"))
    with open(path, "w") as f:
        f.write("\n".join(keep) + "\n")
    print(f"{path}: {len(keep)} kept, {len(dropped)} dropped")
    for text in dropped:
        print(f"  dropped: {text}")
