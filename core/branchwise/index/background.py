"""Embedding in the background: the detached worker that `index --background` leaves behind.

An index run with `background` commits every branch (searchable by words and names), then
starts this worker and hands it the write lock it holds, as an inherited descriptor, so no
other writer can slip in between; the run returns at once. The worker (`python -m
branchwise.embed_worker`) embeds what is missing (embedstage.py), batch by batch, each batch
committed with its vectors, and keeps its record (worker_record.py) up to date for `status`:
texts done and to do, rate and ETA. Asked to yield (another writer wants the lock), it lets
go after the batch in hand and takes the lock back later, or leaves when that writer started
a worker of its own. Killed, it leaves a consistent index; the next index run or worker
embeds exactly what is still missing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import branchwise
from branchwise.index.embedstage import EmbedPlan
from branchwise.store import utc_now, worker_record
from branchwise.store.lock import WriteLock


@dataclass(frozen=True)
class Target:
    """What a worker embeds: one repository's index, with one model."""

    repo: Path
    index_dir: Path
    repository: str
    model: str


def start(target: Target, lock: WriteLock, first: list[str], work: EmbedPlan) -> int:
    """Start the worker for `target` and hand it `lock`; returns its process id."""
    index_dir = target.index_dir
    fd = lock.hand_over()
    command = [sys.executable, "-m", "branchwise.embed_worker", "--repo", str(target.repo),
               "--index", str(index_dir), "--lock-fd", str(fd)]
    for name in first:
        command += ["--first", name]
    package_root = str(Path(branchwise.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)}
    # the worker inherits the yield signal blocked, so one sent before its handler is in place
    # waits for it instead of ending the process (the default action)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {worker_record.YIELD_SIGNAL, signal.SIGTERM})
    with open(index_dir / worker_record.LOG_FILE, "ab") as log:
        try:
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=log, stderr=log, pass_fds=(fd,),
                                       start_new_session=True, env=env, cwd=str(index_dir))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    try:
        worker_record.write(index_dir, record(process.pid, target, "running", 0, work.texts, work.versions))
    finally:
        assert process.stdin is not None
        process.stdin.close()  # the worker starts once its first record is written (it waits for EOF)
    return process.pid


def record(pid: int, target: Target, state: str, done: int, total: int, versions: int,
           started: str | None = None, rate: float | None = None, group: str | None = None) -> dict:
    """A worker's record (worker_record.py): texts `done` of `total`, rate and ETA."""
    now = utc_now()
    eta = round((total - done) / rate) if rate and total > done else None
    return {**worker_record.identity(pid), "repository": target.repository, "model": target.model, "state": state,
            "started": started or now, "updated": now, "done": done, "total": total,
            "missing_versions": versions, "rate": round(rate, 1) if rate else None, "eta_seconds": eta,
            "group": group}
