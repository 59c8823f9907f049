"""Tree-sitter grammars, parsers and compiled symbol queries, built once per language.

Each grammar also carries the few syntax facts the chunker needs that a query cannot
express: which nodes are comments, which wrap a definition (decorators, `export`), and
which sit above it as attributes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Callable

import tree_sitter
import tree_sitter_go
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_rust
import tree_sitter_typescript


@dataclass(frozen=True)
class Grammar:
    name: str
    load: Callable[[], object]
    query_file: str
    comment_types: frozenset[str]
    #: Nodes that wrap a single definition and belong to its chunk (decorators, export).
    wrapper_types: frozenset[str] = frozenset()
    #: Sibling nodes directly above a definition that belong to its chunk.
    attribute_types: frozenset[str] = frozenset()


_JS_WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "ambient_declaration"}
)

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar(
        "python", tree_sitter_python.language, "python.scm", frozenset({"comment"}),
        wrapper_types=frozenset({"decorated_definition"}),
    ),
    "javascript": Grammar(
        "javascript", tree_sitter_javascript.language, "javascript.scm",
        frozenset({"comment"}), wrapper_types=_JS_WRAPPERS,
    ),
    "typescript": Grammar(
        "typescript", tree_sitter_typescript.language_typescript, "typescript.scm",
        frozenset({"comment"}), wrapper_types=_JS_WRAPPERS,
    ),
    "tsx": Grammar(
        "tsx", tree_sitter_typescript.language_tsx, "typescript.scm",
        frozenset({"comment"}), wrapper_types=_JS_WRAPPERS,
    ),
    "go": Grammar(
        "go", tree_sitter_go.language, "go.scm", frozenset({"comment"}),
        wrapper_types=frozenset({"type_declaration"}),
    ),
    "rust": Grammar(
        "rust", tree_sitter_rust.language, "rust.scm",
        frozenset({"line_comment", "block_comment"}),
        attribute_types=frozenset({"attribute_item"}),
    ),
    "java": Grammar(
        "java", tree_sitter_java.language, "java.scm",
        frozenset({"line_comment", "block_comment"}),
    ),
}


@cache
def language(grammar: str) -> tree_sitter.Language:
    return tree_sitter.Language(GRAMMARS[grammar].load())


@cache
def query(grammar: str) -> tree_sitter.Query:
    source = resources.files(__package__) / "queries" / GRAMMARS[grammar].query_file
    return tree_sitter.Query(language(grammar), source.read_text(encoding="utf-8"))


_local = threading.local()


def parser(grammar: str) -> tree_sitter.Parser:
    """A parser for `grammar`, one per thread (parsers keep state between parses)."""
    parsers = _local.__dict__.setdefault("parsers", {})
    if grammar not in parsers:
        parsers[grammar] = tree_sitter.Parser(language(grammar))
    return parsers[grammar]
