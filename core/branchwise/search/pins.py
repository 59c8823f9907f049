"""Pins: symbols a reviewer wants offered first for later questions on one branch.

Some code belongs in nearly every answer (the service every change goes through, the
settings object): a reviewer pins it once instead of finding it again in every result list.
A pin names a symbol (path, language, symbol type, qualified name) on one branch, not a
version: it follows the symbol's current code, and it says nothing on other branches.

The rule, applied by the search before it cuts the list to k results: a pinned symbol that
the query's rankings found anywhere among their candidates (up to five times k per ranking,
at least 50) moves to the top, pinned ones in their own order; a pinned symbol the query did
not find is not added. A pin is a boost for questions it matches, never an injection of
unrelated code. History (other branches, deleted code) is never boosted.

Pins are labels too: they live beside the labels in the index database and travel in the same
TOML file, as `[[pin]]` tables.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

from branchwise.errors import UsageError
from branchwise.models import Result
from branchwise.store import pins as pinstore

#: what names a pinned symbol within a repository and branch
PIN_FIELDS = ("path", "language", "symbol_type", "qualified_name")
MAX_NOTE = 10_000

PinKey = tuple[str, str, str, str]


@dataclass(frozen=True)
class Pin:
    repository: str
    branch: str
    path: str
    language: str
    symbol_type: str
    qualified_name: str
    note: str
    reviewer: str
    pinned_at: str

    @property
    def key(self) -> PinKey:
        return (self.path, self.language, self.symbol_type, self.qualified_name)


def key_of(result: Result) -> PinKey:
    i = result.identity
    return (i.path, i.language, i.symbol_type, i.qualified_name)


def pin(conn: sqlite3.Connection, repository: str, branch: str, result: Result, note: str = "",
        reviewer: str = "") -> Pin:
    """Pin the result's symbol on `branch` (pinning again replaces the note)."""
    record = Pin(repository, branch, *key_of(result), note, reviewer, _now())
    pinstore.put_pin(conn, _values(record))
    return record


def unpin(conn: sqlite3.Connection, repository: str, branch: str, result: Result) -> bool:
    """Remove the pin of the result's symbol on `branch`; True if there was one."""
    return pinstore.delete_pin(conn, repository, branch, key_of(result))


def list_pins(conn: sqlite3.Connection, repository: str, branch: str | None = None) -> list[Pin]:
    return [Pin(*row) for row in pinstore.pin_rows(conn, repository, branch)]


def pinned_keys(conn: sqlite3.Connection, repository: str, branch: str) -> frozenset[PinKey]:
    return frozenset(p.key for p in list_pins(conn, repository, branch))


def pinned_first(ranked: list[Result], pinned: frozenset[PinKey]) -> list[Result]:
    """The candidates with the pinned symbols of the queried branch moved to the top (see the
    module docstring); marks them `pinned`. The order within each part is kept."""
    if not pinned:
        return ranked
    top: list[Result] = []
    rest: list[Result] = []
    for result in ranked:
        result.pinned = not result.history and key_of(result) in pinned
        (top if result.pinned else rest).append(result)
    return top + rest


def mark(results: Iterable[Result], pinned: frozenset[PinKey]) -> None:
    """Set `pinned` on results found some other way (a pin made after the search, say)."""
    for result in results:
        result.pinned = not result.history and key_of(result) in pinned


# exchange with the labels file ----------------------------------------------------------------


def export_tables(pins: Iterable[Pin]) -> list[dict]:
    """The `[[pin]]` tables of a labels file."""
    return [{"branch": p.branch, "path": p.path, "qualified_name": p.qualified_name, "symbol_type": p.symbol_type,
             "language": p.language, "note": p.note, "reviewer": p.reviewer, "pinned_at": p.pinned_at}
            for p in pins]


def import_rows(where: str, tables: list, repository: str, allows: Callable[[str], bool] | None,
                now: str, reviewer: str, relative: Callable[[str], bool]) -> list[tuple]:
    """The `[[pin]]` tables of a labels file as checked rows of the pins table (UsageError
    naming the first bad one). `relative` tells a path inside the repository."""
    if not isinstance(tables, list):
        raise UsageError(f"bad labels file {where}: 'pin' must be an array of tables ([[pin]])")
    rows = []
    for number, entry in enumerate(tables, start=1):
        def bad(message: str) -> UsageError:
            return UsageError(f"bad labels file {where}: pin #{number}: {message}")

        if not isinstance(entry, Mapping):
            raise bad("is not a table")
        for name in ("branch", *PIN_FIELDS):
            if not isinstance(entry.get(name), str) or not entry[name]:
                raise bad(f"lacks {name!r}")
        for name in ("note", "reviewer", "pinned_at"):
            if name in entry and (not isinstance(entry[name], str) or len(entry[name]) > MAX_NOTE):
                raise bad(f"{name!r} must be a string of at most {MAX_NOTE} characters")
        if not relative(entry["path"]):
            raise bad(f"path {entry['path']!r} is not a path inside the repository")
        if allows is not None and not allows(entry["path"]):
            raise bad(f"path {entry['path']!r} is outside what you may read")
        pinned_at = entry.get("pinned_at") or now
        try:
            datetime.fromisoformat(pinned_at)
        except ValueError:
            raise bad(f"pinned_at {pinned_at!r} is not an ISO 8601 date") from None
        rows.append((repository, entry["branch"], *(entry[name] for name in PIN_FIELDS), entry.get("note", ""),
                     entry.get("reviewer", reviewer), pinned_at))
    return rows


def _values(record: Pin) -> tuple:
    return tuple(getattr(record, name) for name in pinstore.PIN_COLUMNS)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
