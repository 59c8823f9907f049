"""Parsing in worker processes changes nothing in the index: an index built with two parse
processes equals one built in a single process, row for row (issue 34).

The sample repositories are built in the test and every branch is indexed (a full parse, then
inheritance and incremental diffs) once with `BRANCHWISE_PARSE_PROCESSES=1` and once with 2;
every table that an index run writes is then compared, ids included: identities, versions
(all columns but the time they were written), live sets, tombstones, skipped files, the
embedding cache and the FTS5 documents. The streamed blob reader is checked against git
on the same repositories, and a worker that dies leaves its files to the parent process.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from branchwise.chunking import ChunkingRules
from branchwise.git.repo import GitRepo
from branchwise.index import parsing
from branchwise.models import PathMarks
from branchwise.store import DB_FILE
from branchwise.store.lock import LOCK_FILE, writer_elsewhere
from branchwise.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
STATIC_MODEL = "branchwise-code-v2-static"
#: each table an index run writes, with the columns compared (all but wall-clock times)
TABLES = {
    "repositories": "id, name",
    "branches": "id, repo_id, name, commit_sha, commit_time",
    "identities": "id, repo_id, path, language, symbol_type, qualified_name",
    "versions": "id, version_id, identity_id, content_hash, text, signature, docstring, parent, embedding_text, "
                "embed_key, path_key, path_class, class_reason, first_branch, first_commit, blob, start_line, "
                "end_line, imports",
    "live": "branch_id, identity_id, version_row, blob, start_line, end_line",
    "tombstones": "id, branch_id, identity_id, version_row, commit_sha, last_commit, blob, start_line, end_line",
    "skipped_files": "branch_id, path, reason",
    "embeddings": "model, key, vector",
    "lexical": "rowid, symbol, name, signature, docstring, code, path",
}


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("samples")
    subprocess.run([sys.executable, str(ROOT / "sample_repos" / "build.py"), str(dest)], check=True,
                   capture_output=True)
    return dest


def _index_everything(repos: list[Path], index: Path, processes: int, monkeypatch) -> int:
    """Every branch of `repos` indexed; returns the static vectors the parse workers made."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    monkeypatch.setenv("BRANCHWISE_PARSE_PROCESSES", str(processes))
    ahead = 0
    for repo in repos:
        ws = Workspace(repo, index)
        try:
            ahead += ws.index([], all_branches=True).embedding.get("static", {}).get("with_files", 0)
        finally:
            ws.close()
    return ahead


