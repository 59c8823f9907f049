"""Fold the clauses of one function into one chunk (Elixir, Haskell).

An Elixir function is written as clauses, one `def` per pattern (`def fetch(%{a: a})`,
`def fetch(_)`), often after a bodiless head that declares its defaults; a Haskell function is
its type signature followed by one equation per pattern. Each clause is a definition in the
tree, but none is the function alone: as chunks of their own they were `fetch`, `fetch#2`,
`fetch#3`, whose numbers shift when a clause is added, and the doc above the first clause
described them all. Folded, the first clause carries the function: its chunk runs from the
first clause (with the doc and attributes above it) to the end of the last, its signature
and doc are the first clause's (Haskell: the type signature), and the later clauses are
members of no one else.

Clauses of one function are the definitions of one name and kind in one scope with no other
definition of that scope between them. Elixir functions of one name and different arities
(`get/2` beside `get/3`) are one chunk too: they are written together and documented as one.
"""

from __future__ import annotations

from branchwise.chunking.symbols import Definition

_CLAUSE_GRAMMARS = frozenset({"elixir", "haskell"})


def fold_clauses(grammar: str, definitions: list[Definition]) -> list[Definition]:
    """`definitions` (document order) with each function's later clauses folded into its first."""
    if grammar not in _CLAUSE_GRAMMARS:
        return definitions
    siblings: dict[int, list[Definition]] = {}
    for definition in definitions:
        siblings.setdefault(id(definition.scope), []).append(definition)
    carrier_of: dict[int, Definition] = {}
    for group in siblings.values():
        carrier: Definition | None = None
        for definition in group:
            if (carrier is not None and definition.symbol_type is not None
                    and (definition.symbol_type, definition.qualified_name) == (carrier.symbol_type, carrier.qualified_name)):
                carrier.clauses.append(definition.outer or definition.node)
                carrier.clauses_end = definition.end_byte
                carrier_of[id(definition)] = carrier
            else:
                carrier = definition
    if not carrier_of:
        return definitions
    for definition in definitions:  # a definition inside a later clause belongs to the function
        if definition.scope is not None and id(definition.scope) in carrier_of:
            definition.scope = carrier_of[id(definition.scope)]
    return [d for d in definitions if id(d) not in carrier_of]
