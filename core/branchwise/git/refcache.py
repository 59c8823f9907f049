"""Ref reads answered from memory while the files the refs live in stand still.

Each `for-each-ref`, `remote` or `symbolic-ref` is a git process, 2 to 4 ms when started from
a large Python process: one `index` run listed the branches five times and the remotes seven,
and a warm MCP answer listed them again for every question. A `RefCache` keeps each answer
with a stamp of the files git reads it from (HEAD, packed-refs, the config files, every
folder under refs/ and reftable/: a loose ref is written by a rename into its folder, which
changes the folder) and gives it back while the stamp is unchanged. It follows git's own rule
for a "racily clean" index entry: an answer is kept only when every stamped file was last
changed well before the read began, so a ref moved in the same clock tick as a read is never
hidden behind an equal timestamp; such an answer is read again next time.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: an answer is kept only when everything it was read from is at least this much older than the
#: read: more than the coarsest timestamp a file system keeps (FAT 2 s, ext3 and HFS+ 1 s), so
#: that a folder changed twice within one timestamp tick is never taken as unchanged
RACY_SECONDS = 2.0

Stamp = tuple[tuple[str, int, int, int], ...]


class RefCache:
    """Answers keyed by name, each valid while the stamp of `git_dir` and `common_dir` holds."""

    def __init__(self, git_dir: Path, common_dir: Path):
        home = Path(os.path.expanduser("~"))
        xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        self._files = [git_dir / "HEAD", git_dir / "config.worktree", common_dir / "packed-refs",
                       common_dir / "config", home / ".gitconfig", xdg / "git" / "config"]
        self._folders = list(dict.fromkeys([common_dir / "refs", common_dir / "reftable", git_dir / "refs"]))
        self._answers: dict[str, tuple[Stamp, Any]] = {}
        self._held = threading.local()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Within the block (in this thread), the refs' files are stamped once, not for every
        answer: one question's ref answers agree with each other, as of its first. An answer
        read meanwhile is kept only under the stamp it was read at (`get`)."""
        outer = getattr(self._held, "stamp", False)
        if outer is False:
            self._held.stamp = None
        try:
            yield
        finally:
            if outer is False:
                self._held.stamp = False

    def get(self, key: str, read: Callable[[], Any]) -> Any:
        """`read()`'s answer, from memory when the refs have not moved since it was kept."""
        held = getattr(self._held, "stamp", False)  # False: not held; None: held, not stamped yet
        stamp = held or self._stamp()
        if held is None:
            self._held.stamp = stamp
        kept = self._answers.get(key)
        if kept is not None and kept[0] == stamp:
            return _copy(kept[1])
        started = time.time_ns()
        answer = read()
        if self._stamp() == stamp and all(mtime < started - RACY_SECONDS * 1e9 for _, mtime, _, _ in stamp):
            self._answers[key] = (stamp, _copy(answer))
        else:
            self._answers.pop(key, None)
        return answer

    def stamp(self) -> Stamp:
        """The ref files' stamp now: equal to a later one while nothing git reads refs from moved."""
        return self._stamp()

    def _stamp(self) -> Stamp:
        entries = [_entry(str(path)) for path in self._files]
        for folder in self._folders:
            _folder_entries(str(folder), entries)
        return tuple(entries)


def _folder_entries(folder: str, entries: list) -> None:
    """The stamp of `folder` and of every folder under it, in `os.walk`'s order (a folder, then
    each subfolder's in listing order; symbolic links not followed, an unreadable folder left
    out), without the `lstat` per subfolder that `os.walk` spends telling links apart: the
    listing's entry types say it."""
    try:
        with os.scandir(folder) as listing:
            below = [entry.path for entry in listing if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return
    entries.append(_entry(folder))
    for path in below:
        _folder_entries(path, entries)


def _entry(path: str) -> tuple[str, int, int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (path, -1, -1, -1)
    return (path, max(st.st_mtime_ns, st.st_ctime_ns), st.st_size, st.st_ino)


def _copy(answer: Any) -> Any:
    """A fresh container, so a caller that changes its answer cannot change the kept one."""
    return dict(answer) if isinstance(answer, dict) else list(answer) if isinstance(answer, list) else answer
