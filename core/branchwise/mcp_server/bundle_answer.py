"""The `context_bundle` answer within `max_tokens`: the bundle first, its metadata shrinks first.

The answer wraps the bundle in metadata (freshness, the included and left-out lists), and the
whole must fit the agent's `max_tokens`. The bundle's budget is what the metadata leaves, and
when that leaves too little for even one result, the metadata shrinks before the code: the
left-out list goes (the bundle itself states how many were left out) and the freshness
commits are cut to 12 digits. Below the smallest budget that holds the bundle's title and one
result's outline, the error names `max_tokens` (the agent's own argument, not the CLI's
`--max-tokens`) and that smallest budget.
"""

from __future__ import annotations

from typing import Any

from branchwise.errors import UsageError
from branchwise.mcp_server.answer_size import echoed, with_token_count
from branchwise.models import Result
from branchwise.review.bundle.budget import BUDGET, BudgetTooSmall
from branchwise.search.hybrid import SearchRequest

#: the least bundle budget tried before the answer is declared too small
MIN_BUNDLE_TOKENS = 50
_INCLUDED_KEYS = ("rank", "path", "qualified_name", "verdict", "text_kind", "section", "tokens")
_FRESHNESS_COMMITS = ("indexed_commit", "tip")


class BundleAnswer:
    """Builds the answer for one question's results at a given budget."""

    def __init__(self, ws, request: SearchRequest, results: list[Result], freshness: dict):
        self.ws, self.request, self.results, self.freshness = ws, request, results, freshness

    def within(self, max_tokens: int | None) -> tuple[dict, list[dict]]:
        """(the answer, the bundle manifest's entries), the answer at most `max_tokens`."""
        if max_tokens is None:
            return self.build(None, short=False, max_tokens=None)
        smallest: int | None = None
        for short in (False, True):  # the metadata shrinks before the code does
            budget = max_tokens
            for _ in range(6):  # the metadata and JSON escapes cost tokens too: fit the whole
                try:
                    answer, entries = self.build(budget, short, max_tokens)
                except BudgetTooSmall as error:
                    smallest = error.smallest
                    break
                if not answer["included"]:  # what one result would have needed (measured with none kept)
                    smallest = min((e["needed_tokens"] for e in entries if "needed_tokens" in e), default=smallest)
                fits = answer["answer_tokens"] <= max_tokens
                if fits and not _starved(answer, entries):
                    return answer, entries
                if fits:  # it fits, but with no code that a larger budget would bring
                    break
                # from what the bundle took, not the budget it had: a bundle well under its
                # budget would shrink by nothing while only the metadata overshoots
                budget = min(budget, answer["tokens"]) - (answer["answer_tokens"] - max_tokens) - 2
                if budget < MIN_BUNDLE_TOKENS:
                    break
        return self._smallest(max_tokens, smallest)

    def build(self, budget: int | None, short: bool, max_tokens: int | None) -> tuple[dict, list[dict]]:
        bundle = self.ws.review.build_bundle(self.request, self.results, max_tokens=budget)
        entries = bundle.manifest["results"]
        answer: dict[str, Any] = {
            "query": echoed(self.request.query), "repository": self.ws.repo.name, "branch": self.request.branch,
            "freshness": _short_freshness(self.freshness) if short else self.freshness,
            "bundle": bundle.text, "tokens": bundle.total_tokens, "max_tokens": max_tokens,
            "tokenizer": bundle.manifest["tokenizer"],
            "included": [{key: e.get(key) for key in _INCLUDED_KEYS} for e in entries if e["included"]],
            "left_out": [] if short else [
                {"rank": e["rank"], "qualified_name": e["qualified_name"], "reason": e["left_out"]}
                for e in entries if not e["included"] and e["label"] != "exclude"],
        }
        return with_token_count(answer, key="answer_tokens"), entries

    def _smallest(self, max_tokens: int, bundle_budget: int | None) -> tuple[dict, list[dict]]:
        """The smallest answer with one result (the least bundle that holds one, with the shortest
        metadata) when it fits in `max_tokens`; else the error naming its size."""
        if bundle_budget is not None:
            try:
                answer, entries = self.build(bundle_budget, True, max_tokens)
            except BudgetTooSmall:
                answer, entries = None, []
            if answer is not None and answer["included"]:
                if answer["answer_tokens"] <= max_tokens:
                    return answer, entries
                raise UsageError(f"max_tokens {max_tokens} is too small: the smallest answer that holds the bundle's "
                                 f"title and one result's outline takes {answer['answer_tokens']} tokens; ask for "
                                 f"max_tokens {answer['answer_tokens']} or more")
        raise UsageError(f"max_tokens {max_tokens} is too small for the bundle's title and the answer's metadata")


def _starved(answer: dict, entries: list[dict]) -> bool:
    """No code in the bundle although some result was left out only for the budget."""
    return not answer["included"] and any(e["left_out"] == BUDGET for e in entries)


def _short_freshness(freshness: dict) -> dict:
    return {key: value[:12] if key in _FRESHNESS_COMMITS and isinstance(value, str) else value
            for key, value in freshness.items()}
