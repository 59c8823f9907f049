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


#: the largest process id Linux hands out (PID_MAX_LIMIT); anything above is not a process
PID_LIMIT = 4_194_304
#: fields a reader formats as numbers: a record holding anything else there is repaired on read
_COUNTS = ("done", "total", "missing_versions")


def read(index_dir: Path) -> dict | None:
    """The last worker's record, its `state` "interrupted" when it died while running (or when
    its pid now names some other process)."""
    try:
        record = json.loads((Path(index_dir) / RECORD_FILE).read_text())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    record = sane(record)
    if record.get("state") == "running" and not is_same_process(record):
        record["state"] = "interrupted"
    return record


def sane(record: dict) -> dict:
    """`record` with every field a reader relies on of the type it expects (a hand-edited or
    foreign file must not crash `status`): a bad pid becomes None, a bad count 0."""
    record = dict(record)
    if not valid_pid(record.get("pid")):
        record["pid"] = None
    for name in _COUNTS:
        value = record.get(name)
        if name in record and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            record[name] = 0
    for name in ("rate", "eta_seconds"):
        value = record.get(name)
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0):
            record[name] = None
    for name in ("state", "message", "model", "repository", "started", "updated", "group"):
        if record.get(name) is not None and not isinstance(record[name], str):
            record[name] = str(record[name])
    return record


def valid_pid(pid) -> bool:
    return isinstance(pid, int) and not isinstance(pid, bool) and 0 < pid <= PID_LIMIT


def process_start(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot), or None when that cannot be read.
    A pid is reused once its process ends; the pair (pid, start) names one process for good."""
    if not valid_pid(pid):
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def identity(pid: int) -> dict:
    """The fields a record carries so that a later reader can tell its process from a newer one."""
    return {"pid": pid, "process_start": process_start(pid)}


def is_same_process(record: dict) -> bool:
    """Whether the process a record names is still the one that wrote it: alive, and started
    when the record says (a record without a start time cannot prove it and is not trusted
    where /proc can tell)."""
    pid = record.get("pid")
    if not isinstance(pid, int) or not alive(pid):
        return False
    now = process_start(pid)
    if now is None:  # no /proc here: liveness is all there is to go by
        return True
    return record.get("process_start") == now


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
    record = read(index_dir)  # a running record has passed is_same_process
    if record is None or record.get("state") != "running":
        return None
    pid = record.get("pid")
    return pid if valid_pid(pid) and pid != os.getpid() else None


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
    if not valid_pid(pid):
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
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
