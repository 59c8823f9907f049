"""The Qdrant backend against the FAISS backend, and the shared-index story it exists for.

Qdrant runs in qdrant-client's local mode (a directory) here and in CI; with QDRANT_URL set,
the same tests run against that server too. The hashing embedder is a real deterministic
embedding: what is compared is what each backend stores and returns, not retrieval quality
(tests/test_samples_with_model.py runs the model stories on both backends).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from backend_env import backend_environment
from gittools import GitBuilder

from branchwise.backends.qdrant import QdrantPublisher, close_clients
from branchwise.errors import BranchwiseError
from branchwise.models import Label
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

QUERIES = ("cancel order", "make order cancellation idempotent", "refund payment", "optimizer thresholds",
           "send email notification", "parse configuration", "search index", "render a user profile")


@pytest.fixture(params=["qdrant-local", "qdrant-server"])
def qdrant(request, tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    with backend_environment(request.param, tmp_path):
        yield request.param


def faiss_workspace(repo: Path, index: Path) -> Workspace:
    return Workspace(repo, index, backend={"kind": "faiss"})


def ranked(results) -> list[tuple]:
    return [(r.identity.qualified_name, r.path, r.branch, r.commit, r.start_line, r.end_line, r.history,
             r.verdict, round(r.score, 4)) for r in results]


def same_up_to_ties(a: list[tuple], b: list[tuple]) -> bool:
    """Equal lists, except that results with equal scores may come in either order. Results
    scoring 0 are left out: the hashing embedder makes unrelated code exactly orthogonal, and
    which of many such ties fill a list is arbitrary in any engine."""
    a, b = [x for x in a if x[-1] > 0], [x for x in b if x[-1] > 0]
    return [x[-1] for x in a] == [x[-1] for x in b] and sorted(a) == sorted(b)


def same_results(a: list[tuple], b: list[tuple]) -> bool:
    """The same results with the same first, scores aside: BM25 weights in Qdrant keep the
    average document length of their publishing (within 5% of FTS5's), so near-ties may swap."""
    return a[0][:-1] == b[0][:-1] and sorted(x[:-1] for x in a) == sorted(x[:-1] for x in b)


@pytest.mark.model
@pytest.mark.parametrize("name", ["shop", "engine", "webapp"])
def test_both_backends_hold_the_same_live_sets_and_rank_alike(name, sample_repos, tmp_path, qdrant, monkeypatch):
    """One database, published to Qdrant: every branch's live set is the same, and so are the
    dense rankings (branch and history scope, equal scores in either order) with their verdicts;
    lexical and fused rankings hold the same results with the same first. With the real model,
    whose scores do not tie the way the hashing embedder's orthogonal zeros do."""
    monkeypatch.delenv("BRANCHWISE_MODEL")
    repo = sample_repos[name]
    writer = Workspace(repo, tmp_path / "index")  # the Qdrant backend, from the environment
    writer.index([], all_branches=True)
    local = faiss_workspace(repo, tmp_path / "index")
    local.index([], all_branches=True)  # writes the FAISS file from the same database
    branches = [b.name for b in local.indexed_branches()]
    assert [b.name for b in writer.indexed_branches()] == branches
    for branch in branches:
        assert writer.inspect(branch) == local.inspect(branch)
        for scope in ("branch", "all"):
            for query in QUERIES:
                dense = SearchRequest(query, branch, top_k=8, scope=scope, mode="dense")
                assert same_up_to_ties(ranked(writer.search(dense)), ranked(local.search(dense))), (
                    branch, scope, query)
                for mode in ("lexical", "fused"):
                    request = SearchRequest(query, branch, top_k=8, scope=scope, mode=mode)
                    a, b = ranked(writer.search(request)), ranked(local.search(request))
                    assert same_results(a, b) if b else not a, (branch, scope, mode, query)


def test_a_teammate_with_only_a_checkout_and_the_server_searches_verifies_and_exports(shop_repo, tmp_path, qdrant):
    """The index job's database stays on its machine; the teammate's index directory is empty."""
    writer = Workspace(shop_repo, tmp_path / "job-index")
    writer.index([], all_branches=True)

    checkout = tmp_path / "teammate" / "shop"
    subprocess.run(["git", "clone", "-q", str(shop_repo), str(checkout)], check=True)
    subprocess.run(["git", "-C", str(checkout), "branch", "-q", "release/1.x", "origin/release/1.x"], check=True)
    (checkout / "src/orders/services/order_service.py").write_text(
        (checkout / "src/orders/services/order_service.py").read_text().replace("def cancel_order", "def cancel_order_v2")
    )
    teammate = Workspace(checkout, tmp_path / "teammate-index")
    results = teammate.search(SearchRequest("cancel order", "main", top_k=10))
    by_name = {r.identity.qualified_name: r for r in results}
    assert by_name["OrderService.cancel_order"].verdict.value == "deleted"  # their uncommitted rename
    assert by_name["OrderService.cancel_order"].reason.startswith("symbol no longer in file")
    assert any(r.verdict.value == "current" for r in results)
    assert not (tmp_path / "teammate-index" / "vectors-hashing-384.faiss").exists()
    assert teammate.store.conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0] == 0

    release = teammate.search(SearchRequest("cancel order handler", "release/1.x", top_k=5))
    assert release[0].branch == "release/1.x" and release[0].verdict.value == "current"

    teammate.review.set_label(results[0], Label.REFERENCE_ONLY)  # labels stay the teammate's own
    again = teammate.search(SearchRequest("cancel order", "main", top_k=10))
    assert again[0].label is Label.REFERENCE_ONLY
    assert writer.search(SearchRequest("cancel order", "main", top_k=10))[0].label is None

    report = teammate.review.export(SearchRequest("make order cancellation idempotent", "main", top_k=6),
                             tmp_path / "bundle.md")
    assert "Version: main @ " in (tmp_path / "bundle.md").read_text()
    assert report.manifest_path.exists()


