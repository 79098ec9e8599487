#!/usr/bin/env python3
"""Splits the held-out memories (bench/heldout/memory_subjects.json) by a
fixed seed into a development half and a test half, in the form
`kibitz bench subjects --set` reads. Tune on memories_dev.json only;
memories_test.json is for reporting. Run from the repository root:
python3 bench/heldout/split_memories.py
"""
import json
import random

SEED = 51

memories = json.load(open("bench/heldout/memory_subjects.json"))["memories"]
order = list(range(len(memories)))
random.Random(SEED).shuffle(order)
half = len(order) // 2
for name, picked in (("dev", order[:half]), ("test", order[half:])):
    about = f"The {name} half (seed {SEED}) of bench/heldout/memory_subjects.json, made by split_memories.py."
    out = {"about": about, "memories": [memories[i] for i in sorted(picked)]}
    with open(f"bench/heldout/memories_{name}.json", "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
    print(f"memories_{name}.json: {len(out['memories'])} memories")