def _tables(index: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(index / DB_FILE)
    try:
        return {table: conn.execute(f"SELECT {columns} FROM {table} ORDER BY {columns}").fetchall()
                for table, columns in TABLES.items()}
    finally:
        conn.close()


@pytest.mark.parametrize("static_model", ["none", STATIC_MODEL])
def test_two_parse_processes_build_the_same_index_as_one(samples, tmp_path, monkeypatch, static_model):
    """With a static stage, the workers embed their files' texts with the static model; the
    embedding cache then holds the same vectors, bit for bit, as the static stage makes."""
    monkeypatch.setenv("BRANCHWISE_STATIC_MODEL", static_model)
    repos = sorted(p for p in samples.iterdir() if (p / ".git").exists())
    assert len(repos) >= 3
    alone = _index_everything(repos, tmp_path / "single", 1, monkeypatch)
    ahead = _index_everything(repos, tmp_path / "parallel", 2, monkeypatch)
    single, parallel = _tables(tmp_path / "single"), _tables(tmp_path / "parallel")
    assert len(single["versions"]) > 100 and len(single["branches"]) > 3 and single["tombstones"]
    for table in TABLES:
        assert parallel[table] == single[table], table
    if static_model != "none":
        assert {model for model, _key, _vector in single["embeddings"]} == {"hashing-384", STATIC_MODEL}
        assert alone == 0 and ahead > 100  # the workers embedded, not the static stage


def test_workers_parse_as_the_process_does(samples, monkeypatch):
    """Every file of a sample, parsed in two workers and in this process: equal chunks and
    extras, in the order the files were given."""
    repo = GitRepo(samples / "shop")
    files = sorted((path, entry.blob) for path, entry in repo.list_tree(repo.resolve_branch("main")).files.items())
    rules = ChunkingRules()
    monkeypatch.setenv("BRANCHWISE_PARSE_PROCESSES", "1")
    here = list(parsing.parse_files(repo, files, rules, PathMarks()))
    monkeypatch.setenv("BRANCHWISE_PARSE_PROCESSES", "2")
    there = list(parsing.parse_files(repo, files, rules, PathMarks()))
    assert [p.path for p in there] == [path for path, _blob in files] == [p.path for p in here]
    assert all(p.extras is not None for p in there)  # computed in the workers
    for mine, theirs in zip(here, there):
        assert theirs.chunks == mine.chunks
        assert [theirs.extras_of(i) for i in range(len(theirs.chunks.chunks))] == \
            [mine.extras_of(i) for i in range(len(mine.chunks.chunks))]


def test_streamed_blobs_are_gits_blobs(samples):
    repo = GitRepo(samples / "engine")
    entries = sorted(repo.list_tree(repo.resolve_branch("main")).files.values(), key=lambda e: e.path)
    wanted = [e.blob for e in entries] + ["0" * 40] + [entries[0].blob]  # a missing one, a repeat
    streamed = list(repo.iter_blobs(wanted))
    assert [blob for blob, _data in streamed] == wanted
    assert streamed[-2] == ("0" * 40, None)
    for blob, data in streamed[:-2] + streamed[-1:]:
        assert data == repo.read_blob(blob)


def test_a_dead_worker_leaves_its_files_to_the_parent(samples, monkeypatch):
    repo = GitRepo(samples / "webapp")
    files = sorted((path, entry.blob) for path, entry in repo.list_tree(repo.resolve_branch("main")).files.items())
    rules = ChunkingRules()
    monkeypatch.setenv("BRANCHWISE_PARSE_PROCESSES", "1")
    expected = [p.chunks for p in parsing.parse_files(repo, files, rules, PathMarks())]
    monkeypatch.setenv("BRANCHWISE_PARSE_PROCESSES", "2")
    monkeypatch.setattr(parsing, "_parse_task", _die)  # every worker exits on its first task
    assert [p.chunks for p in parsing.parse_files(repo, files, rules, PathMarks())] == expected


def _die(task):
    os._exit(3)


def _parse_workers(pid: int) -> list[int]:
    """The children of `pid` that are its parse workers: forked (the parent's command line)
    or spawned (multiprocessing's `spawn_main`), not its git processes."""
    parent = _command_line(pid)
    if not parent:  # gone, or still starting
        return []
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                cmdline = (entry / "cmdline").read_bytes()
                if cmdline == parent or b"spawn_main" in cmdline:
                    found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _many_files(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A repository of 600 small Python files, and the environment that indexes it with two
    parse workers and the hashing embedder."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    for n in range(600):
        (repo / "pkg" / f"m{n:03d}.py").write_text(
            "".join(f"def handler_{n}_{k}(order, limit=10):\n    return [order] * limit\n\n\n" for k in range(12)))
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_GLOBAL": os.devnull}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "many files"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    env.update(BRANCHWISE_MODEL="hashing-384", BRANCHWISE_PARSE_PROCESSES="2",
               PYTHONPATH=os.pathsep.join(str(ROOT / p) for p in ("core", "tui", "cli")))
    return repo, env


def test_the_pool_forks_only_beside_threads_declared_safe():
    """A thread nobody declared may hold a lock a forked worker would need: the pool spawns
    then. A display thread that writes under a lock the pool holds while forking does not."""
    script = (
        "import threading\n"
        "from branchwise.index import parsing\n"
        "alone = parsing.start_method()\n"
        "stop = threading.Event()\n"
        "thread = threading.Thread(target=stop.wait, daemon=True)\n"
        "thread.start()\n"
        "beside = parsing.start_method()\n"
        "parsing.allow_fork_beside(thread, threading.Lock())\n"
        "print(alone, beside, parsing.start_method())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "core")})
    expected = "fork spawn fork" if sys.platform.startswith("linux") else "spawn spawn spawn"
    assert done.stdout.split() == expected.split()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_an_index_run_with_its_progress_display_forks_its_workers(tmp_path):
    """The progress display's thread is declared safe (branchwise_cli/progress.py): a user who
    watches `branchwise index` gets forked workers too, and the run ends as usual."""
    import time

    repo, env = _many_files(tmp_path)
    index = subprocess.Popen([sys.executable, "-m", "branchwise_cli", "index", str(repo), "--index",
                              str(tmp_path / "index")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # a child is a worker when two looks see it with the parent's command line: a child forked to
    # run git has that command line too, for the moment before it execs (a loaded machine saw one)
    looks: dict[int, int] = {}
    deadline = time.monotonic() + 300
    while index.poll() is None and time.monotonic() < deadline:
        parent = _command_line(index.pid)  # read here: it is empty while the process is still starting
        for pid in _parse_workers(index.pid):
            if parent and _command_line(pid) == parent:
                looks[pid] = looks.get(pid, 0) + 1
        time.sleep(0.02)
    out, err = index.communicate(timeout=300)
    assert index.returncode == 0, err
    forked = {pid for pid, seen in looks.items() if seen >= 2}
    assert len(forked) == 2, looks
    assert b"indexing main (branch 1 of 1)" in err and b"600 files changed" in out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_parse_workers_exit_when_the_index_process_is_killed(tmp_path):
    """SIGKILL gives the pool no time to stop its workers; they notice and exit by themselves,
    and the index's write lock is free as soon as the index process is gone (a forked worker
    never holds it)."""
    import signal
    import time

    repo, env = _many_files(tmp_path)
    index = subprocess.Popen([sys.executable, "-m", "branchwise_cli", "index", str(repo), "--index",
                              str(tmp_path / "index"), "--quiet"], env=env)
    workers: list[int] = []
    deadline = time.monotonic() + 300
    while len(workers) < 2 and index.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
        workers = _parse_workers(index.pid)
    assert len(workers) == 2, "the index run never had its two parse workers"
    index.send_signal(signal.SIGKILL)
    index.wait()
    assert (tmp_path / "index" / LOCK_FILE).exists() and not writer_elsewhere(tmp_path / "index")
    deadline = time.monotonic() + 60
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [w for w in workers if _command_line(w)]  # a zombie's is empty


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
