#!/usr/bin/env python3
"""Writes src/chess/openings/openings_lichess.tsv: the positions of Lichess's opening
table (lichess-org/chess-openings, CC0 1.0) whose family the bundled book
(src/chess/openings/openings.tsv) already names, so the book recognises those
families at many more positions and move orders without new names that
everyday words could be mistaken for. Usage, from the repository root:

    python3 scripts/openings-from-lichess.py PATH-TO-chess-openings-GIT-DIR
"""
import re
import subprocess
import sys

repo = sys.argv[1]
commit = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
family = lambda name: name.split(": ")[0]
ours = {family(l.split("\t")[1]) for l in open("src/chess/openings/openings.tsv") if l.strip() and not l.startswith("#")}
rows = []
for part in "abcde":
    table = subprocess.run(["git", "-C", repo, "show", f"HEAD:{part}.tsv"], capture_output=True, text=True, check=True).stdout
    for line in table.splitlines()[1:]:
        eco, name, pgn = line.split("\t")
        if family(name) in ours:
            sans = [t for t in pgn.split() if not re.fullmatch(r"\d+\.+", t)]
            rows.append(f"{eco}\t{name}\t{' '.join(sans)}")
with open("src/chess/openings/openings_lichess.tsv", "w") as out:
    out.write(f"# From lichess-org/chess-openings at {commit} (CC0 1.0 Universal):\n")
    out.write("# the lines of the families openings.tsv names; written by scripts/openings-from-lichess.py.\n")
    out.write("\n".join(rows) + "\n")
print(f"{len(rows)} lines of {len(ours)} families")
