#!/usr/bin/env python3
"""Checks the rules of who may reach what that the compiler does not:

- The match actor reaches the node only through its `MatchHandles`
  (src/runtime/actor/handles.rs, the one file that builds them from the
  runtime's `Services`): no other file under src/runtime/actor names
  `Services` or a `svc`. (The server cannot reach `Services` at all: the
  runtime keeps it private, and a handler names the parts it uses,
  `State<Db>`, `State<MemoryService>`, ..., see src/server/state.rs.)
- The match actor's parts keep their state private: no `pub(super)` field
  under src/runtime/actor, so a field is changed only by its own file's
  methods (the game at the table by table.rs, the talk by voice.rs, ...).

Usage: scripts/boundaries.py [src]   (exit 1 naming each place that breaks one)
"""

import re
import sys
from pathlib import Path

RULES = [
    # (folder under src, pattern, what it breaks, files that cross on purpose)
    (
        "runtime/actor",
        re.compile(r"\bServices\b|\bsvc\b"),
        "the actor reaches the node through its MatchHandles (handles.rs), not the Services",
        ("handles.rs",),
    ),
    (
        "runtime/actor",
        re.compile(r"^\s*pub\(super\) [a-z_]+: "),
        "a part's state is private to its file: add a method instead of a pub(super) field",
        (),
    ),
]


def code_lines(path: Path):
    """Lines of a file, comments left out."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        code = line.split("//", 1)[0]
        if code.strip():
            yield number, code


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "src")
    broken = []
    for folder, pattern, rule, exempt in RULES:
        for path in sorted((src / folder).rglob("*.rs")):
            if path.name in exempt:
                continue
            for number, code in code_lines(path):
                if pattern.search(code):
                    broken.append(f"{path}:{number}: {rule}")
    for line in broken:
        print(line)
    print(f"boundaries: {len(RULES)} rules, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