def test_live_set_changes_update_payloads_in_place_and_deletions_become_history(tmp_path, qdrant):
    repo = GitBuilder(tmp_path / "shopdemo")
    repo.write("src/orders.py", "def cancel_order(order):\n    return order\n\n\ndef create_order(items):\n    return items\n")
    repo.write("src/payments.py", "def refund_payment(payment):\n    return payment\n")
    repo.commit("initial")
    repo.branch("release")
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main", "release"])
    names = lambda branch: {r["qualified_name"] for r in ws.inspect(branch)}  # noqa: E731
    assert "refund_payment" in names("main") and "refund_payment" in names("release")

    repo.delete("src/payments.py")
    repo.write("src/orders.py", "\n\ndef cancel_order(order):\n    return order\n\n\ndef create_order(items):\n    return items\n")
    repo.commit("drop payments, shift orders")
    [summary] = ws.index(["main"])
    assert summary.versions_added == 0  # only lines moved and a file went: no new points
    assert "refund_payment" not in names("main") and "refund_payment" in names("release")
    moved = {r["qualified_name"]: r["start_line"] for r in ws.inspect("main")}
    assert moved["cancel_order"] == 3  # the live entry's lines were rewritten in place

    on_main = ws.search(SearchRequest("refund payment", "main", top_k=10))
    assert "refund_payment" not in {r.identity.qualified_name for r in on_main}
    history = ws.search(SearchRequest("refund payment", "main", top_k=10, scope="all"))
    hit = next(r for r in history if r.identity.qualified_name == "refund_payment")
    assert hit.branch == "release" and hit.history_note == "on release"

    repo.git("branch", "-D", "release")
    ws.index(["main"], prune=True)
    assert [b.name for b in ws.indexed_branches()] == ["main"]
    history = ws.search(SearchRequest("refund payment", "main", top_k=10, scope="all"))
    hit = next(r for r in history if r.identity.qualified_name == "refund_payment")
    assert hit.history_note.startswith("removed on main at ") and hit.verdict.value == "deleted"

    assert ws.collect_garbage(retention_days=0) == 1
    history = ws.search(SearchRequest("refund payment", "main", top_k=10, scope="all"))
    assert "refund_payment" not in {r.identity.qualified_name for r in history}


