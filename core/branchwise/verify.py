"""Use-time verification: is a search result still the code it claims to be?

An index is a snapshot and the code moves on, so every result is checked against the code it
will be used with before anyone trusts it: the work tree when the queried branch is checked
out (uncommitted edits included), otherwise the branch tip, or any commit named by `against`.

The checks run from cheapest to dearest, and each stops as soon as it can decide:

1. version: indexed at the target commit and the file is clean -> `current`, with no file read
   and no git call for the result (the dirty set is computed once per `Verifier`);
2. file: the git blob id of the file at the target equals the indexed blob -> content identical;
3. symbol: re-chunk the current file and find the same identity; compare content hashes (a
   container's hash covers its outline, not its members' bodies: a method edit makes the
   method `changed` and leaves its class `current`, with the class's current lines attached);
4. existence: file or symbol gone -> `deleted`, and look for the same content in the files that
   changed since the indexed commit, to say where it moved.

See docs/verification.md for the verdicts and the reasons.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from git.exc import GitCommandError

from branchwise.chunking import chunk_file
from branchwise.container_text import fill_text
from branchwise.errors import UsageError
from branchwise.gitrepo import GitRepo, git_blob_id
from branchwise.models import EXCLUDED_CLASSES, Chunk, Result, Verdict


class Verifier:
    """Verifies results of one query against one target (work tree, branch tip or `against`)."""

    def __init__(self, repo: GitRepo, branch: str, against: str | None = None, rules=None,
                 allows: Callable[[str], bool] | None = None):
        self.repo = repo
        self.branch = branch
        self.rules = rules
        #: the reader's access rule: where verification may look for moved code (and so report it)
        self.allows = allows or (lambda path: True)
        self.uses_work_tree = against is None and not repo.bare and repo.current_branch() == branch
        if against is not None:
            self.target_commit = repo.resolve(against)
            self.target = f"{against} @ {self.target_commit[:7]}"
        elif self.uses_work_tree:
            head = repo.head_commit()
            if head is None:
                raise UsageError(f"branch {branch!r} of {repo.name} has no commits")
            self.target_commit = head
            self.target = f"the work tree of {branch} (HEAD {head[:7]})"
        else:
            self.target_commit = repo.resolve_branch(branch)
            self.target = f"{branch} @ {self.target_commit[:7]}"
        if self.uses_work_tree:
            repo.refresh_status()  # a long-lived GitRepo (the review app) must see today's edits
        self.dirty = repo.dirty_paths() if self.uses_work_tree else frozenset()
        #: file contents read so far (work-tree files and blobs); the fast path reads none
        self.files_read = 0
        self._tree: dict[str, str] | None = None
        self._untracked: frozenset[str] | None = None
        self._data: dict[str, bytes | None] = {}
        self._chunks: dict[tuple[str, str], list[Chunk]] = {}
        self._changed_since: dict[str, frozenset[str]] = {}

    # public ---------------------------------------------------------------------------------

    def verify(self, results: list[Result]) -> list[Result]:
        """Fill `verdict`, `reason` and the `current_*` fields of each result, in place; a
        container stored as its skeleton gets its whole text back first (container_text.py)."""
        for result in results:
            fill_text(self.repo, result)
            self._verify_one(result)
        return results

    def current_chunks(self, repository: str, path: str) -> list[Chunk]:
        """The chunks of `path` as the target holds it (none when the file is gone)."""
        return self._file_chunks(repository, path)

    def holds_file(self, path: str) -> bool:
        """Whether the target has a regular file at `path`."""
        return self._current_blob(path) is not None

    def holds_directory(self, path: str) -> bool:
        """Whether the target has any file under the directory `path`."""
        prefix = path.strip("/") + "/"
        return any(name.startswith(prefix) for name in (*self._target_tree(), *self._untracked_paths()))

    # the steps ------------------------------------------------------------------------------

    def _verify_one(self, result: Result) -> None:
        _reset(result)
        if result.path_class in EXCLUDED_CLASSES:
            reason = result.class_reason or f"{result.path_class.value} file"
            return _decide(result, Verdict.EXCLUDED, reason)
        if not result.commit or not result.content_hash:
            return _decide(result, Verdict.UNVERIFIABLE, "no version metadata (commit or content hash missing)")
        same_commit = result.commit == self.target_commit
        if same_commit and result.path not in self.dirty:
            clean = "; file clean" if self.uses_work_tree else ""
            return _decide(result, Verdict.CURRENT, f"indexed at target commit{clean}")
        blob = self._current_blob(result.path)
        if blob is None:
            return self._deleted(result, "file deleted at target")
        if blob == result.blob:
            verdict = Verdict.CURRENT if same_commit else Verdict.UNCHANGED_OLDER
            return _decide(result, verdict, "older commit; file unchanged since" if not same_commit else "file unchanged")
        self._compare_symbol(result, same_commit)

    def _compare_symbol(self, result: Result, same_commit: bool) -> None:
        found = find_identity(self._file_chunks(result.identity.repository, result.path), result)
        if found is None:
            return self._deleted(result, "symbol no longer in file")
        if found.content_hash != result.content_hash:
            _set_current(result, result.path, found)
            reason = "symbol text differs from indexed version"
            return _decide(result, Verdict.CHANGED, f"{reason}; now lines {found.start_line}-{found.end_line}")
        verdict = Verdict.CURRENT if same_commit else Verdict.UNCHANGED_OLDER
        reason = "content identical" if same_commit else "older commit, content identical"
        if found.skeleton is not None and found.text != result.text:
            # a container is its outline: members whose bodies changed are verified on their own
            _set_current(result, result.path, found)
            outline = "outline identical" if same_commit else "older commit, outline identical"
            return _decide(result, verdict, f"{outline}; member bodies differ (each member is verified "
                                            f"on its own); now lines {found.start_line}-{found.end_line}")
        if (found.start_line, found.end_line) != (result.start_line, result.end_line):
            _set_current(result, result.path, found)
            reason += (
                f"; lines moved {result.start_line}-{result.end_line} -> {found.start_line}-{found.end_line}"
            )
        _decide(result, verdict, reason)

    def _deleted(self, result: Result, why: str) -> None:
        moved = self._find_moved(result)
        if moved is not None:
            path, chunk = moved
            _set_current(result, path, chunk)
            renamed = "" if chunk.identity.qualified_name == result.identity.qualified_name else (
                f" as {chunk.identity.qualified_name}"
            )
            why += f"; moved to {path}#L{chunk.start_line}-L{chunk.end_line}{renamed} unchanged"
        _decide(result, Verdict.DELETED, why)

    def _find_moved(self, result: Result) -> tuple[str, Chunk] | None:
        """The same content (any identity) in a file changed since the indexed commit.

        Candidates are the files changed between the indexed commit and the target, plus (for a
        work tree) dirty and untracked files, with the same file suffix as the result's file.
        """
        suffix = PurePosixPath(result.path).suffix.lower()
        changed = self._changed_since_paths(result.commit) | self.dirty | self._untracked_paths() | {result.path}
        candidates = sorted(path for path in changed
                            if PurePosixPath(path).suffix.lower() == suffix and self.allows(path))
        fallback = None
        for path in candidates:
            for chunk in self._file_chunks(result.identity.repository, path):
                if chunk.content_hash != result.content_hash:
                    continue
                if chunk.identity.qualified_name == result.identity.qualified_name:
                    return path, chunk
                fallback = fallback or (path, chunk)
        return fallback

    # git and file access (each cached for the Verifier's lifetime) --------------------------

    def _target_tree(self) -> dict[str, str]:
        if self._tree is None:
            self._tree = {path: entry.blob for path, entry in self.repo.list_tree(self.target_commit).files.items()}
        return self._tree

    def _untracked_paths(self) -> frozenset[str]:
        if not self.uses_work_tree:
            return frozenset()
        if self._untracked is None:
            self._untracked = self.repo.untracked_paths()
        return self._untracked

    def _changed_since_paths(self, commit: str) -> frozenset[str]:
        if commit not in self._changed_since:
            try:
                changes = self.repo.changed_files(commit, self.target_commit)
            except GitCommandError:  # the indexed commit is gone (rebased away, garbage-collected)
                changes = []
            self._changed_since[commit] = frozenset(c.path for c in changes if c.new_blob is not None)
        return self._changed_since[commit]

    def _from_work_tree(self, path: str) -> bool:
        return self.uses_work_tree and (path in self.dirty or path not in self._target_tree())

    def _current_blob(self, path: str) -> str | None:
        if self._from_work_tree(path):
            data = self._read(path)
            return None if data is None else git_blob_id(data)
        return self._target_tree().get(path)

    def _read(self, path: str) -> bytes | None:
        if path not in self._data:
            if self._from_work_tree(path):
                data = self.repo.read_work_file(path)
            else:
                blob = self._target_tree().get(path)
                data = None if blob is None else self.repo.read_blob(blob)
            self.files_read += data is not None
            self._data[path] = data
        return self._data[path]

    def _file_chunks(self, repository: str, path: str) -> list[Chunk]:
        key = (repository, path)
        if key not in self._chunks:
            data = self._read(path)
            self._chunks[key] = [] if data is None else chunk_file(repository, path, data, rules=self.rules).chunks
        return self._chunks[key]


def find_identity(chunks: list[Chunk], result: Result) -> Chunk | None:
    """The chunk with the result's identity; among namesakes, the same content or the nearest."""
    same = [chunk for chunk in chunks if chunk.identity == result.identity]
    if not same:
        return None
    return min(same, key=lambda c: (c.content_hash != result.content_hash, abs(c.start_line - result.start_line)))


def _reset(result: Result) -> None:
    result.verdict, result.reason = None, ""
    result.current_path = result.current_start_line = result.current_end_line = result.current_text = None


def _decide(result: Result, verdict: Verdict, reason: str) -> None:
    result.verdict, result.reason = verdict, reason


def _set_current(result: Result, path: str, chunk: Chunk) -> None:
    result.current_path = path
    result.current_start_line, result.current_end_line = chunk.start_line, chunk.end_line
    result.current_text = chunk.text
