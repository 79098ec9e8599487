#!/usr/bin/env python3
"""Reports import circles among the files of src/.

Each .rs file is a node; a `crate::a::b` or `super::x` path in it (a `use`
line, braces included, or a path inline in code) is an edge to the file of
the deepest module the path names. A parent's relative paths to the
children it declares (`mod child;` ... `child::x`) are not edges: a parent
owns its children, and they may use what it defines (`super::`); a circle
is between modules that neither owns the other. A circle is a strongly connected group
of two or more files. Unit tests (`#[cfg(test)] mod ...` to the end of the
file) are left out: their `use super::*` is the file itself.

With --folders, the same for the top-level modules (a folder or a file
directly under src/): an import from any file of one into any file of the
other is an edge, and two that reach each other are a circle: the floors
of the house point one way (`make lint` checks both).

Usage: scripts/module-cycles.py [--folders] [src]   (exit 1 if a circle is found)
"""

import re
import sys
from pathlib import Path

ROOTS = ("lib.rs", "main.rs")


def module_of(src: Path, file: Path) -> tuple:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] == "mod" or (len(parts) == 1 and file.name in ROOTS):
        parts = parts[:-1]
    return tuple(parts)


def file_of(src: Path, module: tuple):
    if not module:
        return None
    base = src.joinpath(*module)
    for candidate in (base.with_suffix(".rs"), base / "mod.rs"):
        if candidate.exists():
            return candidate
    return None


def without_tests(text: str) -> str:
    cut = re.search(r"#\[cfg\(test\)\]\s*(pub(\(\w+\))?\s+)?mod\s+\w+\s*\{", text)
    text = text[: cut.start()] if cut else text
    # Comments name paths too (doc links, notes) without importing them.
    return re.sub(r"//[^\n]*", "", text)


def paths(text: str):
    """Every `crate::...`/`super::...` path, braces expanded, as lists of segments."""
    for start in re.finditer(r"\b(crate|super)::", text):
        yield from expand([start.group(1)], text, start.end())


def expand(prefix, text, at):
    while True:
        m = re.match(r"\s*(\w+|\{)", text[at:])
        if not m:
            yield prefix
            return
        if m.group(1) == "{":
            at += m.end()
            depth, begin, groups = 1, at, []
            while depth:
                c = text[at]
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                if depth == 1 and c == "," or depth == 0:
                    groups.append(text[begin:at])
                    begin = at + 1
                at += 1
            for group in groups:
                group = group.strip()
                if group:
                    yield from expand(prefix, group + " ", 0)
            return
        prefix = prefix + [m.group(1)]
        at += m.end()
        sep = re.match(r"\s*::", text[at:])
        if not sep:
            yield prefix
            return
        at += sep.end()


def resolve(src: Path, here: tuple, is_mod_file: bool, segments):
    head, rest = segments[0], segments[1:]
    if head == "crate":
        base = ()
    else:
        # `super` of a.rs (module x::a) is x; of x/mod.rs (module x) too is its parent.
        base = here[:-1]
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
    target = None
    module = base
    for seg in rest:
        module = module + (seg,)
        found = file_of(src, module)
        if not found:
            break
        target = found
    if target is None:
        target = file_of(src, base) or root_file(src, base)
    return target


def root_file(src: Path, module: tuple):
    if module:
        return None
    return None  # the crate root: lib.rs and main.rs hold only declarations


def graph(src: Path):
    edges = {}
    for file in sorted(src.rglob("*.rs")):
        here = module_of(src, file)
        text = without_tests(file.read_text())
        targets = set()
        for segs in paths(text):
            t = resolve(src, here, file.name == "mod.rs", segs)
            if t and t != file:
                targets.add(t)
        edges[file] = targets
    return edges


def circles(edges):
    """Tarjan's strongly connected components of two or more nodes."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def folders(src: Path, edges):
    """The file graph folded onto the top-level modules."""
    def top(file):
        return file.relative_to(src).parts[0].removesuffix(".rs")

    folded = {}
    for file, targets in edges.items():
        here = top(file)
        folded.setdefault(here, set())
        folded[here].update(top(t) for t in targets if top(t) != here)
    return folded


def main_folders(src: Path):
    folded = folders(src, graph(src))
    found = circles(folded)
    pairs = sorted({tuple(sorted((a, b))) for a in folded for b in folded[a] if a in folded.get(b, ())})
    for a, b in pairs:
        print(f"both ways: {a} <-> {b}")
    for group in found:
        print(f"circle of {len(group)} that all reach each other: " + ", ".join(group))
    n_edges = sum(len(t) for t in folded.values())
    print(f"folder graph: {len(folded)} top-level modules, {n_edges} imports, {len(pairs)} pairs both ways, {len(found)} circles")
    sys.exit(1 if found else 0)


def main():
    args = [a for a in sys.argv[1:] if a != "--folders"]
    src = Path(args[0] if args else "src")
    if "--folders" in sys.argv[1:]:
        main_folders(src)
    edges = graph(src)
    found = circles(edges)
    n_edges = sum(len(t) for t in edges.values())
    for group in found:
        names = [str(f.relative_to(src)) for f in group]
        print("circle: " + " <-> ".join(names))
        for f in group:
            back = sorted(str(t.relative_to(src)) for t in edges[f] if t in group)
            print(f"  {f.relative_to(src)} -> {', '.join(back)}")
    print(f"module graph: {len(edges)} files, {n_edges} imports, {len(found)} circles")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
