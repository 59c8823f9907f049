"""A searcher keeps a branch's allowed set and its candidates' records between questions, and
never past a change.

Reading a big branch's live set costs milliseconds per question, so the local searcher keeps
it (and, from the second question, holds it in a temporary table FTS5 tests rows against) for
as long as the index generation, the branch and the filters are the same; it keeps the records
and live places of the candidates it made results of for as long as the generation is the same. These tests ask
through one long-lived Workspace, as a warm MCP server does, while another writes the index.
The hashing embedder keeps them fast: what is checked is which rows may be ranked, not how.
"""

from __future__ import annotations

import pytest
from gittools import GitBuilder

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

CODE = "def charge_card(card, amount):\n    return amount\n\n\ndef refund_payment(payment):\n    return payment\n"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def _names(ws: Workspace, question: str, **filters) -> list[str]:
    return [r.identity.qualified_name for r in ws.search(SearchRequest(question, "main", top_k=10, **filters))]


def _indexed_shop(tmp_path) -> tuple[GitBuilder, Workspace]:
    """A repository with CODE on main, indexed, and a long-lived Workspace over it."""
    repo = GitBuilder(tmp_path / "shop")
    repo.write("src/payments.py", CODE)
    repo.commit("initial")
    Workspace(repo.path, tmp_path / "index").index(["main"])
    return repo, Workspace(repo.path, tmp_path / "index")


def test_a_kept_allowed_set_answers_as_a_fresh_one(tmp_path):
    repo = GitBuilder(tmp_path / "shop")
    repo.write("src/payments.py", CODE)
    repo.write("tests/test_payments.py", "def test_refund_payment():\n    assert refund_payment(1) == 1\n")
    repo.commit("initial")
    Workspace(repo.path, tmp_path / "index").index(["main"])
    warm = Workspace(repo.path, tmp_path / "index")
    first = _names(warm, "refund payment")
    assert first and first == _names(warm, "refund payment")  # the second answer reads the kept table
    assert all(scope.kept for scope in warm.searcher._scopes.values())
    cold = Workspace(repo.path, tmp_path / "index")
    assert _names(cold, "refund payment") == first
    assert "test_refund_payment" in first
    narrowed = [_names(warm, "refund payment", path_prefix="src/") for _ in range(2)]
    assert narrowed[0] == narrowed[1] == _names(cold, "refund payment", path_prefix="src/")
    assert narrowed[0] and "test_refund_payment" not in narrowed[0]  # a filter is a scope of its own


def test_a_warm_searcher_sees_what_another_index_run_added(tmp_path):
    repo, warm = _indexed_shop(tmp_path)
    for _ in range(2):  # kept, then held in a temporary table
        assert "issue_voucher" not in _names(warm, "issue voucher")
    repo.write("src/vouchers.py", "def issue_voucher(customer, value):\n    return (customer, value)\n")
    repo.commit("vouchers")
    Workspace(repo.path, tmp_path / "index").index(["main"])  # another writer, as the MCP refresh is
    assert _names(warm, "issue voucher")[0] == "issue_voucher"


def test_a_warm_searcher_places_a_result_where_another_index_run_found_it(tmp_path):
    repo, warm = _indexed_shop(tmp_path)

    def refund():
        results = warm.search(SearchRequest("refund payment", "main", top_k=10))
        return next(r for r in results if r.identity.qualified_name == "refund_payment")

    before = [refund() for _ in range(2)][-1]  # the second made from the kept record
    assert (before.start_line, before.commit) == (5, repo.head())
    repo.write("src/payments.py", "import os\n\n\n" + CODE)  # the same code, three lines down
    moved = repo.commit("imports")
    Workspace(repo.path, tmp_path / "index").index(["main"])
    after = refund()
    assert after.version_id == before.version_id  # one version, now live elsewhere
    assert (after.start_line, after.end_line, after.commit) == (8, 9, moved)


def test_a_warm_searcher_forgets_where_a_pruned_branch_had_a_result(tmp_path):
    repo = GitBuilder(tmp_path / "shop")
    repo.write("src/payments.py", CODE)
    repo.commit("initial")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("src/vouchers.py", "def issue_voucher(customer, value):\n    return (customer, value)\n")
    repo.commit("vouchers")
    repo.git("checkout", "-q", "main")
    Workspace(repo.path, tmp_path / "index").index(["main", "side"])
    warm = Workspace(repo.path, tmp_path / "index")

    def voucher():
        results = warm.search(SearchRequest("issue voucher", "main", top_k=10, scope="all"))
        return next(r for r in results if r.identity.qualified_name == "issue_voucher")

    assert [voucher().history_note for _ in range(2)] == ["on side", "on side"]
    repo.git("branch", "-q", "-D", "side")
    Workspace(repo.path, tmp_path / "index").index([], prune=True)  # no new generation
    assert voucher().history_note != "on side"


def test_a_warm_searcher_reads_a_candidates_record_once_within_its_bound(tmp_path, monkeypatch):
    from branchwise.backends.local import searcher

    _repo, warm = _indexed_shop(tmp_path)

    def records_read(question: str) -> int:
        statements: list[str] = []
        warm.store.conn.set_trace_callback(statements.append)
        assert _names(warm, question)
        warm.store.conn.set_trace_callback(None)
        return sum(sql.startswith("SELECT v.id, v.version_id, v.identity_id") for sql in statements)

    assert records_read("refund payment") == 1
    assert records_read("refund payment") == 0  # kept
    monkeypatch.setattr(searcher, "KEPT_TEXT_CHARS", 1)
    assert records_read("refund payment") == 1  # the kept texts over the bound: dropped, read again
