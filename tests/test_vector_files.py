"""The vector files under a writer that saves after every batch, and readers beside it.

The delta file is an append-only log whose saved length the generation record names: a
save appends only its new operations (the embedding stage saves per batch), and a reader
reads exactly the saved length. A reader that finds the files and the database apart while
another process holds the write lock (the writer saves just before it commits) searches
with vectors rebuilt from the database and leaves the files to the writer. The hashing
embedder: nothing here depends on the model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from gittools import GitBuilder

from branchwise.backends.local.vectors import VectorIndex, read_delta
from branchwise.store.lock import LOCK_FILE
from branchwise.workspace import Workspace


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def _functions(names: list[str]) -> str:
    return "".join(f"def {name}(order):\n    return order.{name}_total\n\n\n" for name in names)


@pytest.fixture
def indexed(tmp_path):
    repo = GitBuilder(tmp_path / "shop")
    repo.write("src/orders.py", _functions(["cancel_order", "ship_order"]))
    repo.commit("initial")
    index = tmp_path / "index"
    Workspace(repo.path, index).index(["main"])
    return repo, index


def _vectors(workspace: Workspace) -> VectorIndex:
    embedder = workspace.embedder
    return VectorIndex(workspace.store, embedder.name, embedder.dim, workspace.config.path_weight)


def _versions(workspace: Workspace) -> int:
    return workspace.store.conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0]


def test_each_save_appends_only_its_own_operations_and_a_load_replays_them_all(indexed):
    repo, index = indexed
    before = b""  # the first run wrote a base file and no delta
    for step, names in enumerate((["refund_order"], ["price_order", "tax_order"])):
        repo.write(f"src/more{step}.py", _functions(names))
        repo.commit(f"more {step}")
        Workspace(repo.path, index).index(["main"])
        [delta] = list(index.glob("vectors-*.delta"))
        after = delta.read_bytes()
        assert after.startswith(before) and len(after) > len(before)
        before = after
    meta = json.loads(next(index.glob("vectors-*.json")).read_text())
    assert meta["delta_bytes"] == delta.stat().st_size
    assert len(read_delta(delta)) == meta["delta"]
    fresh = Workspace(repo.path, index)
    loaded = _vectors(fresh)
    assert loaded.index.ntotal == _versions(fresh) == meta["count"]


def test_bytes_past_the_saved_length_are_ignored_by_a_reader_and_replaced_by_the_next_save(indexed):
    """An append cut short (or one a reader sees half-written) is past the recorded length."""
    repo, index = indexed
    repo.write("src/more.py", _functions(["refund_order"]))
    repo.commit("more")
    Workspace(repo.path, index).index(["main"])
    [delta] = list(index.glob("vectors-*.delta"))
    saved = delta.stat().st_size
    with delta.open("ab") as handle:
        handle.write(os.urandom(1000))
    meta_before = next(index.glob("vectors-*.json")).read_text()
    reader = Workspace(repo.path, index)
    assert _vectors(reader).index.ntotal == _versions(reader)
    assert next(index.glob("vectors-*.json")).read_text() == meta_before  # loaded, not rebuilt
    repo.write("src/again.py", _functions(["tax_order"]))
    repo.commit("again")
    Workspace(repo.path, index).index(["main"])
    grown = delta.read_bytes()
    assert len(read_delta(delta)) == json.loads(next(index.glob("vectors-*.json")).read_text())["delta"]
    assert len(grown) > saved
    again = Workspace(repo.path, index)
    assert _vectors(again).index.ntotal == _versions(again)


HOLD = r"""
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def test_a_reader_meeting_a_writer_between_save_and_commit_searches_right_and_writes_nothing(indexed):
    repo, index = indexed
    meta_file = next(index.glob("vectors-*.json"))
    meta = json.loads(meta_file.read_text())
    meta["generation"] += 1  # the writer saved the vector files of a generation not committed yet
    meta_file.write_text(json.dumps(meta))
    files = {path.name: path.read_bytes() for path in index.glob("vectors-*")}
    writer = subprocess.Popen([sys.executable, "-c", HOLD, str(index / LOCK_FILE)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "held"
        reader = Workspace(repo.path, index)
        vectors = _vectors(reader)
        assert vectors.index.ntotal == _versions(reader)  # rebuilt from the database, in memory
        assert {path.name: path.read_bytes() for path in index.glob("vectors-*")} == files
    finally:
        writer.stdin.close()
        writer.wait()
    alone = Workspace(repo.path, index)  # no writer now: the reader rebuilds and saves
    assert _vectors(alone).index.ntotal == _versions(alone)
    assert json.loads(meta_file.read_text())["generation"] == alone.store.generation()


def test_a_writer_holding_the_lock_saves_what_it_rebuilt(indexed):
    repo, index = indexed
    next(index.glob("vectors-*.faiss")).write_bytes(b"not a faiss index")
    workspace = Workspace(repo.path, index)
    with workspace.writing(False):
        vectors = workspace.vector_store()
    import faiss

    assert faiss.read_index(str(next(index.glob("vectors-*.faiss")))).ntotal == vectors.index.ntotal
