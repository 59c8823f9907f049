"""Impact context of a changed symbol: what on the base branch it touches or resembles.

A signature change breaks the callers that still use the old signature, and a fixed bug is
often duplicated elsewhere. For each change this looks on the base branch's live set for
callers (the lexical channel, asked for the symbol's qualified name and kept only where the
code names the symbol as a whole word) and for the most similar code (the dense channel, asked
with the symbol's text). Both go through the ordinary search, so the results are verified
against the base and carry reviewers' labels like any other result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from branchwise.lexical import words
from branchwise.models import Result
from branchwise.search import SearchRequest

MAX_CALLERS = 8
MAX_SIMILAR = 3
#: lexical results looked at per change: enough for the callers a review can read
LEXICAL_DEPTH = 20
#: which kinds get which context: a moved or renamed symbol's callers may import the old place
CALLERS_FOR = frozenset({"changed", "deleted", "moved", "renamed"})
SIMILAR_FOR = frozenset({"added", "changed", "deleted"})


@dataclass
class ImpactHit:
    """Code on the base branch that a change touches: a `caller` (names the symbol) or a
    `similar` symbol (dense neighbour), verified against the base."""

    kind: str
    result: Result

    def to_json(self) -> dict:
        return {"impact": self.kind, **self.result.to_json()}


def impact_of(change, base: str, search: Callable[[SearchRequest], list[Result]]) -> list[ImpactHit]:
    """Callers and similar code on `base` for one change (a `branchdiff.SymbolChange`), best
    first, without the symbol itself."""
    own = {s.identity for s in (change.old, change.new) if s is not None}
    hits: list[ImpactHit] = []
    seen = set(own)
    before = change.old or change.new
    if change.kind in CALLERS_FOR and not _is_dunder(before.name):
        names_it = _reference_test(before.qualified_name, before.name)
        query = words(before.qualified_name) or before.name
        for result in search(SearchRequest(query=query, branch=base, top_k=LEXICAL_DEPTH, mode="lexical")):
            if len(hits) >= MAX_CALLERS:
                break
            if result.identity in seen or not names_it(result.current_text or result.text):
                continue
            seen.add(result.identity)
            hits.append(ImpactHit("caller", result))
    if change.kind in SIMILAR_FOR:
        text = change.symbol.text
        similar = 0
        for result in search(SearchRequest(query=text, branch=base, top_k=MAX_SIMILAR + len(seen), mode="dense")):
            if similar >= MAX_SIMILAR:
                break
            if result.identity in seen:
                continue
            seen.add(result.identity)
            hits.append(ImpactHit("similar", result))
            similar += 1
    return hits


def _reference_test(qualified_name: str, name: str) -> Callable[[str], bool]:
    """Does a text name this symbol? A function: its name as a whole word. A method (whose
    short name, `new` or `save`, is common): a call through an object (`.save(`) or its
    name together with its owner's name (`Optimizer::new`, `Optimizer` ... `new`)."""
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    owner = qualified_name.rsplit(".", 1)[0] if "." in qualified_name else None
    if owner is None:
        return lambda text: bool(word.search(text))
    owner_word = re.compile(rf"(?<![\w$]){re.escape(owner.rsplit('.', 1)[-1])}(?![\w$])")
    call = re.compile(rf"(?:\.|->){re.escape(name)}\s*\(")
    return lambda text: bool(call.search(text) or (word.search(text) and owner_word.search(text)))


def _is_dunder(name: str) -> bool:
    """`__init__` and friends are called through syntax, not by name: no callers to find."""
    return name.startswith("__") and name.endswith("__")
