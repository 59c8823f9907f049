"""Results that carry the right amount of code (issue 28), on the samples and a built repository.

Fast guards for the rules the click tests check at scale (tests/test_click_result_shape.py):
`--scope all` keeps the branch's own results exactly as `--scope branch` gives them and adds
history after them; a budget takes results in rank order, a class too large for what is left
coming in as its outline; the bundle's lists shrink before code is dropped. Real git, SQLite,
FAISS, the hashing embedder (none of this depends on the model).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.models import Label
from branchwise.review.bundle.tokens import token_counter
from branchwise.review.labels import effective_label
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

QUESTIONS = Path(__file__).resolve().parents[1] / "bench" / "questions.toml"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture(scope="module")
def shop(sample_repos, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BRANCHWISE_MODEL", "hashing-384")
        ws = Workspace(sample_repos["shop"], tmp_path_factory.mktemp("shop-index"))
        ws.index([], all_branches=True)
        yield ws
        ws.close()


def _questions() -> list[str]:
    data = tomllib.loads(QUESTIONS.read_text())
    shop = [q["question"] for q in data["question"] if q.get("repo") == "shop"]
    return shop + ["make order cancellation idempotent", "cancel handler", "stock alerts", "email template"]


def test_scope_all_keeps_the_branchs_own_results_and_adds_history_after_them(shop):
    added = 0
    searcher = shop.searcher  # the ranking alone: verification does not reorder anything
    for branch in [b.name for b in shop.indexed_branches()]:
        live = {(row["path"], row["qualified_name"]) for row in shop.inspect(branch)}
        for question in _questions():
            for top_k in (4, 10):
                own = searcher.search(SearchRequest(question, branch, top_k=top_k))
                everything = searcher.search(SearchRequest(question, branch, top_k=top_k, scope="all"))
                assert [(r.version_id, r.rank) for r in everything[:len(own)]] == [
                    (r.version_id, r.rank) for r in own], (branch, question, top_k)
                history = everything[len(own):]
                assert all(r.history for r in history) and len(history) <= max(1, top_k // 2)
                assert not {(r.path, r.identity.qualified_name) for r in history} & live
                assert len({r.identity for r in everything}) == len(everything)
                added += len(history)
        # history is for the idea: reference-only unless a reviewer says use
        verified = shop.search(SearchRequest("make order cancellation idempotent", branch, scope="all"))
        assert all(effective_label(r) is Label.REFERENCE_ONLY for r in verified if r.history)
    assert added > 0


LEDGER = "\n".join(f'''
    def report_{n}(self, entries):
        """Report number {n} of the ledger entries, one line per entry."""
        lines = [f"{{entry.date}} {{entry.amount:>10}} {{entry.memo}}" for entry in entries]
        header = "report {n}: " + ", ".join(sorted({{entry.memo for entry in entries}}))
        return "\\n".join([header, *lines])
''' for n in range(40))
SOURCE = f'''"""Ledger reports."""


def ledger_total(entries):
    """The ledger's total."""
    return sum(entry.amount for entry in entries)


class LedgerReports:
    """Every report of the ledger."""
{LEDGER}
'''


@pytest.fixture
def ledger(tmp_path):
    builder = GitBuilder(tmp_path / "ledger")
    builder.write("src/reports.py", SOURCE)
    builder.commit("reports")
    ws = Workspace(builder.path, tmp_path / "index")
    ws.index(["main"])
    yield ws
    ws.close()


def test_a_class_too_large_for_the_budget_comes_in_as_its_outline(ledger):
    request = SearchRequest("ledger reports LedgerReports", "main", top_k=3, mode="lexical",
                            symbol_type="class")
    [reports] = ledger.search(request)
    full = ledger.review.build_bundle(request, [reports])
    assert full.total_tokens > 3000, "the class in full must not fit for this test to mean anything"
    bundle = ledger.review.build_bundle(request, [reports], max_tokens=1500)
    [entry] = bundle.manifest["results"]
    assert entry["included"] and entry["text_kind"] == "outline", entry
    assert bundle.total_tokens <= 1500 and token_counter()(bundle.text) <= 1500
    assert "def report_39(self, entries):" in bundle.text and "sorted(" not in bundle.text
    assert "Check: current; outline identical" in bundle.text and "Shown: outline" in bundle.text


def test_a_budget_takes_results_in_rank_order_and_shrinks_the_lists_first(ledger):
    request = SearchRequest("ledger reports entries", "main", top_k=12, mode="lexical")
    results = ledger.search(request)
    assert len(results) >= 8
    for budget in (400, 800, 1600, 3000):
        bundle = ledger.review.build_bundle(request, results, max_tokens=budget, format="json")
        assert bundle.total_tokens <= budget and token_counter()(bundle.text) <= budget
        document = json.loads(bundle.text)
        # lists shrink: one entry per reason with the ranks, not one line per result
        assert all(item["qualified_name"] == "" for item in document["left_out"])
        entries = bundle.manifest["results"]
        lowest_in = max((e["rank"] for e in entries if e["included"]), default=0)
        for entry in entries:
            if entry["left_out"] == "budget" and entry["rank"] < lowest_in:
                assert entry["needed_tokens"] > budget, (budget, entry)
    first = ledger.review.build_bundle(request, results, max_tokens=800)
    assert first.manifest["results"][0]["included"], "rank 1 fits as its outline at least"
