"""One writer per index at a time, while readers go on (SQLite WAL lets them).

The lock is an advisory `flock` on a file in the index directory, so a killed writer
releases it with its process and no stale lock file can block the next run.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from branchwise.errors import IndexLockedError, UsageError
from branchwise.store import make_index_dir

LOCK_FILE = "write.lock"


class WriteLock:
    def __init__(self, index_dir: Path, wait: bool = False):
        self.path = Path(index_dir) / LOCK_FILE
        self.wait = wait
        self._fd: int | None = None

    def __enter__(self) -> "WriteLock":
        make_index_dir(self.path.parent)
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise UsageError(f"cannot write the index at {self.path.parent}: {error.strerror or error}") from None
        flags = fcntl.LOCK_EX if self.wait else fcntl.LOCK_EX | fcntl.LOCK_NB
        try:
            fcntl.flock(self._fd, flags)
        except BlockingIOError:
            os.close(self._fd)
            self._fd = None
            raise IndexLockedError(
                f"another branchwise process is writing the index at {self.path.parent} "
                "(pass --wait to wait for it)"
            ) from None
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
