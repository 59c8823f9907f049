"""Whether a tracked file has uncommitted changes, asked path by path, without a `git status` each time.

Verification asks, for every question, whether each result's file is dirty in the work tree.
A `git status` process per question costs 2 to 3 ms in a warm MCP server, more than the rest of
an answer's checks together. `WorkTreeStatus` keeps the last `git status` answer with what it
depends on and answers a path from it while that still holds, by git's own rule:

- the staged half (index against HEAD) depends only on the index file and the HEAD commit: it
  holds while the index file's stamp (mtime, ctime, size, inode) and HEAD are unchanged;
- the work-tree half (file against index) is what git decides from the index entry's recorded
  stat: a file whose `lstat` equals its entry's (mtime and ctime to the nanosecond, size,
  inode) has the entry's content, unless the entry is "racily clean" (changed no earlier than
  the index file was written): git then reads the file and compares it with the entry's blob,
  and so does this (a fresh clone's last files are racy until git rewrites its index); a
  racy file whose bytes are not the blob's, or that is not a plain file, is left to git;
- a file that was dirty at the last `git status` and whose `lstat` has not changed since just
  before that run, and was old enough then not to be racy (RACY_SECONDS), is still dirty.

- a path neither in the index nor dirty then is neither staged nor tracked: not dirty.

Anything else (a file whose stat moved, a deleted file, a conflict, an index format not read
here) runs `git status` again, so every answer is the one
`git status` would give. The full set (`paths()`) is always read afresh. Our `git status`
never rewrites the index (GIT_OPTIONAL_LOCKS=0, safety.py), so an entry written in the same
clock tick as the index stays racy until git writes the index for another reason: such a
file is asked of git each time.
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG

from branchwise.git.refcache import RACY_SECONDS

#: (mtime ns, ctime ns, size, inode) as git's index keeps them (32-bit size and inode)
Stat = tuple[int, int, int, int]
_MASK = 0xFFFFFFFF


@dataclass(frozen=True)
class _Snapshot:
    key: tuple
    status: dict[str, str]  # path -> the two porcelain status letters
    entries: dict[str, Stat] | None  # stage-0 index entries' recorded stat (None: not readable)
    oids: dict[str, bytes]  # stage-0 entries' blob ids
    index_mtime_ns: int
    dirty_stats: dict[str, Stat]  # dirty paths whose stat did not move across the status run


class WorkTreeStatus:
    """The dirty paths of one work tree, kept between questions (see the module's doc)."""

    def __init__(self, git_dir: Path, work_tree: Path, read_status: Callable[[], dict[str, str]]):
        self._index = git_dir / "index"
        self._work_tree = work_tree
        self._root = f"{os.fspath(work_tree)}/"  # joined as text: a Path per asked file costs more than its lstat
        self._read_status = read_status
        self._snapshot: _Snapshot | None = None
        self._lock = threading.Lock()

    def check(self, head: str | None) -> DirtyCheck:
        """The dirty paths as of now, answered path by path."""
        return DirtyCheck(self, (_stamp(self._index), head))

    def answer(self, key: tuple, path: str) -> bool | None:
        """Whether `path` is dirty, from the kept snapshot; None when only git can say."""
        snap = self._snapshot
        if snap is None or snap.key != key:
            return None
        if snap.entries is not None and path not in snap.entries and path not in snap.status:
            return False  # neither in the index nor in HEAD's tree apart from it: untracked or no file
        now = _lstat(self._root + path)
        if now is None:
            return None
        if path in snap.dirty_stats:
            return True if now == snap.dirty_stats[path] else None
        recorded = None if snap.entries is None else snap.entries.get(path)
        if recorded is None or now[:2] != recorded[:2] or (now[2] & _MASK, now[3] & _MASK) != recorded[2:]:
            return None
        if recorded[0] >= snap.index_mtime_ns and not _holds_blob(self._work_tree / path, snap.oids.get(path)):
            return None
        return snap.status.get(path, "  ")[0] not in " ?!"  # the file is its entry: only the staged half

    def refresh(self, head: str | None) -> frozenset[str]:
        """Run `git status` and keep its answer when nothing it depends on moved meanwhile."""
        with self._lock:
            previous = self._snapshot
            started = time.time_ns()
            before = {path: _lstat(self._work_tree / path) for path in (previous.status if previous else {})}
            for _attempt in range(2):  # git may rewrite the index it refreshed: read once more
                key = (_stamp(self._index), head)
                status = self._read_status()
                if _stamp(self._index) == key[0]:
                    break
            else:
                self._snapshot = None
                return frozenset(status)
            entries, oids, index_mtime = _read_entries(self._index, key[0])
            old = started - RACY_SECONDS * 1e9
            dirty_stats = {path: stat for path, stat in before.items()
                           if stat is not None and path in status and max(stat[0], stat[1]) < old
                           and _lstat(self._work_tree / path) == stat}
            self._snapshot = _Snapshot(key, status, entries, oids, index_mtime, dirty_stats)
            return frozenset(status)


class DirtyCheck:
    """`path in check`: whether a tracked path has uncommitted changes; `paths()`: all of them."""

    def __init__(self, status: WorkTreeStatus | None, key: tuple):
        self._status = status
        self._key = key
        self._full: frozenset[str] | None = None if status is not None else frozenset()

    def __contains__(self, path: object) -> bool:
        if self._full is None and isinstance(path, str):
            assert self._status is not None
            known = self._status.answer(self._key, path)
            if known is not None:
                return known
        return path in self.paths()

    def paths(self) -> frozenset[str]:
        if self._full is None:
            assert self._status is not None
            self._full = self._status.refresh(self._key[1])
        return self._full


def _stamp(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _lstat(path: Path | str) -> Stat | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _read_entries(index: Path, stamp: tuple[int, int, int, int] | None) -> tuple[dict[str, Stat] | None,
                                                                                dict[str, bytes], int]:
    """The stage-0 entries' recorded stat and blob ids, when the index file is one read here
    (versions 2 and 3, no split or sparse index) and did not change while it was read."""
    if stamp is None:
        return None, {}, 0
    index_mtime = stamp[0]
    try:
        with open(index, "rb") as stream:
            data = stream.read()
        entries, extensions = read_index(data)
    except (ValueError, OSError, struct.error):
        return None, {}, 0
    if _extension_names(extensions) & {b"link", b"sdir"} or _stamp(index) != stamp:
        return None, {}, 0
    conflicted = {path for path, stage, _stat, _oid in entries if stage != 0}  # git status decides those
    kept = [(path, stat, oid) for path, stage, stat, oid in entries if stage == 0 and path not in conflicted]
    return {path: stat for path, stat, _oid in kept}, {path: oid for path, _stat, oid in kept}, index_mtime


def _holds_blob(path: Path, oid: bytes | None) -> bool:
    """Whether the plain file at `path` holds exactly the blob `oid` (git's blob hash of its bytes)."""
    try:
        if oid is None or not S_ISREG(os.lstat(path).st_mode):
            return False
        data = path.read_bytes()
    except OSError:
        return False
    return git_blob_id(data) == oid.hex()


def git_blob_id(data: bytes) -> str:
    """The id git gives a blob with this content (so work-tree files compare with trees)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


_ENTRY = struct.Struct(">LLLLLLLLLL20sH")  # ctime s, ns, mtime s, ns, dev, ino, mode, uid, gid, size, sha, flags
_NAME_MASK, _STAGE_MASK, _EXTENDED = 0x0FFF, 0x3000, 0x4000


def read_index(data: bytes) -> tuple[list[tuple[str, int, Stat, bytes]], bytes]:
    """(path, stage, recorded stat, blob id) of each entry of a git index file of version 2 or 3 (as
    git's index-format.txt lays it out), and the extensions after them; ValueError for
    anything else (version 4 compresses its paths: git status is asked then)."""
    if data[:4] != b"DIRC" or len(data) < 12 + 20:
        raise ValueError("not a git index file")
    version, count = struct.unpack_from(">LL", data, 4)
    if version not in (2, 3):
        raise ValueError(f"index version {version} is not read here")
    at, out = 12, []
    for _ in range(count):
        start = at
        csec, cns, msec, mns, _dev, ino, _mode, _uid, _gid, size, sha, flags = _ENTRY.unpack_from(data, at)
        at += _ENTRY.size + (2 if flags & _EXTENDED else 0)
        end = data.index(b"\0", at) if flags & _NAME_MASK == _NAME_MASK else at + (flags & _NAME_MASK)
        if end > len(data) - 20 or data[end:end + 1] != b"\0":
            raise ValueError("truncated index entry")
        path = data[at:end].decode("utf-8")  # strict: a path that is not UTF-8 is left to git
        at = start + ((end + 1 - start + 7) & ~7)  # entries are NUL-padded to a multiple of 8 bytes
        out.append((path, (flags & _STAGE_MASK) >> 12, (msec * 1_000_000_000 + mns, csec * 1_000_000_000 + cns,
                                                       size, ino), sha))
    if at > len(data) - 20:
        raise ValueError("truncated index file")
    return out, data[at:-20]


def _extension_names(data: bytes) -> set[bytes]:
    names, at = set(), 0
    while at + 8 <= len(data):
        names.add(data[at:at + 4])
        at += 8 + int.from_bytes(data[at + 4:at + 8], "big")
    return names
