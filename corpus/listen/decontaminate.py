#!/usr/bin/env python3
"""Keeps the listening corpus apart from the held-out sets: drops from the
corpus files (in the order given) any line already in an earlier file and
any line equal, ignoring case, to a line of bench/heldout/chat_lines.json,
so the held-out halves stay unseen by the trained listener. Run from the
repository root after adding lines:

    python3 corpus/listen/decontaminate.py corpus/listen/*.jsonl
"""
import json
import sys

held = {x["text"].strip().lower() for x in json.load(open("bench/heldout/chat_lines.json"))["lines"]}
seen = set()
for path in sys.argv[1:]:
    keep, dropped = [], 0
    for line in open(path):
        if not line.strip():
            continue
        text = json.loads(line)["text"].strip().lower()
        if text in seen or text in held:
            dropped += 1
            continue
        seen.add(text)
        keep.append(line.rstrip("\n"))
    with open(path, "w") as f:
        f.write("\n".join(keep) + "\n")
    print(f"{path}: {len(keep)} kept, {dropped} dropped")
