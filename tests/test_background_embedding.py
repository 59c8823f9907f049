"""Searchable before embedded, and embedding in the background (issue 34), on real git
repositories, real SQLite and FAISS, with the hashing embedder (what is tested here is the
staging, the resumption and the coverage reporting, which do not depend on the model).

A branch is searchable by its words and names as soon as its files are stored; a search
while the model is still embedding ranks with what it has and says how much the dense
channel covers; the detached worker can be killed at any point and the next index run
embeds exactly what is missing, ending where a plain foreground index ends.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import faiss
import numpy as np
import pytest
from gittools import GitBuilder
from workers import wait_for_worker

from branchwise.embedding import get_embedder
from branchwise.index import embedstage, run
from branchwise.mcp_server.service import AgentService
from branchwise.search.hybrid import SearchRequest
from branchwise.store import worker_record
from branchwise.workspace import Workspace
from branchwise_cli.progress import PlainProgress

MODEL = "hashing-384"
QUERIES = ("parse the configuration value", "refund a payment to the customer", "zebracrossing lights")
WORDS = ("order", "payment", "refund", "config", "parse", "render", "cache", "stock", "invoice", "ledger",
         "report", "queue", "token", "session", "upload", "export", "schedule", "retry", "quota", "audit")


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", MODEL)


def build_repo(path: Path) -> GitBuilder:
    """About 900 texts to embed (several batches): source modules, then tests and docs."""
    repo = GitBuilder(path)
    for number in range(30):
        first, second = WORDS[number % len(WORDS)], WORDS[(number * 7 + 3) % len(WORDS)]
        body = "".join(
            f"def {first}_{second}_{n}(value, limit={n}):\n"
            f"    \"\"\"{first.title()} the {second} number {n} and return it.\"\"\"\n"
            f"    return [{first!r}, {second!r}, value, limit * {n}]\n\n\n" for n in range(25))
        repo.write(f"src/{first}/{second}_{number}.py", body)
    for number in range(8):
        body = "".join(f"def test_zebracrossing_{number}_{n}():\n    assert {n} + {number} >= 0\n\n\n"
                       for n in range(10))
        repo.write(f"tests/test_zebracrossing_{number}.py", body)
    repo.write("docs/guide.md", "# Guide\n\nHow to parse the configuration value.\n")
    repo.commit("init")
    return repo


def texts_missing(ws: Workspace) -> int:
    return embedstage.plan(ws.store, ws.repo.name, MODEL, ["main"]).texts


def keys_missing(ws: Workspace) -> int:
    """The embedding keys no embedding is cached for, counted straight from the tables."""
    return ws.store.conn.execute(
        "SELECT count(*) FROM (SELECT embed_key AS key FROM versions UNION SELECT path_key FROM versions) k "
        "WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.key = k.key)", (MODEL,)).fetchone()[0]


def embedded_rows(ws: Workspace) -> list[int]:
    return ws.store.embedded_versions(MODEL, ws.store.all_version_rows())


def faiss_ids(ws: Workspace) -> list[int]:
    index = ws.searcher.vectors.index
    return sorted(faiss.vector_to_array(index.id_map).tolist())


def ranked(ws: Workspace, query: str) -> list[tuple]:
    return [(r.path, r.identity.qualified_name, round(r.score, 6), r.dense_rank, r.lexical_rank, r.name_rank)
            for r in ws.search(SearchRequest(query, "main", top_k=15))]


def assert_consistent(index_dir: Path, repo: Path) -> Workspace:
    """What any reader finds after a kill: a sound database whose FAISS vectors are exactly
    its embedded versions, once each, and a search that answers with its coverage."""
    ws = Workspace(repo, index_dir)
    ws.store.check_integrity()
    ids = faiss_ids(ws)
    assert ids == embedded_rows(ws)  # nothing missing, nothing twice
    coverage = ws.dense_coverage("main")
    assert coverage.total == len(ws.inspect("main")) and 0 <= coverage.embedded <= coverage.total
    assert ws.search(SearchRequest(QUERIES[0], "main"))
    return ws


class CountingEmbedder:
    """The real hashing embedder, counting the texts it embeds."""

    def __init__(self) -> None:
        self.inner = get_embedder(MODEL)
        self.name, self.dim = self.inner.name, self.inner.dim
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += texts
        return self.inner.embed(texts)


def restart(ws: Workspace):
    """Index again after the kills: exactly the missing texts are embedded, each once; the report."""
    missing = keys_missing(ws)
    assert missing == texts_missing(ws) > 0
    counting = CountingEmbedder()
    ws.__dict__["embedder"] = counting
    report = ws.index(["main"])
    assert report.embedding["missing_texts"] == missing == report.embedding["embedded"] == len(counting.texts)
    assert len(set(counting.texts)) == len(counting.texts)
    return report


def stepped_kill(pid: int, index_dir: Path, at_least: int, extra_steps: int) -> None:
    """Run the worker in short slices until it has committed `at_least` texts and then
    `extra_steps` slices more, and SIGKILL it wherever that slice stopped it."""
    deadline = time.monotonic() + 120
    steps = None
    while time.monotonic() < deadline:
        os.kill(pid, signal.SIGCONT)
        time.sleep(0.004)
        os.kill(pid, signal.SIGSTOP)
        record = worker_record.read(index_dir) or {}
        if (record.get("done") or 0) + embedstage.BATCH >= (record.get("total") or 10**9):
            break  # the last batch may be in hand: a slice more could finish the whole stage
        if steps is None and (record.get("done") or 0) >= at_least:
            steps = extra_steps
        if steps is not None:
            if steps == 0:
                break
            steps -= 1
    os.kill(pid, signal.SIGKILL)
    _reap(pid)


def _reap(pid: int) -> None:
    """Wait until the killed worker is gone (it is this process's child: reap it)."""
    for _ in range(500):
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:
            if not worker_record.alive(pid):
                return
        time.sleep(0.01)


def start_background(repo: Path, index_dir: Path) -> tuple[int, dict]:
    ws = Workspace(repo, index_dir)
    report = ws.index(["main"], background=True)
    ws.close()
    embedding = report.embedding
    assert embedding["background"] and embedding["worker_pid"]
    os.kill(embedding["worker_pid"], signal.SIGSTOP)
    return embedding["worker_pid"], embedding


def test_killed_workers_leave_a_consistent_index_and_the_next_run_embeds_only_what_is_missing(tmp_path):
    repo = build_repo(tmp_path / "repo")
    index_dir = tmp_path / "index"
    rng = random.Random(34)
    total = None
    partial_states = 0
    for _round in range(4):
        before = texts_missing(Workspace(repo.path, index_dir)) if (index_dir / "index.sqlite3").exists() else None
        pid, embedding = start_background(repo.path, index_dir)
        if before is not None:  # a restarted worker is given exactly what is missing
            assert embedding["missing_texts"] == before
        total = total or embedding["missing_texts"]
        stepped_kill(pid, index_dir, at_least=rng.randrange(0, max(1, embedding["missing_texts"] - 256)),
                     extra_steps=rng.randrange(0, 4))
        ws = assert_consistent(index_dir, repo.path)
        assert (worker_record.read(index_dir) or {}).get("state") in ("interrupted", "done")
        left = keys_missing(ws)
        assert left == texts_missing(ws) <= embedding["missing_texts"]
        partial_states += 0 < left < total
        ws.close()
    assert partial_states >= 2  # the kills did land in the middle of the embedding

    ws = Workspace(repo.path, index_dir)
    restart(ws)
    assert ws.dense_coverage("main").complete and faiss_ids(ws) == embedded_rows(ws)

    plain = Workspace(repo.path, tmp_path / "plain")
    plain.index(["main"])
    fresh = Workspace(repo.path, index_dir)
    for query in QUERIES:
        assert ranked(fresh, query) == ranked(plain, query)


def test_a_search_during_the_embedding_ranks_by_words_and_says_how_much_is_embedded(tmp_path):
    repo = build_repo(tmp_path / "repo")
    index_dir = tmp_path / "index"
    pid, embedding = start_background(repo.path, index_dir)
    stepped_kill(pid, index_dir, at_least=256, extra_steps=0)
    ws = Workspace(repo.path, index_dir)
    coverage = ws.dense_coverage("main")
    assert 0 < coverage.embedded < coverage.total

    # the tests are embedded last: found by their words alone, with no dense rank
    results = ws.search(SearchRequest("tests for zebracrossing", "main", top_k=5))
    assert results and all(r.path.startswith("tests/") for r in results)
    assert all(r.dense_rank is None and r.lexical_rank is not None for r in results)
    # the dense channel ranks what is embedded: source, which comes first
    dense = ws.search(SearchRequest(QUERIES[1], "main", mode="dense"))
    assert dense and all(r.path.startswith("src/") and r.dense_rank is not None for r in dense)

    env = {**os.environ, "BRANCHWISE_MODEL": MODEL}
    where = ["--repo", str(repo.path), "--branch", "main", "--index", str(index_dir), "--no-stats"]
    text = subprocess.run([sys.executable, "-m", "branchwise_cli", "search", "tests for zebracrossing", *where],
                          capture_output=True, text=True, env=env)
    assert text.returncode == 0, text.stderr
    line = f"dense coverage {coverage.percent}%: {coverage.embedded:,} of {coverage.total:,} versions embedded"
    assert line in text.stdout.splitlines()[1]
    as_json = subprocess.run([sys.executable, "-m", "branchwise_cli", "search", "tests for zebracrossing", *where, "--json"],
                             capture_output=True, text=True, env=env)
    assert as_json.returncode == 0, as_json.stderr
    answer = json.loads(as_json.stdout)
    assert answer["dense_coverage"] == {"embedded": coverage.embedded, "total": coverage.total,
                                        "share": round(coverage.embedded / coverage.total, 4), "complete": False}
    assert answer["results"]

    mcp = AgentService([Workspace(repo.path, index_dir)]).search_code("tests for zebracrossing", branch="main")
    assert mcp["dense_coverage"]["complete"] is False and mcp["results"]

    status = subprocess.run([sys.executable, "-m", "branchwise_cli", "status", "--repo", str(repo.path),
                             "--index", str(index_dir)], capture_output=True, text=True, env=env)
    assert status.returncode == 0, status.stderr
    assert f"    {line}" in status.stdout.splitlines()
    assert f"the background worker (pid {pid}) stopped after" in status.stdout

    # the next index run finishes the embedding; then nothing extra is said anywhere
    Workspace(repo.path, index_dir).index(["main"])
    done = subprocess.run([sys.executable, "-m", "branchwise_cli", "search", "tests for zebracrossing", *where],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0 and "dense coverage" not in done.stdout
    status = subprocess.run([sys.executable, "-m", "branchwise_cli", "status", "--repo", str(repo.path),
                             "--index", str(index_dir)], capture_output=True, text=True, env=env)
    assert "dense coverage" not in status.stdout and "background worker" not in status.stdout


def test_the_background_worker_finishes_where_a_foreground_index_does(tmp_path):
    repo = build_repo(tmp_path / "repo")
    env = {**os.environ, "BRANCHWISE_MODEL": MODEL}
    started = subprocess.run([sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--index",
                              str(tmp_path / "bg"), "--background", "--json", "--quiet"],
                             capture_output=True, text=True, env=env)
    assert started.returncode == 0, started.stderr
    embedding = json.loads(started.stdout)["embedding"]
    assert embedding["background"] and embedding["embedded"] == 0 and embedding["missing_texts"] > 256
    record = wait_for_worker(tmp_path / "bg")
    assert record["state"] == "done" and record["done"] == embedding["missing_texts"]

    background, plain = Workspace(repo.path, tmp_path / "bg"), Workspace(repo.path, tmp_path / "plain")
    plain.index(["main"])
    assert background.dense_coverage("main").complete
    for query in QUERIES:
        assert ranked(background, query) == ranked(plain, query)
    again = background.index(["main"])
    assert again.embedding["missing_texts"] == 0 and not again.embedding["background"]


def test_the_first_vectors_are_the_checked_out_branchs_source(tmp_path):
    repo = build_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/feature_only.py", "def feature_only_helper():\n    return 'feature'\n")
    repo.commit("feature work")
    ws = Workspace(repo.path, tmp_path / "index")
    # the indexer runs main first (others inherit from it), the embedding serves `feature` first
    report = ws.index(["main", "feature"], background=True)
    pid = report.embedding["worker_pid"]
    os.kill(pid, signal.SIGKILL)
    _reap(pid)
    work = embedstage.plan(ws.store, ws.repo.name, MODEL, run.embedding_first(ws, ["main", "feature"]))
    assert [group.label for group in work.groups][0] == "feature"
    first = work.groups[0].items
    paths = [ws.store.version_record(item.row).path for item in first]
    assert "src/feature_only.py" in paths
    roles = ["tests/" not in path and not path.startswith("docs/") for path in paths]
    assert roles == sorted(roles, reverse=True)  # every source text before any test or doc

    stopped = iter([False, True])
    embedstage.embed_missing(ws.store, ws.embedder, ws.vector_store(), work, should_stop=lambda: next(stopped))
    embedded = {ws.store.version_record(row).path for row in embedded_rows(Workspace(repo.path, tmp_path / "index"))}
    assert embedded and all(path.startswith("src/") for path in embedded)


def test_a_writer_gets_the_lock_from_a_working_background_worker(tmp_path):
    repo = build_repo(tmp_path / "repo")
    index_dir = tmp_path / "index"
    pid, _embedding = start_background(repo.path, index_dir)
    os.kill(pid, signal.SIGCONT)
    repo.write("src/late.py", "def late_addition():\n    return 1\n")
    repo.commit("late")
    second = Workspace(repo.path, index_dir).index(["main"])  # no --wait: the worker yields
    assert second[0].files_parsed == 1
    wait_for_worker(index_dir)
    log = (index_dir / worker_record.LOG_FILE).read_text()
    assert "yielding the write lock" in log
    ws = Workspace(repo.path, index_dir)
    assert ws.dense_coverage("main").complete and texts_missing(ws) == 0
    assert faiss_ids(ws) == embedded_rows(ws)


def test_a_plain_log_hears_from_a_long_stage_at_least_every_heartbeat():
    out = io.StringIO()
    progress = PlainProgress(out, heartbeat=0.3)
    progress("branch:main", 0, 1)
    progress("embedding:main", 0, 1)
    progress("embed", 256, 1024)  # then silence, as while the model computes the next batch
    deadline = time.monotonic() + 10
    while "ETA" not in out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "indexing main (branch 1 of 1)"
    assert any(line.startswith("  main: embed 256 of 1,024 symbols (") and "ETA" in line for line in lines), lines


def test_coverage_scales_the_dense_weight_and_leaves_full_coverage_alone():
    from branchwise.ranking import RankingSettings, with_dense_coverage

    settings = RankingSettings()
    assert with_dense_coverage(settings, 1.0) is settings
    assert with_dense_coverage(settings, 0.25).dense_weight == pytest.approx(settings.dense_weight * 0.25)
    assert with_dense_coverage(settings, 0.25).lexical_weight == settings.lexical_weight
    assert np.isclose(with_dense_coverage(settings, 0.0).dense_weight, 0.0)


def test_a_version_without_a_vector_is_credited_in_the_dense_channel_at_its_best_other_rank():
    """Its missing vector is no evidence against it: fused as if the dense channel ranked it
    where words and names do; a version that has a vector and ranks low is left as it is."""
    from branchwise.ranking import RankingSettings, fuse

    settings = RankingSettings()
    dense = [(key, 1.0 - key / 100) for key in range(1, 21)]
    lexical = [("new", 9.0), (40, 8.0), ("other", 7.0)]
    plain = {item.key: item for item in fuse({"dense": dense, "lexical": lexical}, settings)}
    credited = {item.key: item for item in fuse({"dense": dense, "lexical": lexical}, settings, {"dense": {"new"}})}
    assert credited["new"].score == pytest.approx(plain["new"].score + settings.dense_weight / (settings.rrf_k + 1))
    assert credited["new"].ranks == {"lexical": 1}  # the ranks recorded stay the observed ones
    assert credited[40].score == plain[40].score and credited["other"].score == plain["other"].score
    assert fuse({"dense": dense, "lexical": lexical}, settings, {"dense": {"new"}})[0].key == "new"


def test_the_review_apps_status_line_says_the_coverage_while_it_is_partial(tmp_path):
    repo = build_repo(tmp_path / "repo")
    index_dir = tmp_path / "index"
    pid, _embedding = start_background(repo.path, index_dir)
    stepped_kill(pid, index_dir, at_least=256, extra_steps=0)
    percent = Workspace(repo.path, index_dir).dense_coverage("main").percent

    def status() -> str:
        return review_status_after_search(Workspace(repo.path, index_dir), "main", "tests for zebracrossing")

    assert status().endswith(f"results · dense coverage {percent}% (embedding)")
    Workspace(repo.path, index_dir).index(["main"])
    assert status().endswith(" results")


def review_status_after_search(workspace: Workspace, branch: str, query: str) -> str:
    """The review app's status line once its first search (of `query` on `branch`) is done."""
    import asyncio

    from branchwise_tui.app import create_app
    from branchwise_tui.widgets.keybar import KeyBar

    async def run() -> str:
        app = create_app(workspace, branch=branch, query=query)
        async with app.run_test(size=(120, 30)) as pilot:
            for _ in range(600):
                await pilot.pause(0.02)
                if app.session.results and all(worker.is_finished for worker in app.workers):
                    break
            await pilot.pause()
            return app.query_one(KeyBar).status

    return asyncio.run(run())


def test_the_hooks_and_the_mcp_refresh_return_searchable_and_leave_the_embedding_to_a_worker(tmp_path):
    from branchwise import hook_run
    from branchwise.index import hooks
    from branchwise.mcp_server.refresh import Refresher

    repo = build_repo(tmp_path / "repo")
    index_dir = tmp_path / "index"
    assert hook_run.refresh("post-commit", repo.path, index_dir, "main", []) == 0
    record = hooks.last_refresh(index_dir)
    assert record["outcome"] == "ok" and "texts embedding in the background (worker" in record["message"]
    assert wait_for_worker(index_dir)["state"] == "done"
    assert Workspace(repo.path, index_dir).dense_coverage("main").complete

    repo.write("src/late.py", "def late_addition(value):\n    return value\n")
    repo.commit("late")
    refresher = Refresher()
    assert refresher.request(Workspace(repo.path, index_dir), ["main"])
    refresher.wait(60)
    state = refresher.state(repo.path.name)
    assert state["state"] == "done" and state["embedding"]["background"], state
    assert wait_for_worker(index_dir)["state"] == "done"
    ws = Workspace(repo.path, index_dir)
    assert ws.dense_coverage("main").complete and faiss_ids(ws) == embedded_rows(ws)


def test_the_coverage_counted_from_the_loaded_vectors_is_the_embedding_caches_count(tmp_path, monkeypatch):
    repo = build_repo(tmp_path / "repo")
    ws = Workspace(repo.path, tmp_path / "index")
    pid = ws.index(["main"], background=True).embedding["worker_pid"]
    os.kill(pid, signal.SIGKILL)
    _reap(pid)
    monkeypatch.setattr(embedstage, "BATCH", 5)
    work = embedstage.plan(ws.store, ws.repo.name, MODEL, ["main"])
    stopped = iter([False, False, True])
    with ws.writing():
        embedstage.embed_missing(ws.store, ws.embedder, ws.vector_store(), work, should_stop=lambda: next(stopped))
    fresh = Workspace(repo.path, tmp_path / "index")
    assert fresh.search(SearchRequest(QUERIES[0], "main"))  # loads the vectors
    assert fresh.searcher.vectors.generation == fresh.store.generation()
    coverage = fresh.dense_coverage("main")
    branch = fresh.searcher.branch("main")
    assert (coverage.embedded, coverage.total) == fresh.store.live_coverage(branch.id, MODEL)
    assert 0 < coverage.embedded < coverage.total
