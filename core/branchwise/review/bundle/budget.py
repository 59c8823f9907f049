"""A token budget that keeps the best: code chosen in rank order, by units that fit.

A budget used to be filled greedily in bundle order with whole chunks: a class that contained
the two best answers took their place ("inside rank 4"), then was itself too large, and the
bundle ended up with neither. Here the results are taken in rank order and each comes in as
the largest unit that still fits: its full text (a container with the members already shown
cut out, each leaving a one-line marker), else its outline (a container's signature,
docstring, fields and member signatures; any other code's signatures, docstrings and
comments), else it is left out for `budget`. A member whose container is already in full is
not shown twice. So rank 1 is never left out while something ranked below it is in, unless
not even its outline fits; and a result too large comes in as its outline, its members at
their own ranks. Each decision measures the real text of the whole bundle (title and lists
included), so what is stated is what fits.
"""

from __future__ import annotations

from collections.abc import Callable

from branchwise.errors import UsageError
from branchwise.review.bundle.overlap import Piece, inside

BUDGET = "budget"


class BudgetTooSmall(UsageError):
    """A budget below the bundle's title. `smallest` is the least budget that holds the title and
    one result's smallest unit (None without results), for a caller that words its own error
    (the MCP server names its `max_tokens`, not the CLI's flag)."""

    def __init__(self, budget: int, title_tokens: int, smallest: int | None):
        super().__init__(f"--max-tokens {budget} is too small for the bundle's title "
                         f"({title_tokens} tokens with no chunk)")
        self.budget, self.title_tokens, self.smallest = budget, title_tokens, smallest


def smallest_budget(tried: dict[int, dict]) -> int | None:
    """The least budget at which one of the results left out for the budget would have come in
    (`fit` measured each with nothing kept when it kept nothing)."""
    return min((entry["needed_tokens"] for entry in tried.values()), default=None)

#: (kept pieces, reasons of what is left out) -> (text, tokens of the whole bundle)
Measure = Callable[[list[Piece], dict[int, str]], tuple[str, int]]
#: (piece, kept pieces) -> the units that can show it, largest first
Units = Callable[[Piece, list[Piece]], list[Piece]]


def fit(pieces: list[Piece], left_out: dict[int, str], budget: int, measure: Measure,
        units: Units) -> tuple[list[Piece], dict[int, dict]]:
    """The pieces kept within `budget` (each as the unit chosen), and for each result left out
    for the budget what its smallest unit would have cost: {id(result): {"unit", "needed_tokens",
    "unit_tokens"}} (the bundle's size with it, and the unit's own)."""
    undecided = sorted(pieces, key=lambda p: (p.result.rank, p.order))
    for piece in undecided:
        left_out[id(piece.source)] = BUDGET
    kept: list[Piece] = []
    tried: dict[int, dict] = {}
    for piece in undecided:
        del left_out[id(piece.source)]
        holder = next((k for k in kept if k.text_kind == "full" and k.role == piece.role and inside(piece, k)), None)
        if holder is not None:
            left_out[id(piece.source)] = (f"inside rank {holder.result.rank} "
                                          f"({holder.result.identity.qualified_name})")
            continue
        chosen = None
        needed = unit_tokens = 0
        kind = "full"
        for unit in units(piece, kept):
            _text, needed = measure([*kept, unit], left_out)
            unit_tokens, kind = unit.tokens, unit.text_kind
            if needed <= budget:
                chosen = unit
                break
        if chosen is None:
            left_out[id(piece.source)] = BUDGET
            tried[id(piece.source)] = {"unit": kind, "needed_tokens": needed, "unit_tokens": unit_tokens}
        else:
            kept.append(chosen)
    return kept, tried
