"""Counts in words: "1 session", "2 sessions", so that no output says "1 sessions".

Kept apart so every text output (CLI lines, status, stats, tours) counts the same way.
"""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`count` and `noun` in the right number ("1 step", "3 steps"; `many` for irregular nouns)."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"
