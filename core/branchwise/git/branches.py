"""Branch names as git users say them: local and remote-tracking branches as one set.

A fresh `git clone` holds one local branch; every other line of the project exists only as
`refs/remotes/origin/<name>`. A user still calls it `<name>` (or `origin/<name>`), so a
branch here is a name with the ref it comes from: the local branch when there is one, else
the remote-tracking branch of that name (`origin` first, then the other remotes by name).
The index keeps the name; the ref it was taken from is recorded beside it (`status` shows it).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from branchwise.errors import UsageError
from branchwise.suggest import with_suggestion

LOCAL_PREFIX = "refs/heads/"
REMOTE_PREFIX = "refs/remotes/"
TAG_PREFIX = "refs/tags/"
_PATTERN_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class BranchRef:
    """A branch as indexed: its name, the commit its ref points to, and that ref."""

    name: str
    commit: str
    ref: str

    @property
    def remote(self) -> bool:
        return self.ref.startswith(REMOTE_PREFIX)

    @property
    def tag(self) -> bool:
        return self.ref.startswith(TAG_PREFIX)

    @property
    def source(self) -> str:
        """"local", or the remote-tracking branch it was taken from ("origin/release/v2")."""
        return self.ref[len(REMOTE_PREFIX):] if self.remote else "local"


def collect(refs: list[tuple[str, str]], remotes: list[str]) -> dict[str, BranchRef]:
    """Branch name -> BranchRef from (commit, full ref) pairs of refs/heads, refs/remotes and
    refs/tags (symbolic refs such as `origin/HEAD` already left out; a tag's commit peeled);
    `remotes` are the remotes' names."""
    found: dict[str, BranchRef] = {}
    for commit, ref in refs:
        if ref.startswith(LOCAL_PREFIX):
            found[ref[len(LOCAL_PREFIX):]] = BranchRef(ref[len(LOCAL_PREFIX):], commit, ref)
    ranked = sorted(remotes, key=lambda r: (r != "origin", r))
    candidates: dict[str, tuple[int, BranchRef]] = {}
    for commit, ref in refs:
        if not ref.startswith(REMOTE_PREFIX):
            continue
        remote, name = split_remote(ref[len(REMOTE_PREFIX):], remotes)
        if not name or name == "HEAD" or name in found:
            continue
        rank = ranked.index(remote) if remote in ranked else len(ranked)
        if name not in candidates or rank < candidates[name][0]:
            candidates[name] = (rank, BranchRef(name, commit, ref))
    found.update((name, branch) for name, (_rank, branch) in candidates.items())
    for commit, ref in refs:  # a tag is indexed only on request (`--tag`), under its own name
        name = ref[len(TAG_PREFIX):]
        if ref.startswith(TAG_PREFIX) and name not in found:
            found[name] = BranchRef(name, commit, ref)
    return found


def branch_names(branches: dict[str, BranchRef]) -> list[str]:
    """The names that are branches (local or remote-tracking), not tags: what `--all-branches`
    takes and `status` lists as not indexed."""
    return sorted(name for name, branch in branches.items() if not branch.tag)


def split_remote(short: str, remotes: list[str]) -> tuple[str, str]:
    """"origin/release/v2" -> ("origin", "release/v2"): the longest remote name that prefixes
    it (a remote's name may hold a slash), else the part before the first slash."""
    for remote in sorted(remotes, key=len, reverse=True):
        if short.startswith(remote + "/"):
            return remote, short[len(remote) + 1:]
    remote, _, name = short.partition("/")
    return remote, name


def name_of(typed: str, branches: dict[str, BranchRef], remotes: list[str]) -> str | None:
    """The branch a user's word names: `release/v2`, `origin/release/v2`, or a full ref
    (`refs/heads/x`, `refs/remotes/origin/x`); None when it names none."""
    if typed in branches:
        return typed
    if typed.startswith(LOCAL_PREFIX):
        found = branches.get(typed[len(LOCAL_PREFIX):])
        return found.name if found is not None and not found.remote else None
    remote, name = split_remote(typed.removeprefix(REMOTE_PREFIX), remotes)
    return name if remote in remotes and name in branches else None


def is_pattern(typed: str) -> bool:
    return any(c in _PATTERN_CHARS for c in typed)


def select(wanted: list[str], branches: dict[str, BranchRef], remotes: list[str], repository: str) -> list[str]:
    """The branch names the user asked for, in order and once each: names, `origin/` names and
    glob patterns (`release/*`); an unknown name or a pattern that matches nothing is refused,
    with the closest branch names."""
    chosen: list[str] = []
    for typed in wanted:
        if is_pattern(typed):
            matched = [n for n in branch_names(branches) if fnmatch.fnmatchcase(n, typed)
                       or any(fnmatch.fnmatchcase(f"{remote}/{n}", typed) for remote in remotes)]
            if not matched:
                raise UsageError(with_suggestion(f"no branch of {repository} matches {typed!r}", typed,
                                                 sorted(branches), "branches"))
            chosen += matched
            continue
        name = name_of(typed, branches, remotes)
        if name is None:
            raise unknown_branch(typed, branches, repository)
        chosen.append(name)
    return list(dict.fromkeys(chosen))


def unknown_branch(typed: str, branches, repository: str) -> UsageError:
    """The refusal of a branch name git does not have, with the closest ones."""
    return UsageError(with_suggestion(f"unknown branch {typed!r} in {repository}", typed, branch_names(branches),
                                      "branches"))


def select_tags(wanted: list[str], branches: dict[str, BranchRef], repository: str) -> list[str]:
    """The tags asked for by name (`v2.2.4` or `refs/tags/v2.2.4`), each indexed under its name;
    a name that is no tag is refused with the closest tags."""
    tags = sorted(name for name, branch in branches.items() if branch.tag)
    chosen = []
    for typed in wanted:
        name = typed.removeprefix(TAG_PREFIX)
        if name not in tags:
            raise UsageError(with_suggestion(f"unknown tag {typed!r} in {repository}", name, tags, "tags"))
        chosen.append(name)
    return chosen
