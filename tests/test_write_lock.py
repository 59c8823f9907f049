"""Every write to an index holds its write lock, taken inside the Workspace.

A second writer is refused with one clear line, or waits with --wait; this holds for index
runs and for their maintenance (--gc, --prune, --rebuild), for labels and for label imports.
The hashing embedder keeps these tests fast; nothing here depends on retrieval quality.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from gittools import GitBuilder

from branchwise.errors import IndexLockedError
from branchwise.index.indexer import Indexer
from branchwise.models import Label
from branchwise.search.hybrid import SearchRequest
from branchwise.store.lock import WriteLock
from branchwise.workspace import Workspace

CODE = "def charge_card(card, amount):\n    return amount\n\n\ndef refund(payment):\n    return payment\n"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def indexed(tmp_path):
    repo = GitBuilder(tmp_path / "shopdemo")
    repo.write("src/payments.py", CODE)
    repo.commit("initial")
    Workspace(repo.path, tmp_path / "index").index(["main"])
    return repo, tmp_path / "index"


def _writes(ws: Workspace, tmp_path):
    """Each write the service API offers, as a call."""
    [result] = ws.search(SearchRequest("charge card", "main", top_k=1))
    labels_file = tmp_path / "labels.toml"
    ws.review.set_label(result, Label.REFERENCE_ONLY)
    ws.review.export_labels(labels_file)
    return {
        "index": lambda: ws.index(["main"]),
        "index --prune": lambda: ws.index(["main"], prune=True),
        "index --gc": lambda: ws.index(["main"], gc=True),
        "index --rebuild": lambda: ws.index(["main"], rebuild=True),
        "collect_garbage": lambda: ws.collect_garbage(retention_days=0),
        "set_label": lambda: ws.review.set_label(result, Label.EXCLUDE),
        "clear_label": lambda: ws.review.set_label(result, None),
        "import_labels": lambda: ws.review.import_labels(labels_file),
    }


def test_every_write_is_refused_while_another_process_holds_the_lock(indexed, tmp_path):
    repo, index = indexed
    ws = Workspace(repo.path, index)
    writes = _writes(ws, tmp_path)
    with WriteLock(index):
        for name, write in writes.items():
            with pytest.raises(IndexLockedError, match="another branchwise process"):
                write()
    for name, write in writes.items():  # and each goes through once the lock is free
        write()


def test_a_second_writer_started_during_gc_is_refused(indexed, monkeypatch):
    """gc runs inside the lock: a writer that starts while it collects cannot get in."""
    repo, index = indexed
    repo.delete("src/payments.py")
    repo.commit("no payments")
    seen: list[BaseException | None] = []
    collect = Indexer.collect_garbage

    def collect_while_another_writer_tries(self, retention_days=None):
        try:
            Workspace(repo.path, index).index(["main"])
            seen.append(None)
        except IndexLockedError as error:
            seen.append(error)
        return collect(self, 0)

    monkeypatch.setattr(Indexer, "collect_garbage", collect_while_another_writer_tries)
    report = Workspace(repo.path, index).index(["main"], gc=True)
    assert report.gc_removed == 2
    assert len(seen) == 1 and isinstance(seen[0], IndexLockedError)


def _cli(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "branchwise_cli", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_cli_gc_refuses_or_waits_for_another_writer(indexed):
    repo, index = indexed
    argv = ("index", str(repo.path), "--index", str(index), "--gc", "--prune", "--json")
    with WriteLock(index):
        refused = _cli(*argv)
        _out, err = refused.communicate(timeout=120)
        assert refused.returncode == 1
        assert err.strip().splitlines() == [
            f"branchwise: another branchwise process is writing the index at {index} (pass --wait to wait for it)"]

    lock = WriteLock(index)
    lock.__enter__()
    waiting = _cli(*argv, "--wait")
    still_running_at_release: list[bool] = []

    def release_later():
        time.sleep(3)
        still_running_at_release.append(waiting.poll() is None)
        lock.__exit__(None, None, None)

    releaser = threading.Thread(target=release_later)
    releaser.start()
    out, err = waiting.communicate(timeout=120)
    releaser.join()
    assert waiting.returncode == 0, err
    assert still_running_at_release == [True] and '"gc_removed_versions": 0' in out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_holds_no_copy_of_the_write_lock(tmp_path):
    """Parse workers fork from an index run (index/parsing.py): a child's copy of the lock's
    descriptor would keep the lock held after the run was killed, so the child closes it."""
    import fcntl

    with WriteLock(tmp_path) as lock:
        held = lock._fd
        assert held is not None
        child = os.fork()
        if child == 0:  # the child: its copy must be gone
            try:
                os.fstat(held)
            except OSError:
                os._exit(0)
            os._exit(1)
        _pid, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        other = os.open(tmp_path / "write.lock", os.O_RDWR)
        try:  # closing the child's copy did not unlock the parent's
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
