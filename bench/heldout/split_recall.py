#!/usr/bin/env python3
"""Splits the held-out recall moments (bench/heldout/recall_moments.json,
and the second and third sets recall_moments_2.json, recall_moments_3.json) by a fixed seed into a
development half and a test half, each with every profile and its own
cases, in the form `kibitz bench recall --set` reads. Tune on the dev
halves only; the test halves are for reporting. Run from the repository
root: python3 bench/heldout/split_recall.py
"""
import json
import random

SEED = 51

SETS = (
    ("recall_moments.json", "recall"),
    ("recall_moments_2.json", "recall2"),
    ("recall_moments_3.json", "recall3"),
)

for source, stem in SETS:
    whole = json.load(open(f"bench/heldout/{source}"))
    cases = whole["cases"]
    order = list(range(len(cases)))
    random.Random(SEED).shuffle(order)
    half = len(order) // 2
    for name, picked in (("dev", order[:half]), ("test", order[half:])):
        out = dict(whole)
        out["about"] = f"The {name} half (seed {SEED}) of bench/heldout/{source}, made by split_recall.py."
        out["cases"] = [cases[i] for i in sorted(picked)]
        with open(f"bench/heldout/{stem}_{name}.json", "w") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
        print(f"{stem}_{name}.json: {len(out['cases'])} cases")
