"""Queries over many ids, in batches that stay under SQLite's limit of host parameters."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

#: ids per statement: SQLite's default limit is 999 host parameters, and a query may add a few
BATCH = 900

T = TypeVar("T")


def in_batches(items: Sequence[T], size: int = BATCH) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def marks(count: int) -> str:
    """`?,?,?` for an `IN (...)` of `count` values."""
    return ",".join("?" * count)
