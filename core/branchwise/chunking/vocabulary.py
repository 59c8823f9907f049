"""The values a `--language` or `--symbol-type` filter can match, so a typo can be refused.

Symbol types are read from the tree-sitter queries' `@definition.<kind>` captures (so a new
query kind is a new valid value at once), minus the kinds that only scope names, plus the
chunk kinds the chunker makes itself: module remainders, whole files, config blocks and prose sections.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from branchwise.chunking.languages import _GRAMMAR_BY_SUFFIX, _TEXT_KIND_BY_NAME, _TEXT_KIND_BY_SUFFIX, identity_language

QUERIES = Path(__file__).with_name("queries")
CHUNKER_KINDS = frozenset({"module", "file", "config", "section"})
#: The kinds of definition symbols.py gives meaning to, kept here so that a reader of them (a
#: filter check, the bundle) loads no grammar: definitions whose direct function members are
#: methods and which parent their members, and capture kinds that only qualify the names
#: inside them and are not chunks themselves.
CONTAINER_KINDS = frozenset({"class", "struct", "enum", "interface", "trait", "impl", "extension", "instance"})
SCOPE_KINDS = frozenset({"impl", "module"})


@lru_cache(maxsize=1)
def symbol_types() -> tuple[str, ...]:
    captured = set()
    for query in QUERIES.glob("*.scm"):
        captured.update(re.findall(r"@definition\.([a-z_]+)", query.read_text(encoding="utf-8")))
    return tuple(sorted((captured - SCOPE_KINDS) | CHUNKER_KINDS))


@lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    grammars = {identity_language(g) for g in _GRAMMAR_BY_SUFFIX.values()}
    return tuple(sorted(grammars | set(_TEXT_KIND_BY_SUFFIX.values()) | set(_TEXT_KIND_BY_NAME.values()) | {"text"}))
