"""Where a parsed file names other code: calls, attribute accesses, imports and plain names.

A word search calls `CHANGES.rst` and a YAML job a "caller" of `Path`; the syntax tree knows
better. Each language's references query (`chunking/queries/references/<language>.scm`)
captures the names used as code: `@call` (a called name), `@attribute` (a name after a dot,
or a path's last segment), `@owner` (what stands before the dot), `@import` (a name
imported), `@name` (any identifier) and `@bound` (a name being defined or bound: a
definition, a parameter, a keyword argument's name), which is no reference; `@typed.var`
with `@typed.type` say what class a variable holds (`runner = CliRunner()`, `ctx: Context`),
so that `runner.invoke` is known to be `CliRunner.invoke`. Comments and
strings hold no identifiers in the tree, so they never count. A language without a
references file simply has no code references: adding one is adding its `.scm` file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import tree_sitter
from tree_sitter import Node, QueryCursor

from branchwise.chunking.grammars import GRAMMARS, language

#: how a reference was found, most telling first (a called name is also a plain name)
HOWS = ("call", "import", "attribute", "name")
#: node types of an owner that is a value, not an object of some class (`"a".join`, `[].sort`)
_LITERAL_MARKS = ("string", "integer", "float", "number", "list", "dictionary", "array", "literal", "tuple")


@dataclass(frozen=True)
class Reference:
    name: str
    how: str  # one of HOWS
    line: int  # 1-based line in the parsed text
    owner: str | None = None  # the text before the dot, for calls and attributes through an object
    owner_is_literal: bool = False


@cache
def references_query(grammar: str) -> tree_sitter.Query | None:
    """The compiled references query of a grammar, or None when the language has none."""
    spec = GRAMMARS.get(grammar)
    if spec is None:
        return None
    source = resources.files("branchwise.chunking") / "queries" / "references" / spec.query_file
    if not source.is_file():
        return None
    return tree_sitter.Query(language(grammar), source.read_text(encoding="utf-8"))


def has_references(grammar: str | None) -> bool:
    return grammar is not None and references_query(grammar) is not None


@dataclass(frozen=True)
class Typing:
    """A variable given an object of a known class: `runner = CliRunner()`, `ctx: Context`."""

    line: int
    variable: str
    type_name: str


def references(grammar: str, root: Node, names: frozenset[str] | None = None) -> list[Reference]:
    """The references in a syntax tree, in document order; `names`: only these names."""
    return scan(grammar, root, names)[0]


def scan(grammar: str, root: Node, names: frozenset[str] | None = None) -> tuple[list[Reference], list[Typing]]:
    """The references (of `names` only, when given) and the typed variables of a syntax tree."""
    query = references_query(grammar)
    if query is None:
        return [], []
    wanted = None if names is None else {name.encode() for name in names}
    typings: list[Typing] = []
    found: dict[int, tuple[int, Node, Node | None]] = {}  # node id -> (how's rank, node, owner)
    bound: set[int] = set()
    for _pattern, captures in QueryCursor(query).matches(root):
        if "typed.var" in captures and "typed.type" in captures:
            var, typ = captures["typed.var"][0], captures["typed.type"][0]
            typings.append(Typing(var.start_point[0] + 1, _text(var), _text(typ).rsplit(".", 1)[-1]))
            continue
        owner = (captures.get("owner") or [None])[0]
        for capture, nodes in captures.items():
            if capture == "bound":
                bound.update(n.id for n in nodes if wanted is None or n.text in wanted)
                continue
            if capture not in HOWS:
                continue
            rank = HOWS.index(capture)
            for node in nodes:
                if wanted is not None and node.text not in wanted:
                    continue
                known = found.get(node.id)
                if known is None or rank < known[0]:
                    found[node.id] = (rank, node, owner if capture in ("call", "attribute") else None)
    out = []
    for node_id, (rank, node, owner) in found.items():
        how = HOWS[rank]
        if how == "name" and node_id in bound:
            continue
        out.append(Reference(
            name=_text(node), how=how, line=node.start_point[0] + 1,
            owner=_text(owner) if owner is not None else None,
            owner_is_literal=owner is not None and any(mark in owner.type for mark in _LITERAL_MARKS),
        ))
    return sorted(out, key=lambda r: (r.line, r.name)), typings


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
