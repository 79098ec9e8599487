#!/usr/bin/env python3
"""Checks the rules of who may reach what that the compiler does not:

- src/server reaches no service through `Runtime::services()`: a handler
  names the parts it uses (`State<Db>`, `State<MemoryService>`, ...), see
  src/server/state.rs.
- The match actor's parts keep their state private: no `pub(super)` field
  under src/runtime/actor, so a field is changed only by its own file's
  methods (the game at the table by table.rs, the talk by voice.rs, ...).

Usage: scripts/boundaries.py [src]   (exit 1 naming each place that breaks one)
"""

import re
import sys
from pathlib import Path

RULES = [
    # (folder under src, pattern, what it breaks)
    ("server", re.compile(r"\.services\(\)"), "a handler asks for its parts through FromRef, not services()"),
    (
        "runtime/actor",
        re.compile(r"^\s*pub\(super\) [a-z_]+: "),
        "a part's state is private to its file: add a method instead of a pub(super) field",
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
    for folder, pattern, rule in RULES:
        for path in sorted((src / folder).rglob("*.rs")):
            for number, code in code_lines(path):
                if pattern.search(code):
                    broken.append(f"{path}:{number}: {rule}")
    for line in broken:
        print(line)
    print(f"boundaries: {len(RULES)} rules, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
