"""Use-time verification: is a search result still the code it claims to be?

An index is a snapshot and the code moves on, so every result is checked against the code it
will be used with before anyone trusts it: the work tree when the queried branch is checked
out (uncommitted edits included), otherwise the branch tip, or any commit named by `against`.

The checks run from cheapest to dearest, and each stops as soon as it can decide:

1. version: indexed at the target commit and the file is clean -> `current`, with no file read
   and no git call for the result (whether the file is dirty is asked per path: worktree_status.py);
2. file: the git blob id of the file at the target equals the indexed blob -> content identical;
3. symbol: re-chunk the current file and find the same identity; compare content hashes; a
   container keyed by its outline is compared by the text it carries (views.py): its full text
   is `changed` when a member changed (the reason names the members), its outline is verified
   as an outline;
4. existence: file or symbol gone -> `deleted`, and look for the same content in the files that
   changed since the indexed commit, to say where it moved.

See docs/verification.md for the verdicts and the reasons.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from copy import copy
from pathlib import PurePosixPath


from branchwise.chunking import chunk_file
from branchwise.chunking.outline_key import is_skeleton
from branchwise.errors import UsageError
from branchwise.git.command import GitFailed
from branchwise.git.repo import GitRepo, git_blob_id
from branchwise.git.worktree_status import DirtyCheck
from branchwise.models import EXCLUDED_CLASSES, Chunk, Result, Verdict
from branchwise.verify import views
from branchwise.verify.container_text import fill_text


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
        #: the ref the target is: `against` when given, else the branch (citation headers name it)
        self.target_ref = branch if against is None else against
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
        #: the work tree's dirty paths as of now (`path in dirty`; `dirty.paths()` for all of
        #: them), answered without a `git status` while the last one still holds
        self.dirty = repo.dirty_check() if self.uses_work_tree else DirtyCheck(None, ())
        #: file contents read so far (work-tree files and blobs); the fast path reads none
        self.files_read = 0
        self._tree: dict[str, str] | None = None
        self._untracked: frozenset[str] | None = None
        self._data: dict[str, bytes | None] = {}
        self._chunks: dict[tuple[str, str], list[Chunk]] = {}
        self._blob_chunks: dict[str, list[Chunk]] = {}
        self._changed_since: dict[str, frozenset[str]] = {}

    # public ---------------------------------------------------------------------------------

    def verify(self, results: list[Result]) -> list[Result]:
        """Fill `verdict`, `reason` and the `current_*` fields of each result, in place; a
        container stored as its skeleton gets its whole text back first (container_text.py)."""
        for result in results:
            skeleton = result.text if is_skeleton(result.text) else None
            filled = fill_text(self.repo, result)
            indexed = self._indexed_container(result, skeleton) if filled else None
            found = self._verify_one(result, indexed)
            current_outline = None
            if found is not None and found.skeleton is not None:
                current_outline = views.container_outline(found, self._file_chunks(result.identity.repository,
                                                                                   result.path))
            indexed_outline = views.container_outline(indexed[0], indexed[1]) if indexed else None
            views.settle(result, indexed_outline, found, current_outline,
                         same_commit=result.commit == self.target_commit)
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

    def _indexed_container(self, result: Result, skeleton: str | None) -> tuple[Chunk, list[Chunk]] | None:
        """The container chunk and its file's chunks as indexed (from the result's blob)."""
        if skeleton is None or not result.blob:
            return None
        if result.blob not in self._blob_chunks:
            self._blob_chunks[result.blob] = blob_chunks(self.repo, result.identity.repository, result.path,
                                                         result.blob, self.rules)
        chunks = self._blob_chunks[result.blob]
        same = [c for c in chunks if c.identity == result.identity and c.skeleton is not None]
        if not same:
            return None
        container = min(same, key=lambda c: (c.skeleton != skeleton, abs(c.start_line - result.start_line)))
        return container, chunks

    def _verify_one(self, result: Result, indexed: tuple[Chunk, list[Chunk]] | None = None) -> Chunk | None:
        """Decide the verdict of the result's full text; returns the chunk found at the target
        when the symbol step ran (None otherwise)."""
        _reset(result)
        if result.path_class in EXCLUDED_CLASSES:
            reason = result.class_reason or f"{result.path_class.value} file"
            _decide(result, Verdict.EXCLUDED, reason)
            return None
        if not result.commit or not result.content_hash:
            _decide(result, Verdict.UNVERIFIABLE, "no version metadata (commit or content hash missing)")
            return None
        same_commit = result.commit == self.target_commit
        if same_commit and result.path not in self.dirty:
            clean = "; file clean" if self.uses_work_tree else ""
            _decide(result, Verdict.CURRENT, f"indexed at target commit{clean}")
            return None
        blob = self._current_blob(result.path)
        if blob is None:
            self._deleted(result, "file deleted at target")
            return None
        if blob == result.blob:
            verdict = Verdict.CURRENT if same_commit else Verdict.UNCHANGED_OLDER
            _decide(result, verdict, "older commit; file unchanged since" if not same_commit else "file unchanged")
            return None
        return self._compare_symbol(result, same_commit, indexed)

    def _compare_symbol(self, result: Result, same_commit: bool,
                        indexed: tuple[Chunk, list[Chunk]] | None) -> Chunk | None:
        current_chunks = self._file_chunks(result.identity.repository, result.path)
        found = find_identity(current_chunks, result)
        if found is None:
            self._deleted(result, "symbol no longer in file")
            return None
        members = changed_members(indexed, found, current_chunks) if indexed is not None else ()
        if found.content_hash != result.content_hash:
            _set_current(result, result.path, found)
            result.changed_members = members
            reason = "symbol text differs from indexed version"
            if members:
                reason += f"; members changed: {', '.join(members)}"
            _decide(result, Verdict.CHANGED, f"{reason}; now lines {found.start_line}-{found.end_line}")
            return found
        verdict = Verdict.CURRENT if same_commit else Verdict.UNCHANGED_OLDER
        reason = "content identical" if same_commit else "older commit, content identical"
        if indexed is not None and found.skeleton is not None and found.text != result.text:
            # the full text is what this result carries: a member that changed changes it (its
            # outline, identical, is verified as an outline: views.py)
            _set_current(result, result.path, found)
            result.changed_members = members
            names = ", ".join(members) or "the text between members"
            _decide(result, Verdict.CHANGED, f"symbol text differs from indexed version; members changed: {names}; "
                                             f"outline identical; now lines {found.start_line}-{found.end_line}")
            return found
        if (found.start_line, found.end_line) != (result.start_line, result.end_line):
            _set_current(result, result.path, found)
            reason += (
                f"; lines moved {result.start_line}-{result.end_line} -> {found.start_line}-{found.end_line}"
            )
        _decide(result, verdict, reason)
        return found

    def _deleted(self, result: Result, why: str) -> None:
        """Gone from its indexed place: `deleted`, unless the same text lives elsewhere. The
        branch's own code found so is what a fresh index would list there: current (or
        unchanged-older) at its new place. A history copy stays history, `deleted`, with the
        place where its text now lives."""
        moved = self._find_moved(result)
        if moved is None:
            if result.history and result.never_on_branch:
                why = (f"not on {self.branch}: this code is from {result.branch} and no indexed commit of "
                       f"{self.branch} had it")
            _decide(result, Verdict.DELETED, why)
            return
        path, chunk = moved
        _set_current(result, path, chunk)
        result.moved = True
        renamed = "" if chunk.identity.qualified_name == result.identity.qualified_name else (
            f" as {chunk.identity.qualified_name}"
        )
        place = f"{path}#L{chunk.start_line}-L{chunk.end_line}{renamed}"
        if result.history:
            _decide(result, Verdict.DELETED, f"{why}; moved to {place} unchanged")
            return
        verdict = Verdict.CURRENT if result.commit == self.target_commit else Verdict.UNCHANGED_OLDER
        _decide(result, verdict, f"moved unchanged to {place} ({why} at "
                                 f"{result.path}#L{result.start_line}-L{result.end_line}; the index is behind)")

    def _find_moved(self, result: Result) -> tuple[str, Chunk] | None:
        """The same content (any identity) in a file changed since the indexed commit.

        Candidates are the files changed between the indexed commit and the target, plus (for a
        work tree) dirty and untracked files, with the same file suffix as the result's file.
        """
        suffix = PurePosixPath(result.path).suffix.lower()
        changed = (self._changed_since_paths(result.commit) | self.dirty.paths() | self._untracked_paths()
                   | {result.path})
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
            except GitFailed:  # the indexed commit is gone (rebased away, garbage-collected)
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
            self._chunks[key] = [] if data is None else _chunked(repository, path, git_blob_id(data), self.rules,
                                                                 lambda: data)
        return self._chunks[key]


#: the chunks of a file's content, kept across questions (a warm server re-verifies the same
#: containers again and again): keyed by the blob id, which names the content, with the path
#: and rules that decide how it is cut; each caller gets copies, so a kept chunk never changes
_CHUNKED: OrderedDict[tuple, tuple[Chunk, ...]] = OrderedDict()
#: up to this many bytes of the files cut (their chunks hold about twice that); a file larger
#: than a sixteenth of it is not kept
_CHUNKED_BYTES = 16 * 1024 * 1024
_CHUNKED_SIZES: dict[tuple, int] = {}  # each kept file's bytes
_CHUNKED_TOTAL = [0]  # their sum
_CHUNKED_LOCK = threading.Lock()


def blob_chunks(repo: GitRepo, repository: str, path: str, blob: str, rules) -> list[Chunk]:
    """The chunks of `path` as the blob `blob` holds it (none when the blob is missing)."""

    def read() -> bytes | None:
        try:
            return repo.read_blob(blob)
        except (ValueError, OSError, KeyError):
            return None

    return _chunked(repository, path, blob, rules, read)


def _chunked(repository: str, path: str, blob: str, rules, read: Callable[[], bytes | None]) -> list[Chunk]:
    key = (repository, path, blob, rules)
    with _CHUNKED_LOCK:
        kept = _CHUNKED.get(key)
    if kept is None:
        data = read()
        if data is None:
            return []
        kept = tuple(chunk_file(repository, path, data, rules=rules).chunks)
        if len(data) <= _CHUNKED_BYTES // 16:
            with _CHUNKED_LOCK:
                if key not in _CHUNKED:
                    _CHUNKED[key], _CHUNKED_SIZES[key] = kept, len(data)
                    _CHUNKED_TOTAL[0] += len(data)
                while _CHUNKED_TOTAL[0] > _CHUNKED_BYTES:
                    dropped, _ = _CHUNKED.popitem(last=False)
                    _CHUNKED_TOTAL[0] -= _CHUNKED_SIZES.pop(dropped)
    else:
        with _CHUNKED_LOCK:
            if key in _CHUNKED:
                _CHUNKED.move_to_end(key)
    return [copy(chunk) for chunk in kept]


def find_identity(chunks: list[Chunk], result: Result) -> Chunk | None:
    """The chunk with the result's identity; among namesakes, the same content or the nearest."""
    same = [chunk for chunk in chunks if chunk.identity == result.identity]
    if not same:
        return None
    return min(same, key=lambda c: (c.content_hash != result.content_hash, abs(c.start_line - result.start_line)))


def changed_members(indexed: tuple[Chunk, list[Chunk]], found: Chunk, current: list[Chunk]) -> tuple[str, ...]:
    """The container's members (qualified names) whose text differs between the indexed file and
    the target, or that one of them lacks, in the order of the target's file."""
    container, indexed_chunks = indexed

    def members(owner: Chunk, chunks: list[Chunk]) -> dict[str, str]:
        return {c.identity.qualified_name: c.text for c in chunks
                if c.parent == owner.identity and owner.start_line <= c.start_line and c.end_line <= owner.end_line}

    before, after = members(container, indexed_chunks), members(found, current)
    names = list(after) + [name for name in before if name not in after]
    return tuple(name for name in names if before.get(name) != after.get(name))


def _reset(result: Result) -> None:
    result.verdict, result.reason = None, ""
    result.changed_members = ()
    result.moved = False
    result.current_path = result.current_start_line = result.current_end_line = result.current_text = None


def _decide(result: Result, verdict: Verdict, reason: str) -> None:
    result.verdict, result.reason = verdict, reason


def _set_current(result: Result, path: str, chunk: Chunk) -> None:
    result.current_path = path
    result.current_start_line, result.current_end_line = chunk.start_line, chunk.end_line
    result.current_text = chunk.text
