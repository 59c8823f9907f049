"""The background embedding worker's record: who it is, how far it got, and asking it to yield.

The worker (background.py) holds the index's write lock while it embeds, for minutes on a
big repository. Its record, a small JSON file in the index directory written only while it
holds the lock, names its process and its progress for `status`. Any other writer that finds
the lock taken by a live worker asks it to yield (SIGUSR1): the worker commits the batch it
is computing, lets go of the lock, and takes it back afterwards (or leaves, when the new
writer started a worker of its own). A worker killed outright leaves a record of a dead
process: `status` calls it interrupted, and the next index run embeds what is missing.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

RECORD_FILE = "embedding-worker.json"
LOG_FILE = "embedding.log"
YIELD_SIGNAL = signal.SIGUSR1


def read(index_dir: Path) -> dict | None:
    """The last worker's record, its `state` "interrupted" when it died while running."""
    try:
        record = json.loads((Path(index_dir) / RECORD_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    if record.get("state") == "running" and not alive(record.get("pid")):
        record["state"] = "interrupted"
    return record


def write(index_dir: Path, record: dict) -> None:
    tmp = Path(index_dir) / f".{RECORD_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(record, indent=1))
    os.replace(tmp, Path(index_dir) / RECORD_FILE)


def settle(index_dir: Path) -> None:
    """An index run embedded everything in the foreground: a dead worker's record is history."""
    record = read(index_dir)
    if record is not None and record.get("state") in ("interrupted", "failed"):
        write(index_dir, {**record, "state": "done",
                          "message": f"the worker was {record['state']}; index run {os.getpid()} embedded the rest"})


def running_worker(index_dir: Path) -> int | None:
    """The process id of a live worker embedding this index, or None."""
    record = read(index_dir)
    if record is None or record.get("state") != "running":
        return None
    pid = record.get("pid")
    return pid if isinstance(pid, int) and pid != os.getpid() else None


def ask_to_yield(index_dir: Path) -> bool:
    """Ask a live worker to let go of the write lock after its current batch; True if asked."""
    pid = running_worker(index_dir)
    if pid is None:
        return False
    try:
        os.kill(pid, YIELD_SIGNAL)
    except OSError:
        return False
    return True


def alive(pid) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """A finished child its parent has not reaped yet still answers signal 0."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return False
