"""Read-only access to one git repository: refs, trees, blobs, diffs and the work tree.

Everything branchwise knows about code comes from git objects (so a branch can be indexed
without being checked out) or, for verification, from the work tree. Single blob reads go
through one persistent `cat-file --batch` process (command.py); an index run streams a branch's
files from one `cat-file --batch` of its own (`iter_blobs`), without a round trip per blob.
GitPython is imported only when a revision (`resolve`, `commit_time`) or an unusual
repository needs it: git commands run through command.py, which opens the common repository
without it.

Every path and branch name leaves this module in the text form of gitnames.py (listings are
read with `-z`, never split at line breaks a name may hold) and enters git through `git_arg`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any, cast

from branchwise.errors import BranchwiseError, UsageError
from branchwise.git import branches as gitbranches
from branchwise.git import pathrules
from branchwise.git.blob_memo import BlobMemo
from branchwise.git.blobs import BlobReading
from branchwise.git.branches import BranchRef
from branchwise.git.command import GitFailed, find_plain, run_git
from branchwise.git.names import canonical_name, git_arg, name_from_git, work_tree_path
from branchwise.git.refcache import RefCache
from branchwise.git.safety import configured_keys, pinned_environment, safe_environment
from branchwise.git.worktree_status import DirtyCheck, WorkTreeStatus, git_blob_id
from branchwise.models import PathMarks

BLOB_MODES = {"100644", "100755"}
SYMLINK_MODE = "120000"
SUBMODULE_MODE = "160000"
_COMMIT_ID = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True)
class TreeEntry:
    path: str
    blob: str
    mode: str


@dataclass(frozen=True)
class TreeListing:
    """The indexable files of a commit, plus what was left out and why."""

    files: dict[str, TreeEntry]
    skipped: dict[str, str]  # path -> reason (symlink, submodule)


@dataclass(frozen=True)
class FileChange:
    """One path that differs between two trees (no rename pairing: identities are per path)."""

    path: str
    old_blob: str | None
    new_blob: str | None


class GitRepo(BlobReading):
    """One repository, opened from a work tree or a bare directory."""

    def __init__(self, path: str | os.PathLike[str]):
        self._opened_path = path
        plain = find_plain(path)
        if plain is None:
            repo = self._open_with_gitpython()
            git_dir, common_dir = Path(repo.git_dir).resolve(), Path(repo.common_dir).resolve()
            tree = repo.working_tree_dir
            work_tree = None if repo.bare or tree is None else Path(tree).resolve()
            self.bare = repo.bare
            self.__dict__["_repo"] = repo
        else:
            git_dir = common_dir = plain.git_dir
            work_tree, self.bare = plain.work_tree, False
        self.git_dir: Path = git_dir
        self._common_dir = common_dir
        self.work_tree: Path | None = work_tree
        # GitPython's working directory for its commands: the work tree, else the common directory
        self._cwd = work_tree if work_tree is not None else common_dir
        self.path = Path(path).resolve()
        #: branches, remotes and the checked-out branch, kept while the ref files stand still
        self._refs = RefCache(self.git_dir, common_dir)
        # every later git process, GitPython's included, runs without the repository's
        # executable settings and tied to this repository (see gitsafety.py); the configured
        # keys also name the remotes, as of the ref files' stamp taken before they were read
        stamp = self._refs.stamp()
        keys = configured_keys(git_dir, pinned_environment(git_dir, common_dir, work_tree))
        self._env = safe_environment(git_dir, common_dir, work_tree, keys)
        self._opening: tuple[object, list[str]] = (stamp, keys)
        if "_repo" in self.__dict__:
            self._repo.git.update_environment(**self._env)
        self._blobs = BlobMemo()
        self._worktree_status = None if (tree := self.work_tree) is None else WorkTreeStatus(self.git_dir, tree, self._read_status)

    def _open_with_gitpython(self):
        import git
        from git.exc import InvalidGitRepositoryError, NoSuchPathError

        try:
            # the path is taken literally: "$HOME/x" names a directory called "$HOME" (the shell
            # expands variables the user meant), never the repository a variable points at
            return git.Repo(self._opened_path, search_parent_directories=False, expand_vars=False)
        except (InvalidGitRepositoryError, NoSuchPathError):
            raise UsageError(f"not a git repository: {self._opened_path}") from None

    @cached_property
    def _repo(self):
        """GitPython's `Repo`, opened on first need (`resolve`, `commit_time`), with our environment."""
        repo = self._open_with_gitpython()
        repo.git.update_environment(**self._env)
        return repo

    @property
    def name(self) -> str:
        """The repository's name: its directory, without a trailing `.git`."""
        name = name_from_git(self.path.name)
        return name[:-4] if name.endswith(".git") and len(name) > 4 else name

    def _git(self, *args: str, **kwargs) -> Any:
        """Git's output (bytes with `stdout_as_string=False`); GitPython's `GitCommandError` (a
        `GitFailed`) when it fails."""
        return run_git(list(args), self._env, self._cwd, **kwargs)

    def _git_or_none(self, *args: str) -> str | None:
        """Git's output, None when it fails (an expected answer, not an error: no import of GitPython)."""
        return cast("str | None", run_git(list(args), self._env, self._cwd, check=False))

    # refs -----------------------------------------------------------------------------

    def branch_refs(self) -> dict[str, BranchRef]:
        """Branch name -> BranchRef: the local branches, each remote-tracking branch no local
        branch shares a name with, and each tag no branch shares a name with (see gitbranches.py)."""
        return self._refs.get("branch_refs", self._read_branch_refs)

    def _read_branch_refs(self) -> dict[str, BranchRef]:
        # NUL-terminated fields: a ref name cannot hold NUL, but it can hold U+0085 or U+2028
        try:
            out = self._git("for-each-ref", "--format=%(if)%(*objectname)%(then)%(*objectname)%(else)%(objectname)%(end)"
                            "%00%(refname)%00%(symref)%00", "refs/heads", "refs/remotes", "refs/tags",
                            strip_newline_in_stdout=False)
        except GitFailed as error:  # a ref naming an object the store lacks: nothing to index from it
            said = str(getattr(error, "stderr", None) or error)
            missing = re.search(r"missing object ([0-9a-f]+) for (\S+?)'?$", said, re.MULTILINE)
            if missing is not None:
                raise BranchwiseError(f"commit {missing[1]} of {missing[2]} is missing from the object store of "
                                      f"{self.name}: fetch it again, or delete the ref") from None
            first = said.strip().splitlines()[0] if said.strip() else "git failed"
            raise BranchwiseError(f"cannot list the refs of {self.name}: {first}") from None
        fields = out.split("\0")
        refs = [(sha.strip("\n"), name_from_git(ref)) for sha, ref, symref in
                zip(fields[0::3], fields[1::3], fields[2::3]) if not symref]
        return gitbranches.collect(refs, self.remotes())

    def remotes(self) -> list[str]:
        return self._refs.get("remotes", self._read_remotes)

    def _read_remotes(self) -> list[str]:
        stamp, keys = self._opening
        if stamp == self._refs.stamp():  # the config read at opening still holds
            names = remote_names(keys)
            if names is not None:
                return names
        out = self._git_or_none("remote")
        return [] if out is None else [name_from_git(name) for name in out.splitlines() if name]

    def branches(self) -> dict[str, str]:
        """Branch name -> commit sha, local and remote-tracking, and tags (which a branch of the
        index may have been taken from); a name may hold any character git allows in a ref."""
        return {name: branch.commit for name, branch in self.branch_refs().items()}

    def branch_name(self, typed: str) -> str:
        """The branch a user's word names (`main`, `release/v2`, `origin/release/v2`, a full
        ref); a clear error, with the closest names, when there is none."""
        refs = self.branch_refs()
        name = gitbranches.name_of(canonical_name(typed), refs, self.remotes())
        if name is None:
            raise gitbranches.unknown_branch(typed, refs, self.name)
        return name

    def branch_names(self) -> list[str]:
        """The branches (local and remote-tracking), without the tags."""
        return gitbranches.branch_names(self.branch_refs())

    def select_tags(self, wanted: list[str]) -> list[str]:
        return gitbranches.select_tags([canonical_name(w) for w in wanted], self.branch_refs(), self.name)

    def select_branches(self, wanted: list[str]) -> list[str]:
        """Branch names for words and patterns (`release/*`) a user typed (see gitbranches.py)."""
        return gitbranches.select([canonical_name(w) for w in wanted], self.branch_refs(), self.remotes(),
                                  self.name)

    def resolve_branch(self, branch: str) -> str:
        """The commit a branch points to; a clear error when there is no such branch."""
        refs = self.branch_refs()
        name = gitbranches.name_of(canonical_name(branch), refs, self.remotes())
        if name is None:
            raise gitbranches.unknown_branch(branch, refs, self.name)
        return refs[name].commit

    def resolve(self, ref: str) -> str:
        """Any revision (branch, tag, sha, HEAD~2) to a full commit sha."""
        from git.exc import BadName, GitCommandError

        try:
            return self._repo.commit(git_arg(ref)).hexsha
        except (BadName, ValueError, GitCommandError, IndexError):  # IndexError: `main@{1000}` past the reflog
            raise UsageError(f"unknown revision {ref!r} in {self.name}") from None

    def refs_held(self):
        """A block in which the ref files are stamped once (one question: refcache.py)."""
        return self._refs.held()

    def current_branch(self) -> str | None:
        """The checked-out branch, or None for a bare repository or a detached HEAD."""
        return None if self.bare else self._refs.get("current_branch", self._read_current_branch)

    def _read_current_branch(self) -> str | None:
        ref = self._symbolic_head()
        if ref is None:  # detached
            return None
        ref = name_from_git(ref)
        return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else None

    def _symbolic_head(self) -> bytes | str | None:
        """The ref HEAD names (None when detached): read from the HEAD file as git reads it
        (`ref:`, white space, the name), or asked of git (`symbolic-ref`) for a HEAD kept in a
        reftable or in any form not read here."""
        head = self.git_dir / "HEAD"
        if not (self._common_dir / "reftable").exists() and not head.is_symlink():
            try:
                text = head.read_bytes().rstrip()
            except OSError:
                text = b""
            if text.startswith(b"ref:"):
                ref = text[4:].lstrip()
                if ref.startswith(b"refs/") and not any(c in ref for c in b" \t\n\r\0"):
                    return ref
            elif _COMMIT_ID.fullmatch(text):
                return None
        return self._git_or_none("symbolic-ref", "-q", "HEAD")

    def head_commit(self) -> str | None:
        return self._refs.get("head_commit", self._read_head_commit)

    def _read_head_commit(self) -> str | None:
        current = self.current_branch()
        branch = None if current is None else self.branch_refs().get(current)
        if current is not None and branch is not None and branch.ref == gitbranches.LOCAL_PREFIX + current:
            return branch.commit  # the refs listing has it: no process of its own
        # detached, or an unborn branch (an empty repository), which names no commit
        return self._git_or_none("rev-parse", "-q", "--verify", "HEAD^{commit}")

    def has_commit(self, sha: str) -> bool:
        """Whether `sha` names a commit that exists here (history rewritten and collected, or
        beyond a shallow clone's boundary, it does not)."""
        return self._git_or_none("cat-file", "-e", f"{sha}^{{commit}}") is not None

    def commit_time(self, sha: str) -> datetime:
        """When `sha` was committed (its committer's time), read from the commit object by the
        long-lived `cat-file` (an index run's first commit no longer loads GitPython)."""
        missing = BranchwiseError(f"commit {sha} is missing from the object store of {self.name}: "
                                  "fetch it again or run `git fsck`")
        stamp = None
        if _COMMIT_ID.fullmatch(sha.encode("ascii", "replace")):
            try:
                stamp = _committer_time(self._cat_file.read(sha))
            except ValueError:
                raise missing from None
        if stamp is None:  # an abbreviated name, or a commit object not read here
            from git.exc import GitCommandError

            try:
                stamp = self._repo.commit(sha).committed_date
            except (ValueError, GitCommandError):
                raise missing from None
        return datetime.fromtimestamp(stamp, tz=timezone.utc)

    def commits_between(self, old: str, new: str) -> int | None:
        """How many commits `new` has that `old` lacks (None when either is unknown here)."""
        out = self._git_or_none("rev-list", "--count", f"{old}..{new}")
        try:
            return None if out is None else int(out.strip())
        except ValueError:
            return None

    def merge_base(self, a: str, b: str) -> str | None:
        out = self._git_or_none("merge-base", a, b)
        return None if out is None else out.strip() or None

    def last_commit_touching(self, path: str) -> str | None:
        """The last commit of HEAD's history that changed `path` (None when none did)."""
        out = self._git_or_none("log", "-1", "--format=%H", "HEAD", "--", f":(literal){git_arg(path)}")
        return None if out is None else out.strip() or None  # None: no HEAD yet, or a path git refuses

    # trees and blobs ------------------------------------------------------------------

    def list_tree(self, commit: str) -> TreeListing:
        """Regular files of a commit; symlinks and submodules are never followed."""
        out = self._tree_git(commit, "ls-tree", "-r", "-z", "--full-tree", commit)
        files: dict[str, TreeEntry] = {}
        skipped: dict[str, str] = {}
        for record in out.split("\0"):
            if not record:
                continue
            meta, raw_path = record.split("\t", 1)
            mode, _kind, blob = meta.split(" ")
            path = name_from_git(raw_path)
            if mode in BLOB_MODES:
                files[path] = TreeEntry(path, blob, mode)
            elif mode == SYMLINK_MODE:
                skipped[path] = "symbolic link (not followed)"
            elif mode == SUBMODULE_MODE:
                skipped[path] = "submodule (skipped)"
        return TreeListing(files, skipped)

    def changed_files(self, old_commit: str, new_commit: str) -> list[FileChange]:
        """Paths whose blob differs between two commits' trees (any two: rebases work too)."""
        out = self._git("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--no-ext-diff",
                        "--no-textconv", old_commit, new_commit)
        fields = out.split("\0")
        changes = []
        for meta, path in zip(fields[0::2], fields[1::2]):
            if not meta:
                continue
            old_mode, new_mode, old_blob, new_blob, _status = meta.lstrip(":").split(" ")
            changes.append(
                FileChange(
                    name_from_git(path),
                    old_blob if old_mode in BLOB_MODES else None,
                    new_blob if new_mode in BLOB_MODES else None,
                )
            )
        return changes

    def _tree_git(self, commit: str, *args: str) -> str:
        """A git command that reads a whole tree: a commit or tree missing from the object store
        cannot be skipped the way a file's blob is, so it ends the work in one line."""
        try:
            return self._git(*args)
        except GitFailed as error:
            raise self.unreadable_tree(commit, error) from None

    def unreadable_tree(self, commit: str, error) -> BranchwiseError:
        """The error for a tree git could not read (`error`: GitPython's `GitCommandError`)."""
        problem = next((line.split("fatal: ", 1)[1] for line in str(error.stderr).splitlines()
                        if "fatal: " in line), "git failed").strip(" '")
        return BranchwiseError(f"cannot read the tree of commit {commit} in {self.name} ({problem}): a commit "
                               "or tree missing from the object store cannot be skipped; fetch it again or run "
                               "`git fsck`")

    def blob_at(self, commit: str, path: str) -> str | None:
        """The blob id of `path` at `commit`, or None when it is not a regular file there (or not
        a path of the repository at all: `../x`, `/etc/passwd`)."""
        wanted = git_arg(path)
        out = self._git_or_none("--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--", wanted)
        if out is None:  # a path git refuses (outside the repository) names no file here
            return None
        for record in out.split("\0"):
            if record:
                meta, found = record.split("\t", 1)
                mode, _kind, blob = meta.split(" ")
                if found == wanted and mode in BLOB_MODES:
                    return blob
        return None

    def root_text(self, commit: str, name: str) -> str:
        """The text of the file `name` at the root of `commit`'s tree ("" when there is none,
        or when its blob is missing from the object store)."""
        blob = self.blob_at(commit, name)
        try:
            return "" if blob is None else self.read_blob(blob).decode("utf-8", "replace")
        except ValueError:
            return ""

    def path_marks(self, commit: str, paths: list[str]) -> PathMarks:
        """The classes the root .gitattributes at `commit` gives `paths` (pathrules.py)."""
        return pathrules.path_marks(self.root_text(commit, pathrules.ATTRIBUTES_FILE), paths) if paths else PathMarks()

    # work tree --------------------------------------------------------------------------

    def _read_status(self) -> dict[str, str]:
        out = self._git("status", "--porcelain=v1", "-z", "--untracked-files=no", "--no-renames")
        return {name_from_git(rec[3:]): rec[:2] for rec in out.split("\0") if rec}

    def dirty_check(self) -> DirtyCheck:
        """`dirty_paths` path by path, without a `git status` each time (worktree_status.py)."""
        status = self._worktree_status
        return DirtyCheck(None, ()) if status is None else status.check(self.head_commit())

    def dirty_paths(self) -> frozenset[str]:
        """Tracked paths with uncommitted changes in the work tree, as of now (one `git status`)."""
        return self.dirty_check().paths()

    def untracked_paths(self) -> frozenset[str]:
        """Files in the work tree that git neither tracks nor ignores (e.g. a new, unadded file)."""
        out = "" if self.bare else self._git("ls-files", "-z", "--others", "--exclude-standard")
        return frozenset(name_from_git(path) for path in out.split("\0") if path)

    def read_work_file(self, path: str) -> bytes | None:
        """A tracked file's bytes from the work tree; None if missing, not a regular file or
        resolving outside the work tree (through a symlink)."""
        root = self.work_tree
        if root is None:
            return None
        full = work_tree_path(root, path)
        if full.is_symlink() or not full.is_file() or root not in full.resolve().parents:
            return None
        return full.read_bytes()

    def hash_work_file(self, path: str) -> str | None:
        data = self.read_work_file(path)
        return None if data is None else git_blob_id(data)


def remote_names(keys: list[str]) -> list[str] | None:
    """The remotes `git remote` lists, from the configured keys (`remote.<name>.<key>`, the
    name may hold dots), sorted as git sorts them; None for a name git would treat apart (empty,
    starting with '/', not valid UTF-8, a line break): `git remote` is asked then."""
    names = set()
    for key in keys:
        if key.startswith("remote.") and key.count(".") >= 2:
            name = key[len("remote."):key.rindex(".")]
            if not name or name.startswith("/") or "\ufffd" in name or "\n" in name or "\r" in name:
                return None
            names.add(name)
    return [name_from_git(name) for name in sorted(names, key=lambda name: name.encode("utf-8"))]



def _committer_time(commit: bytes) -> int | None:
    """The committer's Unix time in a commit object (None if it has no such header)."""
    for line in commit.split(b"\n\n", 1)[0].split(b"\n"):
        if line.startswith(b"committer "):
            fields = line.rsplit(b" ", 2)
            return int(fields[1]) if len(fields) == 3 and fields[1].lstrip(b"-").isdigit() else None
    return None
