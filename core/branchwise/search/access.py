"""Who may read what in a shared index: the optional `access.toml` beside the database.

One index can hold several repositories for a team, and not everyone may read all of them.
The access file names, per user and per group, the repositories they may read and,
optionally, the path prefixes they are limited to in a repository:

    [users.alice]
    repositories = ["shop"]
    groups = ["team"]
    paths = { shop = ["src/orders/"] }

    [groups.team]
    repositories = ["engine"]

A user may read the union of what their own entry and their groups grant; a repository
granted without `paths` by any of them is readable in full. Without an access file nothing is
restricted. With one, the user is the configured one (`--as USER`, else `BRANCHWISE_USER`),
else the OS user name. The rule fails closed: an access file that is there in any form (a
dangling or looping symbolic link, a directory, an unreadable or malformed file) denies
everything until it is fixed, with one line naming the problem.
The result is a restriction that the searcher applies to the allowed set *before* ranking,
so a forbidden chunk can neither be returned nor push a readable one out of the top k.
"""

from __future__ import annotations

import getpass
import os
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from branchwise.errors import AccessDeniedError, UsageError
from branchwise.structured import loads_toml

ACCESS_FILE = "access.toml"


@dataclass(frozen=True)
class Restriction:
    """What one user may read of one repository: every path, or only under these prefixes."""

    user: str
    prefixes: tuple[str, ...] | None  # None: the whole repository

    def allows(self, path: str) -> bool:
        return self.prefixes is None or path.startswith(self.prefixes)


def current_user(configured: str | None = None) -> str:
    """The configured user (see config.py), else the operating system's."""
    return configured or getpass.getuser()


def restriction_for(index_dir: Path, repository: str, user: str | None = None) -> Restriction | None:
    """The restriction on `repository` for `user`; None when the index has no access file.

    Raises AccessDeniedError when the user may not read the repository at all.
    """
    path = Path(index_dir) / ACCESS_FILE
    if not os.path.lexists(path):
        return None
    entries = _load(path)
    name = current_user(user)
    grants = [entry for entry in _entries_of(entries, name, path) if repository in entry["repositories"]]
    if not grants:
        raise AccessDeniedError(f"user {name!r} may not read repository {repository!r} (see {path})")
    if any(repository not in entry["paths"] for entry in grants):
        return Restriction(name, None)
    prefixes = sorted({prefix for entry in grants for prefix in entry["paths"][repository]})
    return Restriction(name, tuple(prefixes))


def _load(path: Path) -> dict:
    """The checked entries; any problem denies (UsageError), it never means "no restriction"."""
    try:
        data = loads_toml(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"access denied: access file {path} cannot be read ({error.strerror or error})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as error:
        raise UsageError(f"access denied: bad access file {path}: {error}") from None
    unknown = set(data) - {"users", "groups"}
    if unknown:
        raise UsageError(f"access denied: bad access file {path}: unknown table(s) {', '.join(sorted(unknown))}")
    tables = {}
    for kind in ("users", "groups"):
        table = data.get(kind, {})
        if not isinstance(table, dict):
            raise UsageError(f"access denied: bad access file {path}: {kind} must be a table ([{kind}.NAME])")
        tables[kind] = {name: _entry(entry, f"{kind}.{name}", path) for name, entry in table.items()}
    return tables


def _entry(raw: object, where: str, path: Path) -> dict:
    """One user or group entry, checked: lists of strings, and paths only for its repositories."""
    def bad(message: str) -> UsageError:
        return UsageError(f"access denied: bad access file {path}: [{where}] {message}")

    if not isinstance(raw, dict):
        raise bad("is not a table")
    entry = {"repositories": raw.get("repositories", []), "groups": raw.get("groups", []),
             "paths": raw.get("paths", {})}
    for key in ("repositories", "groups"):
        if not _strings(entry[key]):
            raise bad(f"{key} must be a list of strings")
    if not isinstance(entry["paths"], dict) or not all(_strings(v) for v in entry["paths"].values()):
        raise bad("paths must map repositories to lists of path prefixes")
    stray = set(entry["paths"]) - set(entry["repositories"])
    if stray:
        raise bad(f"paths name repositories it does not grant: {', '.join(sorted(stray))}")
    return entry


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _entries_of(entries: dict, user: str, path: Path) -> list[dict]:
    """The user's own entry and those of their groups (none for an unknown user)."""
    own = entries["users"].get(user)
    if own is None:
        return []
    found = [own]
    for group in own["groups"]:
        if group not in entries["groups"]:
            raise UsageError(f"access denied: bad access file {path}: user {user!r} is in unknown group {group!r}")
        found.append(entries["groups"][group])
    return found


class ReadAccess:
    """The access rule of one repository for one user, as every front end applies it: the
    restriction (raising when the user may read nothing), a search narrowed to it, and a
    path predicate for outputs that name or show code."""

    def __init__(self, index_dir: Path, repository: str, user: str | None):
        self._where = (Path(index_dir), repository, user)

    @cached_property
    def restriction(self) -> Restriction | None:
        """What the access file lets the user read here; raises when it is nothing at all."""
        return restriction_for(*self._where)

    def readable(self) -> bool:
        """Whether the user may read anything of the repository (a broken access file still raises)."""
        try:
            self.restriction
        except AccessDeniedError:
            return False
        return True

    @property
    def allows(self):
        """The rule as a path predicate (None: everything readable)."""
        restriction = self.restriction
        return None if restriction is None or restriction.prefixes is None else restriction.allows

    def may_read(self, path: str) -> bool:
        restriction = self.restriction
        return restriction is None or restriction.allows(path)

    def narrowed(self, allowed_prefixes: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """A search's own path prefixes (None: all) narrowed to what the user may read."""
        restriction = self.restriction
        if restriction is None or restriction.prefixes is None:
            return allowed_prefixes
        if allowed_prefixes is None:
            return restriction.prefixes
        return _intersect_prefixes(allowed_prefixes, restriction.prefixes)


def _intersect_prefixes(wanted: tuple[str, ...], allowed: tuple[str, ...]) -> tuple[str, ...]:
    """Path prefixes inside both sets: the longer of every pair where one contains the other."""
    both = {a if a.startswith(b) else b for a in wanted for b in allowed if a.startswith(b) or b.startswith(a)}
    return tuple(sorted(both))
