"""The docstring rerank of the fused ranking's head (docrank.py).

Logic tests with the hashing embedder (a deterministic embedding by shared tokens, no
weights): what is checked is what the rerank may and may not change (only the head moves,
scores keep falling with rank, undocumented code keeps its score, only fused mode is
touched), not the model's judgement. What it adds on real code with the shipped model is
measured by `python -m bench.realrepos` (the `fused-plain` rows: fused without it).
"""

from __future__ import annotations

import numpy as np
import pytest
from gittools import GitBuilder

from branchwise.chunking.embedding_text import DESCRIPTION_WORDS, description
from branchwise.embedding.hashing import HashingEmbedder
from branchwise.models import Identity, Result
from branchwise.search.docrank import DocstringReranker
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

QUESTION = "fail unless exactly the given count of arguments is passed"


def _result(name: str, score: float, docstring: str = "") -> Result:
    return Result(rank=0, score=score, identity=Identity("r", "args.go", "go", "function", name), branch="main",
                  commit="c", start_line=1, end_line=2, indexed_at="t", content_hash=name, text="", blob=None,
                  version_id=name, docstring=docstring)


class CountingEmbedder(HashingEmbedder):
    def __init__(self):
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += texts
        return super().embed(texts)


def test_the_description_is_the_docstring_without_a_leading_name_else_the_name_in_words():
    assert description("ExactArgs returns an error if there are not exactly n args.", "ExactArgs") == \
        "returns an error if there are not exactly n args."
    assert description("Return the value.", "Command.value") == "Return the value."
    assert description("Value returns it.", "Command.Value") == "returns it."
    assert len(description("word " * 500, "f").split()) == DESCRIPTION_WORDS
    assert description("", "Command.stripFlags") == "command strip flags"
    assert description("  \n", "ProgressBar.format_eta") == "progress bar format eta"


def test_the_head_is_reordered_by_docstring_and_scores_still_fall_with_rank():
    embedder = CountingEmbedder()
    results = [_result("MinimumNArgs", 0.10, "MinimumNArgs returns an error if there is not at least N args."),
               _result("ExactArgs", 0.09, "ExactArgs fails unless exactly the given count of arguments is passed."),
               _result("helper", 0.08),
               _result("RangeArgs", 0.05, "RangeArgs fails unless exactly the given count of arguments is passed.")]
    query = embedder.embed([QUESTION])[0]
    ranked = DocstringReranker(embedder.embed).rerank(query, [*results], weight=1.0, depth=3)
    names = [r.identity.qualified_name for r in ranked]
    assert names[0] == "ExactArgs"  # its docstring shares the question's words
    assert names[3] == "RangeArgs"  # below the head nothing moves, whatever its docstring says
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)
    # no docstring: described by its name's words
    by_name = max(0.0, float(np.dot(query, embedder.embed(["helper"])[0])))
    assert next(r for r in ranked if r.identity.qualified_name == "helper").score == pytest.approx(0.08 + 0.10 * by_name)
    assert ranked[3].score == 0.05


def test_weight_zero_changes_nothing_and_vectors_are_made_once():
    embedder = CountingEmbedder()
    reranker = DocstringReranker(embedder.embed)
    query = embedder.embed([QUESTION])[0]
    embedder.texts.clear()
    results = [_result("a", 0.2, "Parse the file."), _result("b", 0.1, "Write the file.")]
    assert reranker.rerank(query, [*results], weight=0.0, depth=5) == results
    assert [r.score for r in results] == [0.2, 0.1] and embedder.texts == []
    reranker.rerank(query, [*results], weight=1.0, depth=5)
    reranker.rerank(query, [_result("a", 0.2, "Parse the file."), _result("c", 0.1, "Write the file.")],
                    weight=1.0, depth=5)
    assert sorted(embedder.texts) == ["Parse the file.", "Write the file."]  # the second call embedded nothing


SOURCE = '''def at_least(args, n):
    """Accept the arguments when there are at least n of them."""
    return len(args) >= n


def exactly(args, n):
    """Fail unless exactly the given count of arguments is passed."""
    return len(args) == n


def between(args, low, high):
    """Accept a count of arguments between low and high."""
    return low <= len(args) <= high


def no_arguments(args):
    return not args
'''


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "cli")
    git.write("cli/args.py", SOURCE)
    git.commit("args")
    return git


def _search(repo, tmp_path, doc_weight: float, mode: str) -> list[tuple[str, float]]:
    index = tmp_path / f"index-{doc_weight}"
    index.mkdir(parents=True)
    (index / "config.toml").write_text(f"[ranking]\ndoc_weight = {doc_weight}\n")
    ws = Workspace(repo.path, index)
    ws.index(["main"])
    try:
        return [(r.identity.qualified_name, r.score) for r in ws.search(SearchRequest(QUESTION, "main", mode=mode))]
    finally:
        ws.close()


def test_search_applies_it_to_the_fused_ranking_only(repo, tmp_path):
    plain = _search(repo, tmp_path / "a", 0.0, "fused")
    reranked = _search(repo, tmp_path / "b", 1.0, "fused")
    assert sorted(plain) != sorted(reranked)  # documented results in the head got a bonus
    assert {name for name, _s in plain} == {name for name, _s in reranked}
    assert [s for _n, s in reranked] == sorted((s for _n, s in reranked), reverse=True)
    # undocumented: described by its name, "no arguments", which shares "arguments" with the question
    assert dict(reranked)["no_arguments"] > dict(plain)["no_arguments"]
    for mode in ("dense", "lexical"):  # a single channel stays that channel
        assert _search(repo, tmp_path / f"{mode}-a", 0.0, mode) == _search(repo, tmp_path / f"{mode}-b", 1.0, mode)


def test_the_bonus_is_the_cosine_with_the_docstring_scaled_by_the_best_score():
    embedder = HashingEmbedder()
    query = embedder.embed([QUESTION])[0]
    results = [_result("a", 0.2, "Parse the file."), _result("b", 0.1, "Fail unless exactly the count.")]
    expected = 0.1 + 0.5 * 0.2 * max(0.0, float(np.dot(query, embedder.embed(["Fail unless exactly the count."])[0])))
    ranked = DocstringReranker(embedder.embed).rerank(query, results, weight=0.5, depth=2)
    assert next(r.score for r in ranked if r.identity.qualified_name == "b") == pytest.approx(expected)


def test_the_role_prior_scales_the_bonus_as_it_scales_the_score():
    embedder = HashingEmbedder()
    query = embedder.embed([QUESTION])[0]
    doc = "Fail unless exactly the given count of arguments is passed."
    results = [_result("exactly", 0.2, doc), _result("test_exactly", 0.1, doc)]
    ranked = DocstringReranker(embedder.embed).rerank(
        query, results, weight=1.0, depth=2, prior=lambda r: 0.4 if r.identity.qualified_name.startswith("test") else 1.0)
    bonus = {r.identity.qualified_name: r.score for r in ranked}
    assert bonus["test_exactly"] - 0.1 == pytest.approx(0.4 * (bonus["exactly"] - 0.2))
    assert bonus["exactly"] > 0.2
