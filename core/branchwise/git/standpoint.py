"""Defaults from where the user stands: the repository around the current directory and its
checked-out branch, for every command that takes `--repo` or `--branch` (as ripgrep, fzf and
lazygit start from where you are).

A detached HEAD names no branch: the default is then the branch whose tip is that commit
(`git checkout origin/release/v2` leaves HEAD at release/v2's tip), and the note says so;
with none, or several, the user is asked to name one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from branchwise.errors import UsageError
from branchwise.suggest import with_suggestion


def enclosing_repository(start: str | os.PathLike[str] = ".") -> Path:
    """The top of the git work tree (or the bare repository) that holds `start`."""
    import git  # here, not at the top: a command given its repository never loads GitPython
    from git.exc import InvalidGitRepositoryError, NoSuchPathError

    try:
        found = git.Repo(start, search_parent_directories=True, expand_vars=False)
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise UsageError(f"not inside a git repository: {Path(start).resolve()} (cd into one, or name the repository)") from None
    try:
        return Path(found.working_tree_dir or found.git_dir)
    finally:
        found.close()


@dataclass(frozen=True)
class Standpoint:
    """The branch a command takes when none is named, and what to tell the user about it."""

    branch: str
    note: str | None = None  # set for a detached HEAD


def checked_out(repo) -> Standpoint:
    """The checked-out branch of `repo` (a GitRepo); for a detached HEAD, the branch whose tip
    HEAD is, with a note; a clear error when there is no such single branch."""
    current = repo.current_branch()
    if current is not None:
        return Standpoint(current)
    head = None if repo.bare else repo.head_commit()
    if head is None:
        raise UsageError(f"{repo.name} is a bare repository or has no commits: name a --branch")
    at_head = sorted(name for name, sha in repo.branches().items() if sha == head)
    if len(at_head) == 1:
        return Standpoint(at_head[0], f"HEAD is detached at {head[:7]}, the tip of {at_head[0]}: using {at_head[0]}")
    which = f"the tip of {', '.join(at_head)}" if at_head else "the tip of no branch"
    raise UsageError(f"HEAD is detached at {head[:7]} ({which}): name a --branch")


def meant_branch(repo, typed: str | None, indexed: list[str]) -> str:
    """The indexed branch a reader means by `typed` (None: the checked-out branch): an indexed
    name as it is, else a branch of the repository by any name branches.py takes
    (`origin/release/v2`); refused, with the closest indexed names, when it is not indexed."""
    if typed is not None and typed in indexed:
        return typed
    name = checked_out(repo).branch if typed is None else _branch_or_indexed(repo, typed, indexed)
    if name not in indexed:
        raise UsageError(with_suggestion(f"branch {name!r} of {repo.name} is not indexed (run "
                                         f"`branchwise index --branch {name}`)", name, indexed, "indexed"))
    return name


def _branch_or_indexed(repo, typed: str, indexed: list[str]) -> str:
    try:
        return repo.branch_name(typed)
    except UsageError:  # not a branch of the repository: the names to suggest are the indexed ones
        raise UsageError(with_suggestion(f"unknown branch {typed!r} in {repo.name}, and not indexed", typed,
                                         indexed or sorted(repo.branches()),
                                         "indexed" if indexed else "branches")) from None
