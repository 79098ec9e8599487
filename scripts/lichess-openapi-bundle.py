#!/usr/bin/env python3
"""Bundle the part of the Lichess OpenAPI specification kibitz speaks.

The official specification (github.com/lichess-org/api, doc/specs/) is split
over ~500 YAML files joined by relative $refs. The tests need the bot, board
event, challenge, account and OAuth paths with every schema they reach, in
one JSON file that a Rust test can read: this script resolves those $refs
into `components/schemas` (named by file) and writes
tests/data/lichess/lichess-openapi.json.

    python3 scripts/lichess-openapi-bundle.py <checkout of lichess-org/api> <commit>

The checkout is read only; the output records the commit it came from.
"""
import json
import os
import sys

import yaml

PATHS = [
    "/api/account",
    "/api/stream/event",
    "/api/bot/game/stream/{gameId}",
    "/api/bot/game/{gameId}/move/{move}",
    "/api/bot/game/{gameId}/chat",
    "/api/bot/game/{gameId}/abort",
    "/api/bot/game/{gameId}/resign",
    "/api/bot/game/{gameId}/draw/{accept}",
    "/api/bot/game/{gameId}/takeback/{accept}",
    "/api/bot/game/{gameId}/claim-victory",
    "/api/bot/game/{gameId}/claim-draw",
    "/api/challenge/{challengeId}/accept",
    "/api/challenge/{challengeId}/decline",
    "/oauth",
    "/api/token",
]


class Bundler:
    def __init__(self, root):
        self.root = root
        self.schemas = {}

    def load(self, path):
        with open(path) as f:
            return yaml.safe_load(f)

    def schema_name(self, path):
        return os.path.splitext(os.path.basename(path))[0].removesuffix(".json")

    def resolve(self, node, base):
        """Inline every $ref under node; a schema file becomes a component."""
        if isinstance(node, list):
            return [self.resolve(x, base) for x in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node and isinstance(node["$ref"], str):
            ref, _, fragment = node["$ref"].partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(base), ref)) if ref else base
            if "/schemas/" in target and not fragment:
                name = self.schema_name(target)
                if name not in self.schemas:
                    self.schemas[name] = None  # cycles: reserve the name first
                    self.schemas[name] = self.resolve(self.load(target), target)
                rest = {k: v for k, v in node.items() if k != "$ref"}
                ref_node = {"$ref": f"#/components/schemas/{name}"}
                return {**ref_node, **self.resolve(rest, base)} if rest else ref_node
            doc = self.load(target)
            for part in filter(None, fragment.split("/")):
                doc = doc[part]
            return self.resolve(doc, target)
        return {k: self.resolve(v, base) for k, v in node.items()}


def main():
    checkout, commit = sys.argv[1], sys.argv[2]
    spec_path = os.path.join(checkout, "doc/specs/lichess-api.yaml")
    bundler = Bundler(checkout)
    spec = bundler.load(spec_path)
    paths = {p: bundler.resolve(spec["paths"][p], spec_path) for p in PATHS}
    out = {
        "openapi": spec["openapi"],
        "info": {
            "title": spec["info"]["title"] + " (the part kibitz uses)",
            "version": spec["info"]["version"],
            "x-source": f"https://github.com/lichess-org/api/tree/{commit}/doc/specs",
            "x-licence": "AGPL-3.0-or-later (lichess-org/api); bundled unchanged but for $refs resolved by scripts/lichess-openapi-bundle.py",
        },
        "servers": spec.get("servers", []),
        "paths": paths,
        "components": {
            "schemas": dict(sorted(bundler.schemas.items())),
            "securitySchemes": spec["components"]["securitySchemes"],
        },
    }
    dest = os.path.join(os.path.dirname(__file__), "..", "tests/data/lichess/lichess-openapi.json")
    with open(dest, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"{len(paths)} paths, {len(bundler.schemas)} schemas -> {os.path.normpath(dest)}")


if __name__ == "__main__":
    main()
