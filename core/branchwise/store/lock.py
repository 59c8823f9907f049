"""One writer per index at a time, while readers go on (SQLite WAL lets them).

The lock is an advisory `flock` on a file in the index directory, so a killed writer
releases it with its process and no stale lock file can block the next run. An index run
can hand its lock to the detached worker that embeds in the background (background.py);
a writer that finds that worker holding the lock asks it to yield (worker_record.py) and
waits for it, at most `YIELD_WAIT_SECONDS`, instead of failing.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from branchwise.errors import IndexLockedError, UsageError
from branchwise.store import make_index_dir, worker_record

LOCK_FILE = "write.lock"
#: how long a writer waits for a background embedding worker to let go of the lock
YIELD_WAIT_SECONDS = 120.0
#: a search saving a vector file it rebuilt holds the lock this long at most, usually (see
#: `derived_files_writable`): a writer waits that long before it says the index is busy
READER_HOLD_SECONDS = 1.0
#: the index directories whose write lock this process holds now
_HELD: set[str] = set()
#: the descriptors of this process's WriteLocks, closed in a forked child (index/parsing.py's
#: workers): a child that outlives a killed writer must not keep its lock
_OPEN: set[int] = set()


def _forget_in_child() -> None:
    for fd in _OPEN:  # closing a copy never unlocks: the parent's descriptor still holds it
        try:
            os.close(fd)
        except OSError:
            pass
    _OPEN.clear()
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def _key(index_dir: Path) -> str:
    return str(Path(index_dir).resolve())


@contextmanager
def derived_files_writable(index_dir: Path) -> Iterator[bool]:
    """Whether this process may write the index's derived files (the vector files) now: it
    holds the write lock, or the lock is free (then it is held until the block ends). A
    reader that finds a writer at work leaves the files to it: two writers of one file
    would leave a mix of both."""
    if _key(index_dir) in _HELD:
        yield True
        return
    try:
        fd = os.open(Path(index_dir) / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the descriptor releases its lock


def writer_elsewhere(index_dir: Path) -> bool:
    """Another process holds the index's write lock now (False where no lock file can be read)."""
    if _key(index_dir) in _HELD:
        return False
    try:
        fd = os.open(Path(index_dir) / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _freed_within(fd: int, seconds: float) -> bool:
    """Take the lock on `fd` if it becomes free within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.05)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
    return False


class WriteLock:
    def __init__(self, index_dir: Path, wait: bool = False):
        self.path = Path(index_dir) / LOCK_FILE
        self.wait = wait
        self._fd: int | None = None
        self._handed_over = False

    @classmethod
    def adopt(cls, index_dir: Path, fd: int) -> "WriteLock":
        """The lock a parent process handed over as the open, locked descriptor `fd`."""
        lock = cls(index_dir)
        lock._fd = fd
        _OPEN.add(fd)
        _HELD.add(_key(index_dir))
        return lock

    def hand_over(self) -> int:
        """The locked descriptor, made inheritable for a child process that takes the lock
        over; from now on this object only closes its copy and never unlocks it."""
        if self._fd is None:
            raise RuntimeError("the write lock is not held")
        os.set_inheritable(self._fd, True)
        self._handed_over = True
        _HELD.discard(_key(self.path.parent))
        return self._fd

    @property
    def handed_over(self) -> bool:
        return self._handed_over

    def release(self) -> None:
        """Let go of the lock but keep the descriptor, to take it again with `take_again`."""
        if self._fd is not None:
            _HELD.discard(_key(self.path.parent))
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def take_again(self) -> bool:
        """Take the lock again without waiting; True if it was free."""
        assert self._fd is not None, "the lock's descriptor was closed"
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        _HELD.add(_key(self.path.parent))
        return True

    def __enter__(self) -> "WriteLock":
        make_index_dir(self.path.parent)
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise UsageError(f"cannot write the index at {self.path.parent}: {error.strerror or error}") from None
        _OPEN.add(self._fd)
        try:
            self._take(self._fd)
        except BlockingIOError:
            _OPEN.discard(self._fd)
            os.close(self._fd)
            self._fd = None
            raise IndexLockedError(
                f"another branchwise process is writing the index at {self.path.parent} "
                "(pass --wait to wait for it)"
            ) from None
        _HELD.add(_key(self.path.parent))
        return self

    def _take(self, fd: int) -> None:
        """Take the lock: at once, or after a background worker yielded it, or (`wait`) whenever
        it is free; raises BlockingIOError when it is not to be had."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if not worker_record.ask_to_yield(self.path.parent):
                if not self.wait and not _freed_within(fd, READER_HOLD_SECONDS):
                    raise
                fcntl.flock(fd, fcntl.LOCK_EX)
                return
        deadline = time.monotonic() + YIELD_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline and not self.wait:
                    raise
                time.sleep(0.05)

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            if not self._handed_over:
                _HELD.discard(_key(self.path.parent))
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            _OPEN.discard(self._fd)
            os.close(self._fd)
            self._fd = None
