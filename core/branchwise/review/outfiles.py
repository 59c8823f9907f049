"""The rule for every file a command writes at a path the user names: never over an existing one
unless `--force` says so.

A mistyped `--out` must not replace a colleague's bundle, a curated labels file or a tour;
each writer checks its destination here, before any work is done, so the refusal is the same
sentence everywhere and nothing is half-written.
"""

from __future__ import annotations

from pathlib import Path

from branchwise.errors import UsageError


def refuse_overwrite(path: Path, force: bool) -> Path:
    """`path`, when a command may write it: not a directory, and new unless `force`."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path} is a directory")
    if path.exists() and not force:
        raise UsageError(f"{path} exists; pass --force to overwrite it")
    return path
