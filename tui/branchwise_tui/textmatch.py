"""How the review app compares text the way a reader does: fuzzy filtering and natural sorting.

The text filter matches as fzf does: every word of the filter must appear in the row's
`path::symbol`, its letters in order but not necessarily together (`optres` finds
`Option.resolve_envvar_value`), ignoring case. Sorting puts `confirm` beside `Confirm` and
`v2` before `v10`, which plain string order does not.
"""

from __future__ import annotations

import re

DIGITS = re.compile(r"(\d+)")


def fuzzy_match(pattern: str, text: str) -> bool:
    """Whether every word of `pattern` is a subsequence of `text` (case-insensitive)."""
    haystack = text.casefold()
    return all(_subsequence(word, haystack) for word in pattern.casefold().split())


def _subsequence(word: str, haystack: str) -> bool:
    position = 0
    for char in word:
        position = haystack.find(char, position)
        if position < 0:
            return False
        position += 1
    return True


def natural_key(text: str) -> tuple:
    """A sort key that ignores case and orders runs of digits by their value."""
    parts = DIGITS.split(text.casefold())
    return tuple((0, int(part), "") if index % 2 else (1, 0, part) for index, part in enumerate(parts))
