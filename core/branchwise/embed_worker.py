"""The background embedding worker's process: `python -m branchwise.embed_worker`.

Started by background.py with the write lock's descriptor, it embeds what the index is
missing (embedstage.py) batch by batch and keeps its record (worker_record.py) current.
SIGTERM stops it after the batch in hand; SIGUSR1 (another writer wants the lock) makes it
let go after that batch and take the lock back once it is free again, or leave when that
writer started a worker of its own.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from branchwise.index.background import Target, record
from branchwise.store import utc_now, worker_record
from branchwise.store.lock import WriteLock

#: how long a worker that yielded waits before it tries to take the lock back
YIELD_PAUSE_SECONDS = 1.0


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
    from branchwise.index import embedstage
    from branchwise.workspace import Workspace

    workspace = Workspace(repo, index_dir)
    target = Target(workspace.repo.path, index_dir, workspace.repo.name, workspace.embedder.name)
    started, began = utc_now(), time.perf_counter()
    done_before = 0
    try:
        while True:
            vectors = workspace.vector_store()
            static_vectors = workspace.static_vector_store()  # its file follows each batch's generation
            work = embedstage.plan(workspace.store, workspace.repo.name, workspace.embedder.name, first)
            total = done_before + work.texts
            group: dict[str, str | None] = {"label": None}

            def progress(stage: str, done: int, count: int) -> None:
                if stage.startswith("embedding:"):
                    group["label"] = stage.split(":", 1)[1]

            def after_batch(done: int, _count: int) -> None:
                seconds = time.perf_counter() - began
                worker_record.write(index_dir, record(
                    os.getpid(), target, "running", done_before + done, total, work.versions, started,
                    (done_before + done) / seconds if seconds > 0 else None, group["label"]))
                _log(f"embedded {done_before + done:,} of {total:,} texts")

            worker_record.write(index_dir, record(os.getpid(), target, "running", done_before, total,
                                                   work.versions, started))
            _log(f"embedding {work.texts:,} texts of {work.versions:,} versions with {workspace.embedder.name}")
            outcome = embedstage.embed_missing(
                workspace.store, workspace.embedder, vectors, work, progress,
                should_stop=lambda: signals.stop or signals.yield_lock, after_batch=after_batch,
                others=[static_vectors] if static_vectors is not None else [])
            done_before += outcome.total
            if signals.stop or not outcome.stopped:
                break
            signals.yield_lock = False
            if not _yield(lock, index_dir):
                _log("another writer started a worker of its own: leaving")
                return 0
    except Exception as error:  # the log and the record are the only places anyone will see it
        worker_record.write(index_dir, {**record(os.getpid(), target, "failed", done_before, done_before, 0,
                                                  started), "message": f"{type(error).__name__}: {error}"})
        _log(f"failed: {type(error).__name__}: {error}")
        return 1
    finally:
        workspace.close()
    state = "stopped" if signals.stop else "done"
    seconds = time.perf_counter() - began
    worker_record.write(index_dir, record(os.getpid(), target, state, done_before, done_before, 0, started,
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
    print(f"{utc_now()} [{os.getpid()}] {message}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m branchwise.embed_worker")
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
