"""Checks of issue 28's result-shape guarantees over a real repository, shared by the click and
cobra tests (tests/test_click_result_shape.py, tests/test_cobra_result_shape.py).

Each asserts the guarantee itself, not figures of one ranking: `--scope all` leaves the branch's
own results as `--scope branch` gives them and only adds history after them; a budget never
leaves a result out for a lower-ranked one unless even its smallest unit did not fit.
"""

from __future__ import annotations

from branchwise.review.bundle.tokens import token_counter
from branchwise.search.hybrid import SearchRequest
from branchwise.verify.outline import outline
from branchwise.verify.views import OUTLINE, delivered


def scope_all_adds_history_only(ws, questions, branches) -> int:
    """For every question on every branch: the branch's results identical (same versions, same
    order) with and without `--scope all`, then history only, each identity once and none the
    branch has live. Returns how many history results were added in all."""
    searcher = ws.searcher
    added = 0
    for branch in branches:
        live = {(row["path"], row["qualified_name"]) for row in ws.inspect(branch)}
        for question in questions:
            where = (question.question, branch)
            own = searcher.search(SearchRequest(question.question, branch, top_k=10))
            everything = searcher.search(SearchRequest(question.question, branch, top_k=10, scope="all"))
            assert own, where
            assert [(r.version_id, r.rank) for r in everything[:len(own)]] == [
                (r.version_id, r.rank) for r in own], where
            history = everything[len(own):]
            assert all(r.history for r in history), where
            assert not {(r.path, r.identity.qualified_name) for r in history} & live, where
            identities = [r.identity for r in everything]
            assert len(identities) == len(set(identities)), where
            added += len(history)
    return added


def smallest_text(result) -> str:
    """What a result's smallest unit shows: its verified outline when it has one, else the
    signatures, docstrings and comments of its code."""
    if OUTLINE in result.views:
        return delivered(result, OUTLINE).text
    return outline(result.text, result.path, result.identity.language)


def budget_keeps_the_best(ws, questions, branches, budgets=(1000, 2000, 4000)) -> int:
    """For every question on every branch and every budget: the bundle within the budget, and
    no result left out for the budget while a lower-ranked one is in, unless its smallest unit
    (its outline, when it has a smaller one) did not fit. Returns how many such left-out
    results were checked."""
    count = token_counter()
    checked = 0
    for branch in branches:
        for question in questions:
            request = SearchRequest(question.question, branch, top_k=10)
            results = ws.search(request)
            by_rank = {r.rank: r for r in results}
            for budget in budgets:
                where = (question.question, branch, budget)
                bundle = ws.review.build_bundle(request, results, max_tokens=budget)
                assert bundle.total_tokens <= budget and count(bundle.text) <= budget, where
                entries = bundle.manifest["results"]
                lowest_in = max((e["rank"] for e in entries if e["included"]), default=0)
                for entry in entries:
                    if entry["left_out"] != "budget" or entry["rank"] > lowest_in:
                        continue
                    checked += 1
                    # left out while something ranked below it is in: its smallest unit did not fit
                    assert entry["needed_tokens"] > budget, (*where, entry)
                    result = by_rank[entry["rank"]]
                    smaller = smallest_text(result)
                    if len(smaller) < len(result.text.rstrip("\n")):
                        assert entry["unit"] == "outline", (*where, entry)
                        assert count(smaller) <= entry["unit_tokens"], (*where, entry)
    return checked
