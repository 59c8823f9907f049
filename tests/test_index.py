"""The branch-aware incremental index on real git repositories, with the hashing embedder.

The hashing embedder is a real deterministic embedding that needs no weights; none of these
tests depends on retrieval quality, only on what is stored, embedded and visible where.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from gittools import GitBuilder

from branchwise.chunking import chunk_file
from branchwise.errors import IndexLockedError, UsageError
from branchwise.search.hybrid import SearchRequest
from branchwise.store.lock import WriteLock
from branchwise.workspace import Workspace

ORDERS = '''"""Orders."""


class OrderService:
    """Creates and cancels orders."""

    def create_order(self, items):
        return {"items": items, "status": "new"}

    def cancel_order(self, order):
        order["status"] = "cancelled"
        return order


def total_price(items):
    return sum(item["price"] for item in items)
'''

PAYMENTS = '''def charge_card(card, amount):
    """Charge a credit card."""
    return {"card": card, "amount": amount}


def refund_payment(payment):
    return {"refunded": payment["amount"]}
'''


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch, backend):
    """Every test here runs on each vector backend (see conftest.py)."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def repo(tmp_path):
    builder = GitBuilder(tmp_path / "shopdemo")
    builder.write("src/orders.py", ORDERS)
    builder.write("src/payments.py", PAYMENTS)
    builder.commit("initial")
    return builder


def open_workspace(repo: GitBuilder, tmp_path) -> Workspace:
    return Workspace(repo.path, tmp_path / "index")


def tip_symbols(repo: GitBuilder, commit: str) -> set[tuple]:
    """A from-scratch parse of every file at `commit`: what `inspect` must equal."""
    files = repo.git("ls-tree", "-r", "--name-only", commit).splitlines()
    out = set()
    for path in files:
        data = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=repo.path, capture_output=True, check=True).stdout
        for c in chunk_file(repo.path.name, path, data).chunks:
            out.add((c.identity.path, c.identity.qualified_name, c.identity.symbol_type, c.content_hash, c.start_line, c.end_line))
    return out


def live_symbols(workspace: Workspace, branch: str) -> set[tuple]:
    return {
        (r["path"], r["qualified_name"], r["symbol_type"], r["content_hash"], r["start_line"], r["end_line"])
        for r in workspace.inspect(branch)
    }


def test_first_index_parses_everything_and_reindex_computes_nothing(repo, tmp_path):
    ws = open_workspace(repo, tmp_path)
    [first] = ws.index(["main"])
    assert first.files_parsed == 2
    assert first.versions_added == len(tip_symbols(repo, "main"))
    assert first.embedded > 0
    assert live_symbols(ws, "main") == tip_symbols(repo, "main")

    [again] = ws.index(["main"])
    assert (again.embedded, again.versions_added, again.files_parsed) == (0, 0, 0)


def test_editing_one_function_embeds_only_the_changed_texts(repo, tmp_path):
    ws = open_workspace(repo, tmp_path)
    ws.index(["main"])
    before = {c.embedding_text for c in chunk_file("shopdemo", "src/orders.py", ORDERS.encode()).chunks}
    edited = ORDERS.replace('order["status"] = "cancelled"', 'if order["status"] != "cancelled":\n            order["status"] = "cancelled"')
    repo.write("src/orders.py", edited)
    repo.commit("idempotent cancel")
    after = {c.embedding_text for c in chunk_file("shopdemo", "src/orders.py", edited.encode()).chunks}

    [summary] = ws.index(["main"])
    assert summary.files_parsed == 1
    assert summary.embedded == len(after - before) >= 1
    assert live_symbols(ws, "main") == tip_symbols(repo, "main")


def test_new_branch_inherits_and_overrides(repo, tmp_path):
    ws = open_workspace(repo, tmp_path)
    ws.index(["main"])
    repo.branch("release/1.x")
    repo.checkout("release/1.x")
    repo.write("src/payments.py", PAYMENTS.replace("Charge a credit card.", "Charge a card, release flavour."))
    repo.commit("release patch")
    repo.checkout("main")

    [summary] = ws.index(["release/1.x"])
    assert summary.base == "inherited from main"
    assert summary.files_parsed == 1  # only the changed file
    assert live_symbols(ws, "release/1.x") == tip_symbols(repo, "release/1.x")
    # the release's own version hides main's, main keeps its own
    release = {r["qualified_name"]: r["content_hash"] for r in ws.inspect("release/1.x")}
    main = {r["qualified_name"]: r["content_hash"] for r in ws.inspect("main")}
    assert release["charge_card"] != main["charge_card"]
    assert release["refund_payment"] == main["refund_payment"]
    # a shared version is stored once
    stored = ws.store.conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0]
    distinct = {s[:4] for s in tip_symbols(repo, "main") | tip_symbols(repo, "release/1.x")}
    assert stored == len(distinct)


def test_search_never_leaves_the_branch_live_set(repo, tmp_path):
    ws = open_workspace(repo, tmp_path)
    repo.branch("feature")
    repo.checkout("feature")
    repo.write("src/loyalty.py", "def award_loyalty_points(customer, order):\n    return len(order)\n")
    repo.commit("loyalty")
    repo.checkout("main")
    ws.index(["main", "feature"])

    on_main = ws.search(SearchRequest("award loyalty points", "main", top_k=20))
    assert "award_loyalty_points" not in {r.identity.qualified_name for r in on_main}
    main_live = {(r["path"], r["qualified_name"], r["content_hash"]) for r in ws.inspect("main")}
    assert all((r.path, r.identity.qualified_name, r.content_hash) in main_live for r in on_main)

    on_feature = ws.search(SearchRequest("award loyalty points", "feature", top_k=5))
    assert on_feature[0].identity.qualified_name == "award_loyalty_points"
    assert on_feature[0].branch == "feature"


