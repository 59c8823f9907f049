"""Caller precision of a `branchwise diff --json` output: are the listed callers real references?

Each sampled caller is checked against its own syntax tree, independently of the references
queries the diff uses: the caller's file is read at the commit it was listed at and parsed
with tree-sitter, and the caller counts as real when, inside its lines, the changed symbol's
name is an identifier of the code (never a comment or a string, never the name of what is
being defined or of a parameter), used the way the symbol can be used:

- a method: after a dot (`obj.name`, `self.name`, `Class::name`), or bare inside a class;
- anything else: bare, imported, or after a dot whose object is not `self`/`this`.

A configuration key's caller counts when it is configuration in the same folder naming the key
as a key (`key:`, `key =`, `"key":`) or as a bare value (`needs: [build]`). A caller in prose, or in a file without a grammar that is not
configuration, is not a reference.

    python bench/caller_precision.py DIFF.json --repo REPO [--sample 100] [--seed 31]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))

from branchwise.chunking.grammars import parser  # noqa: E402
from branchwise.chunking.languages import language_for_path  # noqa: E402

IDENTIFIER_TYPES = {"identifier", "property_identifier", "field_identifier", "type_identifier",
                    "shorthand_property_identifier", "package_identifier"}
DOTTED_PARENTS = {"attribute", "member_expression", "selector_expression", "field_expression",
                  "scoped_identifier", "field_access", "method_invocation", "scoped_type_identifier",
                  "nested_type_identifier", "qualified_type", "method_reference"}
DEFINITION_PARENTS = {"function_definition", "class_definition", "function_declaration", "class_declaration",
                      "method_definition", "method_declaration", "function_item", "struct_item", "type_spec",
                      "interface_declaration", "constructor_declaration", "enum_declaration", "trait_item"}
PARAMETER_PARENTS = {"parameters", "typed_parameter", "default_parameter", "typed_default_parameter",
                     "formal_parameters", "formal_parameter", "parameter", "parameter_declaration",
                     "required_parameter", "optional_parameter", "keyword_argument", "lambda_parameters"}
CLASS_NODES = {"class_definition", "class_declaration", "impl_item", "interface_declaration", "class_body",
               "declaration_list", "enum_declaration"}
INTERPOLATIONS = {"interpolation", "template_substitution", "interpolated_string_expression"}
CONFIG_SUFFIXES = (".yaml", ".yml", ".toml", ".json")
SELF = {"self", "this", "cls"}


def git_show(repo: Path, commit: str, path: str) -> bytes | None:
    done = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True)
    return done.stdout if done.returncode == 0 else None


def real_code_reference(source: bytes, grammar: str, lines: tuple[int, int], name: str, method: bool) -> str | None:
    """Why the caller's lines reference `name` as code (None: they do not)."""
    root = parser(grammar).parse(source).root_node
    first, last = lines
    stack = [root]
    while stack:
        node = stack.pop()
        if node.end_point[0] + 1 < first or node.start_point[0] + 1 > last:
            continue
        if "comment" in node.type:
            continue
        if "string" in node.type:  # only an f-string's or a template's interpolations are code
            stack.extend(c for c in node.children if c.type in INTERPOLATIONS or c.type.endswith("string"))
            continue
        if node.type in IDENTIFIER_TYPES and node.text == name.encode():
            verdict = _judge(node, method)
            if verdict:
                return verdict
        stack.extend(node.children)
    return None


def _judge(node, method: bool) -> str | None:
    parent = node.parent
    if parent is None:
        return None
    if parent.type in DEFINITION_PARENTS and parent.child_by_field_name("name") == node:
        return None
    if parent.type in PARAMETER_PARENTS:
        if parent.type != "keyword_argument" or parent.child_by_field_name("name") == node:
            return None
    dotted = parent.type in DOTTED_PARENTS and parent.children and parent.children[0] != node
    if dotted:
        owner = parent.children[0].text.decode(errors="replace")
        if method:
            return f"{owner}.{node.text.decode()}"
        return None if owner in SELF else f"{owner}.{node.text.decode()}"
    if method:
        up = parent
        while up is not None and up.type not in CLASS_NODES:
            up = up.parent
        return "bare name inside a class" if up is not None else None
    return f"{parent.type} {node.text.decode()}"


def real_config_reference(source: bytes, lines: tuple[int, int], key: str) -> str | None:
    """The key as a key (`key:`, `key =`, `"key":`) or as a bare value (`needs: [build]`),
    never inside a longer name, a path or a quoted string."""
    text = source.decode(errors="replace").splitlines()[lines[0] - 1:lines[1]]
    as_key = re.compile(rf"""(^|[\s{{,\[])["']?{re.escape(key)}["']?\s*[:=]""")
    as_value = re.compile(rf"""[:=\[,]\s*\[?\s*{re.escape(key)}\s*(\]|,|$)""")
    return next((f"key {key}" for line in text if as_key.search(line) or as_value.search(line)), None)


def listed_callers(diff: dict) -> list[tuple[dict, dict]]:
    return [(change, hit) for change in diff["changes"] for hit in change["impact"] if hit["impact"] == "caller"]


def check(repo: Path, change: dict, hit: dict) -> str | None:
    name = (change.get("old_qualified_name") or change["qualified_name"]).rsplit(".", 1)[-1].split("#")[0]
    method = change["symbol_type"] == "method"
    config_target = change["language"] in ("yaml", "toml", "json") or change["symbol_type"] == "config"
    source = git_show(repo, hit["commit"], hit["path"])
    if source is None:
        return None
    lines = (hit["start_line"], hit["end_line"])
    if config_target:
        same_folder = Path(hit["path"]).parent == Path(change.get("old_path") or change["path"]).parent
        if not (same_folder and hit["path"].endswith(CONFIG_SUFFIXES)):
            return None
        return real_config_reference(source, lines, name)
    grammar = language_for_path(hit["path"])
    if grammar is None:
        return None
    return real_code_reference(source, grammar, lines, name, method)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("diff_json", type=Path)
    p.add_argument("--repo", type=Path, required=True)
    p.add_argument("--sample", type=int, default=100)
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--show", type=int, default=0, help="print this many of the failures")
    args = p.parse_args(argv)
    diff = json.loads(args.diff_json.read_text())
    callers = listed_callers(diff)
    sample = random.Random(args.seed).sample(callers, min(args.sample, len(callers)))
    verdicts = [(change, hit, check(args.repo, change, hit)) for change, hit in sample]
    real = sum(v is not None for _c, _h, v in verdicts)
    failures = [(c, h) for c, h, v in verdicts if v is None]
    for change, hit in failures[: args.show]:
        print(f"  not a reference: {change['qualified_name']} ({change['symbol_type']}) <- "
              f"{hit['path']}#L{hit['start_line']}-L{hit['end_line']} {hit['qualified_name']} how={hit.get('how')}",
              file=sys.stderr)
    print(json.dumps({"listed_callers": len(callers), "sample": len(sample), "seed": args.seed, "real": real,
                      "precision": round(real / max(1, len(sample)), 4),
                      "not_code": sum(language_for_path(h["path"]) is None for _c, h in sample)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
