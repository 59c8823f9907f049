"""Smaller robustness cases: literal repository paths, read-only indexes, `review` without a
terminal, and `labels import` that is atomic, validated and fast enough for big files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from branchwise.workspace import Workspace
from gittools import GitBuilder


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True,
                         **kwargs)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_a_variable_in_a_repository_path_is_not_expanded(tmp_path, monkeypatch):
    """`$TARGET/repo` is a directory named `$TARGET`, not the repository TARGET points at."""
    elsewhere = GitBuilder(tmp_path / "elsewhere" / "repo")
    elsewhere.write("src/other.py", "def not_this_one():\n    return 0\n")
    elsewhere.commit("other")
    monkeypatch.setenv("TARGET", str(tmp_path / "elsewhere"))
    literal = tmp_path / "$TARGET" / "repo"
    wanted = GitBuilder(literal)
    wanted.write("src/mine.py", "def this_one():\n    return 1\n")
    wanted.commit("mine")
    out = run("index", literal, "--index", tmp_path / "index", "--json")
    assert out.returncode == 0, out.stderr
    names = {row["qualified_name"] for row in Workspace(literal, tmp_path / "index").inspect("main")}
    assert names == {"this_one"}
    missing = run("index", tmp_path / "$TARGET" / "nothing", "--index", tmp_path / "index2")
    assert missing.returncode == 2 and "$TARGET" in missing.stderr


# read-only and misplaced index directories ---------------------------------------------------

NOBODY = 65534


def world_readable_tree(root: Path) -> None:
    for path in (root, *root.rglob("*")):
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o555 if path.is_dir() else path.stat().st_mode | 0o444)


@pytest.fixture
def shared(tmp_path):
    """A repository and its index in a directory another user can read (but not write)."""
    import os
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="bw-readonly-", dir="/tmp"))
    repo = GitBuilder(root / "repo")
    repo.write("src/app.py", "def handler(x):\n    return x * 2\n")
    repo.commit("init")
    index = root / "index"
    assert run("index", repo.path, "--index", index).returncode == 0
    world_readable_tree(root)
    if os.geteuid() == 0:  # the reader is another user, so the directory really is read-only to it
        for path in (repo.path, *repo.path.rglob("*")):
            os.lchown(path, NOBODY, NOBODY)
    else:
        for path in (index, *index.iterdir()):
            path.chmod(0o555 if path.is_dir() else 0o444)
    yield repo.path, index
    import shutil

    for path in (root, *root.rglob("*")):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(root, ignore_errors=True)


def run_as_reader(*argv) -> subprocess.CompletedProcess:
    """The CLI as a user who may not write the index (nobody, when the tests run as root)."""
    import os

    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if os.geteuid() == 0 else []
    env = {**os.environ, "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([*prefix, sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True,
                         text=True, env=env)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_a_read_only_index_directory_is_searchable(shared, tmp_path):
    repo, index = shared
    before = sorted(p.name for p in index.iterdir())
    common = ("--repo", repo, "--branch", "main", "--index", index)
    search = run_as_reader("search", "handler", *common, "--json")
    assert search.returncode == 0, search.stderr
    assert '"qualified_name": "handler"' in search.stdout
    assert run_as_reader("inspect", *common).returncode == 0
    assert run_as_reader("stats", "--index", index).returncode == 0
    assert sorted(p.name for p in index.iterdir()) == before  # nothing written into it


def test_indexing_into_a_read_only_directory_is_one_line(shared):
    repo, index = shared
    out = run_as_reader("index", repo, "--index", index)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "not writable" in out.stderr
    out = run_as_reader("index", repo, "--index", index / "new-subdir")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_index_pointing_at_a_file_is_one_line(tmp_path):
    repo = GitBuilder(tmp_path / "repo")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("a")
    a_file = tmp_path / "not-a-directory"
    a_file.write_text("x")
    for argv in (("index", repo.path), ("search", "a", "--repo", repo.path, "--branch", "main"),
                 ("stats",), ("labels", "export", tmp_path / "l.toml", "--repo", repo.path)):
        out = run(*argv, "--index", a_file)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, (argv, out.stderr)
        assert "is not a directory" in out.stderr
    out = run("index", repo.path, "--index", a_file / "below")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert a_file.read_text() == "x"


# damage and contention -----------------------------------------------------------------------


def test_rebuild_refuses_a_damaged_database_and_changes_nothing(tmp_path):
    import os
    import random

    repo = GitBuilder(tmp_path / "repo")
    for n in range(60):
        repo.write(f"src/m{n}.py", "".join(f"def f{n}_{k}(x):\n    return x + {k}\n\n\n" for k in range(8)))
    repo.commit("many")
    index = tmp_path / "index"
    assert run("index", repo.path, "--index", index).returncode == 0
    database = index / "index.sqlite3"
    import sqlite3

    reader = sqlite3.connect(database)
    reader.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = reader.execute("PRAGMA page_size").fetchone()[0]
    # pages a vector rebuild never reads (the full-text index and an index on paths), so only
    # an integrity check can notice them
    pages = [row[0] for row in reader.execute(
        "SELECT pageno FROM dbstat WHERE name IN ('lexical_data', 'identities_path') ORDER BY pageno")]
    reader.close()
    data = bytearray(database.read_bytes())
    rng = random.Random(3)
    for number in rng.sample(pages, min(3, len(pages))):
        start = (number - 1) * page
        data[start + 8 : start + page] = os.urandom(page - 8)
    database.write_bytes(bytes(data))
    damaged = database.read_bytes()
    out = run("index", repo.path, "--index", index, "--rebuild")
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert len(out.stderr.strip().splitlines()) == 1 and "damaged" in out.stderr, out.stderr
    assert database.read_bytes() == damaged


def test_a_busy_database_says_busy(tmp_path, monkeypatch, capsys):
    import sqlite3

    from branchwise.store import database
    from branchwise_cli.main import main

    repo = GitBuilder(tmp_path / "repo")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("a")
    index = tmp_path / "index"
    assert run("index", repo.path, "--index", index).returncode == 0
    holder = sqlite3.connect(index / "index.sqlite3", isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(database, "BUSY_TIMEOUT_SECONDS", 0.2)
    try:
        code = main(["search", "a", "--repo", str(repo.path), "--branch", "main", "--index", str(index)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "busy" in err and "damaged" not in err


def test_review_without_a_terminal_refuses(tmp_path):
    repo = GitBuilder(tmp_path / "repo")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("a")
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", "review", "--repo", str(repo.path),
                          "--index", str(tmp_path / "index")], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert out.returncode == 2, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "terminal" in out.stderr
    assert out.stdout == ""