def test_a_publish_that_dies_half_way_is_finished_by_the_next_run(tmp_path, qdrant, monkeypatch):
    repo = GitBuilder(tmp_path / "many")
    for i in range(40):
        repo.write(f"src/mod{i}.py", "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n\n" for j in range(10)))
    repo.commit("many functions")
    ws = Workspace(repo.path, tmp_path / "index")
    real = QdrantPublisher._publish_batch
    calls = []

    def dies_on_the_second_batch(self, *args):
        calls.append(1)
        if len(calls) == 2:
            raise ConnectionError("server went away")
        return real(self, *args)

    monkeypatch.setattr(QdrantPublisher, "_publish_batch", dies_on_the_second_batch)
    with pytest.raises(Exception, match="server went away"):
        ws.index(["main"])
    pending = ws.store.conn.execute("SELECT COUNT(*) FROM unpublished").fetchone()[0]
    assert pending > 0  # the database committed; what Qdrant lacks is still in the outbox

    monkeypatch.setattr(QdrantPublisher, "_publish_batch", real)
    [summary] = ws.index(["main"])
    assert summary.base == "up to date"
    assert ws.store.conn.execute("SELECT COUNT(*) FROM unpublished").fetchone()[0] == 0
    assert len(ws.inspect("main")) == ws.store.conn.execute("SELECT COUNT(*) FROM live").fetchone()[0]


def test_a_lost_collection_is_republished_by_the_next_index_run(tmp_path, qdrant):
    repo = GitBuilder(tmp_path / "shopdemo")
    repo.write("src/payments.py", "def charge_card(card, amount):\n    return amount\n")
    repo.commit("initial")
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main"])
    publisher = ws.backend.vector_store(ws.store, ws.embedder, ws.config.path_weight)
    publisher.client.delete_collection(publisher.versions)

    fresh = Workspace(repo.path, tmp_path / "index")
    with pytest.raises(Exception, match="no branchwise index for model hashing-384"):
        fresh.search(SearchRequest("charge credit card", "main", top_k=3))
    fresh.index(["main"])
    assert fresh.search(SearchRequest("charge credit card", "main", top_k=3))[0].identity.qualified_name == "charge_card"


def test_cli_over_qdrant_and_its_errors(tmp_path, monkeypatch):
    """The same CLI; an unreachable server or a missing address is one line, never a traceback."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    repo = GitBuilder(tmp_path / "shopdemo")
    repo.write("src/payments.py", "def charge_card(card, amount):\n    return amount\n")
    repo.commit("initial")

    def cli(*argv):
        return subprocess.run([sys.executable, "-m", "branchwise_cli", *argv], capture_output=True, text=True,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"})

    qdrant_dir = str(tmp_path / "qdrant")
    out = cli("index", str(repo.path), "--index", str(tmp_path / "index"), "--qdrant-path", qdrant_dir)
    assert out.returncode == 0, out.stderr
    out = cli("search", "charge card", "--repo", str(repo.path), "--branch", "main",
              "--index", str(tmp_path / "empty-index"), "--qdrant-path", qdrant_dir, "--json")
    assert out.returncode == 0, out.stderr
    assert '"qualified_name": "charge_card"' in out.stdout and '"verdict": "current"' in out.stdout
    assert not (tmp_path / "empty-index" / "vectors-hashing-384.faiss").exists()

    for argv, code, message in (
        (("search", "q", "--repo", str(repo.path), "--branch", "main", "--qdrant-url", "http://127.0.0.1:9"),
         1, "Qdrant at http://127.0.0.1:9"),
        (("search", "q", "--repo", str(repo.path), "--branch", "main", "--backend", "qdrant"),
         2, "the qdrant backend needs --qdrant-url"),
        # nothing indexed there: the branch check (which names the fix) answers before the backend's
        (("inspect", "--repo", str(repo.path), "--branch", "main", "--qdrant-path", str(tmp_path / "nothing")),
         2, "branch 'main' of shopdemo is not indexed"),
    ):
        out = cli(*argv)
        assert out.returncode == code, out.stderr
        assert message in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    shutil.rmtree(qdrant_dir)
    close_clients()


def test_a_second_index_directory_may_not_overwrite_a_published_repository(tmp_path, qdrant):
    repo = GitBuilder(tmp_path / "shopdemo")
    repo.write("src/payments.py", "def charge_card(card, amount):\n    return amount\n")
    repo.commit("initial")
    Workspace(repo.path, tmp_path / "job-index").index(["main"])
    with pytest.raises(BranchwiseError, match="is published from another index directory"):
        Workspace(repo.path, tmp_path / "another-index").index(["main"])
    assert Workspace(repo.path, tmp_path / "reader").search(SearchRequest("charge card", "main"))