def test_deleted_symbols_are_tombstoned_and_found_only_as_history(repo, tmp_path):
    ws = open_workspace(repo, tmp_path)
    ws.index(["main"])
    repo.delete("src/payments.py")
    repo.commit("drop payments")
    [summary] = ws.index(["main"])
    assert summary.tombstoned == 2
    assert "refund_payment" not in {r["qualified_name"] for r in ws.inspect("main")}

    branch_only = ws.search(SearchRequest("refund payment", "main", top_k=10))
    assert "refund_payment" not in {r.identity.qualified_name for r in branch_only}
    history = ws.search(SearchRequest("refund payment", "main", top_k=10, scope="all"))
    hit = next(r for r in history if r.identity.qualified_name == "refund_payment")
    assert hit.history and hit.history_note.startswith("removed on main")
    assert hit.verdict.value == "deleted"


def test_force_push_to_unrelated_history_is_handled_by_tree_diff(repo, tmp_path):
    ws = open_workspace(repo, tmp_path)
    ws.index(["main"])
    repo.git("checkout", "-q", "--orphan", "rewritten")
    repo.git("rm", "-rq", "--cached", ".")
    for path in ("src/orders.py", "src/payments.py"):
        (repo.path / path).unlink()
    repo.write("lib/only.py", "def only_here():\n    return 1\n")
    repo.commit("rewrite")
    repo.git("branch", "-f", "main", "rewritten")
    repo.checkout("main")
    ws.index(["main"])
    assert live_symbols(ws, "main") == tip_symbols(repo, "main")


def test_missing_vector_file_is_rebuilt_from_sqlite(repo, tmp_path, backend):
    if backend != "faiss":
        pytest.skip("the FAISS file; test_qdrant_backend.py loses a Qdrant collection instead")
    ws = open_workspace(repo, tmp_path)
    ws.index(["main"])
    for f in (tmp_path / "index").glob("vectors-*"):
        f.unlink()
    fresh = open_workspace(repo, tmp_path)
    results = fresh.search(SearchRequest("charge credit card", "main", top_k=3, mode="dense"))
    assert results[0].identity.qualified_name == "charge_card"


def test_an_index_run_writes_only_the_vector_delta_until_it_outgrows_the_base(repo, tmp_path, backend, monkeypatch):
    if backend != "faiss":
        pytest.skip("the FAISS files")
    from branchwise.backends.local import vectors

    ws = open_workspace(repo, tmp_path)
    ws.index(["main"])
    [base] = (tmp_path / "index").glob("vectors-*.faiss")
    before = (base.stat().st_mtime_ns, base.read_bytes())
    repo.write("src/loyalty.py", "def award_loyalty_points(customer, order):\n    return len(order)\n")
    repo.commit("loyalty")
    [summary] = ws.index(["main"])
    assert summary.versions_added == 1
    assert (base.stat().st_mtime_ns, base.read_bytes()) == before
    assert base.with_suffix(".delta").exists()

    fresh = open_workspace(repo, tmp_path)  # loads the base and replays the delta
    versions = fresh.store.conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0]
    assert fresh.searcher.vectors.index.ntotal == versions
    hits = fresh.search(SearchRequest("award loyalty points", "main", top_k=3, mode="dense"))
    assert hits[0].identity.qualified_name == "award_loyalty_points"

    monkeypatch.setattr(vectors, "DELTA_MIN", 0)  # now any delta outgrows the base
    repo.delete("src/loyalty.py")
    repo.commit("no loyalty")
    ws = open_workspace(repo, tmp_path)
    ws.index(["main"])
    ws.collect_garbage(retention_days=0)
    assert not base.with_suffix(".delta").exists() and base.read_bytes() != before[1]
    again = open_workspace(repo, tmp_path)
    assert again.searcher.vectors.index.ntotal == again.store.conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0]


def test_a_second_writer_is_refused_with_a_clear_message(repo, tmp_path):
    ws = open_workspace(repo, tmp_path)
    with WriteLock(tmp_path / "index"):
        with pytest.raises(IndexLockedError, match="another branchwise process"):
            ws.index(["main"])


def test_unknown_branch_is_a_usage_error(repo, tmp_path):
    ws = open_workspace(repo, tmp_path)
    with pytest.raises(UsageError, match="unknown branch"):
        ws.index(["nope"])


def test_cli_index_json_contract(repo, tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--all-branches",
         "--index", str(tmp_path / "index"), "--json"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    [branch] = data["branches"]
    for key in ("branch", "commit", "files_parsed", "versions_added", "embedded", "reused", "tombstoned", "seconds"):
        assert key in branch
    assert branch["commit"] == repo.head("main")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["index", "/nonexistent/repo"], "not a git repository"),
        (["search", "q", "--repo", ".", "--branch", "main", "--top-k", "0"], "top-k"),
        (["index"], "not inside a git repository"),  # the default: the repository around the directory
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(argv, message, tmp_path):
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *argv], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
