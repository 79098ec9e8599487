#!/usr/bin/env python3
"""Splits the held-out recall moments (bench/heldout/recall_moments.json)
by a fixed seed into a development half and a test half, each with every
profile and its own cases, in the form `kibitz bench recall --set` reads.
Tune on recall_dev.json only; recall_test.json is for reporting. Run from
the repository root: python3 bench/heldout/split_recall.py
"""
import json
import random

SEED = 51

whole = json.load(open("bench/heldout/recall_moments.json"))
cases = whole["cases"]
order = list(range(len(cases)))
random.Random(SEED).shuffle(order)
half = len(order) // 2
for name, picked in (("dev", order[:half]), ("test", order[half:])):
    out = dict(whole)
    out["about"] = f"The {name} half (seed {SEED}) of bench/heldout/recall_moments.json, made by split_recall.py."
    out["cases"] = [cases[i] for i in sorted(picked)]
    with open(f"bench/heldout/recall_{name}.json", "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
    print(f"recall_{name}.json: {len(out['cases'])} cases")
