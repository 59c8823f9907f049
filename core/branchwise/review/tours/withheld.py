"""The access rule applied to a checked tour: a step on code the reader may not read shows none of it.

A tour is a file in the repository, so anyone can anchor a step on any symbol; the access file
(access.py) still decides who reads the code. Every tour output (`tour show`, `tour check
--json`, the review app's tour player and its bundle, CodeTour export) is made from the checked
tour that `Workspace.check_tour` returns, so this is the one place the rule is applied: a step
whose recorded path or current location is outside what the user may read keeps its number,
anchor and note (they come from the tour file) and loses its code, lines and verdict, as
`unverifiable` with status `withheld`. `tour fix` leaves such a step untouched.
"""

from __future__ import annotations

from collections.abc import Callable

from branchwise.models import Verdict
from branchwise.review.tours.check import StepCheck, TourCheck

WITHHELD = "withheld"
REASON = "outside what you may read (see the index's access.toml); its code is not shown"


def withhold_unreadable(check: TourCheck, may_read: Callable[[str], bool]) -> TourCheck:
    """`check` with every step that touches an unreadable path emptied of its code."""
    check.steps = [item if all(may_read(path) for path in _paths_of(item)) else _withheld(item)
                   for item in check.steps]
    return check


def _paths_of(item: StepCheck) -> list[str]:
    paths = [item.step.path, item.path]
    if item.result is not None:
        paths += [item.result.path, item.result.current_path]
    return [path for path in paths if path is not None]


def _withheld(item: StepCheck) -> StepCheck:
    return StepCheck(item.number, item.step, Verdict.UNVERIFIABLE, REASON, WITHHELD, None)
