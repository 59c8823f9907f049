"""Embedding in the background: the detached worker that `index --background` leaves behind.

An index run with `background` commits every branch (searchable by words and names), then
starts this worker and hands it the write lock it holds, as an inherited descriptor, so no
other writer can slip in between; the run returns at once. The worker (`python -m
branchwise.background`) embeds what is missing (embedstage.py), batch by batch, each batch
committed with its vectors, and keeps its record (worker_record.py) up to date for `status`:
texts done and to do, rate and ETA. Asked to yield (another writer wants the lock), it lets
go after the batch in hand and takes the lock back later, or leaves when that writer started
a worker of its own. Killed, it leaves a consistent index; the next index run or worker
embeds exactly what is still missing.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import branchwise
from branchwise import worker_record
from branchwise.lock import WriteLock

if TYPE_CHECKING:
    from branchwise.embedstage import EmbedPlan
    from branchwise.workspace import Workspace

#: how long a worker that yielded waits before it tries to take the lock back
YIELD_PAUSE_SECONDS = 1.0


def start(workspace: "Workspace", lock: WriteLock, first: list[str], work: "EmbedPlan") -> int:
    """Start the worker for `workspace`'s index and hand it `lock`; returns its process id."""
    index_dir = workspace.index_dir
    fd = lock.hand_over()
    command = [sys.executable, "-m", "branchwise.background", "--repo", str(workspace.repo.path),
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
        worker_record.write(index_dir, _record(process.pid, workspace, "running", 0, work.texts, work.versions))
    finally:
        assert process.stdin is not None
        process.stdin.close()  # the worker starts once its first record is written (it waits for EOF)
    return process.pid


def _record(pid: int, workspace: "Workspace", state: str, done: int, total: int, versions: int,
            started: str | None = None, rate: float | None = None, group: str | None = None) -> dict:
    now = _now()
    eta = round((total - done) / rate) if rate and total > done else None
    return {"pid": pid, "repository": workspace.repo.name, "model": workspace.embedder.name, "state": state,
            "started": started or now, "updated": now, "done": done, "total": total,
            "missing_versions": versions, "rate": round(rate, 1) if rate else None, "eta_seconds": eta,
            "group": group}


def _now() -> str:
    from branchwise.store import utc_now

    return utc_now()


class _Signals:
    """SIGTERM: stop after the batch in hand; SIGUSR1: yield the lock after it."""

    def __init__(self) -> None:
        self.stop = False
        self.yield_lock = False
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(worker_record.YIELD_SIGNAL, self._on_yield)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, worker_record.YIELD_SIGNAL})

    def _on_stop(self, *_args) -> None:
        self.stop = True

    def _on_yield(self, *_args) -> None:
        self.yield_lock = True


def run_worker(repo: Path, index_dir: Path, lock: WriteLock, first: list[str], signals: _Signals) -> int:
    """Embed everything missing under `lock`; 0 when done (or stopped), 1 when it failed."""
    from branchwise import embedstage
    from branchwise.workspace import Workspace

    workspace = Workspace(repo, index_dir)
    started, began = _now(), time.perf_counter()
    done_before = 0
    try:
        while True:
            vectors = workspace._vector_store()
            work = embedstage.plan(workspace.store, workspace.repo.name, workspace.embedder.name, first)
            total = done_before + work.texts
            group = {"label": None}

            def progress(stage: str, done: int, count: int) -> None:
                if stage.startswith("embedding:"):
                    group["label"] = stage.split(":", 1)[1]

            def after_batch(done: int, _count: int) -> None:
                seconds = time.perf_counter() - began
                worker_record.write(index_dir, _record(
                    os.getpid(), workspace, "running", done_before + done, total, work.versions, started,
                    (done_before + done) / seconds if seconds > 0 else None, group["label"]))
                _log(f"embedded {done_before + done:,} of {total:,} texts")

            worker_record.write(index_dir, _record(os.getpid(), workspace, "running", done_before, total,
                                                   work.versions, started))
            _log(f"embedding {work.texts:,} texts of {work.versions:,} versions with {workspace.embedder.name}")
            outcome = embedstage.embed_missing(
                workspace.store, workspace.embedder, vectors, work, progress,
                should_stop=lambda: signals.stop or signals.yield_lock, after_batch=after_batch)
            done_before += outcome.total
            if signals.stop or not outcome.stopped:
                break
            signals.yield_lock = False
            if not _yield(lock, index_dir):
                _log("another writer started a worker of its own: leaving")
                return 0
    except Exception as error:  # the log and the record are the only places anyone will see it
        worker_record.write(index_dir, {**_record(os.getpid(), workspace, "failed", done_before, done_before, 0,
                                                  started), "message": f"{type(error).__name__}: {error}"})
        _log(f"failed: {type(error).__name__}: {error}")
        return 1
    finally:
        workspace.close()
    state = "stopped" if signals.stop else "done"
    seconds = time.perf_counter() - began
    worker_record.write(index_dir, _record(os.getpid(), workspace, state, done_before, done_before, 0, started,
                                           done_before / seconds if seconds > 0 and done_before else None))
    _log(f"{state}: {done_before:,} texts embedded in {seconds:.1f}s")
    return 0


def _yield(lock: WriteLock, index_dir: Path) -> bool:
    """Let another writer have the lock; True once it is ours again, False when a new worker
    took over the embedding meanwhile."""
    _log("yielding the write lock to another writer")
    lock.release()
    while True:
        time.sleep(YIELD_PAUSE_SECONDS)
        other = worker_record.running_worker(index_dir)
        if other is not None and other != os.getpid():
            return False
        if lock.take_again():
            return True


def _log(message: str) -> None:
    print(f"{_now()} [{os.getpid()}] {message}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m branchwise.background")
    parser.add_argument("--repo", required=True, type=Path)
    parser.add_argument("--index", required=True, type=Path)
    parser.add_argument("--lock-fd", required=True, type=int, help="the locked write-lock descriptor handed over")
    parser.add_argument("--first", action="append", default=[], help="branches to embed first, in order")
    options = parser.parse_args(argv)
    signals = _Signals()
    lock = WriteLock.adopt(options.index, options.lock_fd)
    sys.stdin.read()  # the starting run closes it once it has written this worker's first record
    try:
        return run_worker(options.repo, options.index, lock, options.first, signals)
    finally:
        lock.__exit__(None, None, None)


if __name__ == "__main__":
    sys.exit(main())
