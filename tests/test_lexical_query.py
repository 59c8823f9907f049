"""The lexical channel's reading of a question: stop words, British spellings, the name filter."""

from __future__ import annotations

import pytest
from gittools import GitBuilder

from branchwise.lexical import fts_query, name_query, query_terms
from branchwise.search.hybrid import SearchRequest
from branchwise.search.lexical_sparse import query_stems
from branchwise.workspace import Workspace


def test_british_words_are_also_searched_in_american_spelling():
    assert query_terms("remove the colour codes", spellings=True) == ["remove", "colour", "color", "codes"]
    assert query_terms("remove the colour codes") == ["remove", "colour", "codes"]
    assert fts_query("organise subcommands") == '"organise" OR "organize" OR "subcommands"'
    assert fts_query("the of a") is None


def test_the_name_filter_and_the_sparse_backend_read_the_question_alike():
    # every word of the question must be in the name: the other spelling is no extra word
    assert name_query("colour text") == 'symbol : ("colour" AND "text")'
    assert "color" in query_stems("colour text")
    assert "color" not in query_stems("colour text", name_only=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "term")
    git.write("term/style.py", 'def set_color(text, fg):\n    """Wrap text in ANSI color codes."""\n'
                               '    return f"\\x1b[{fg}m{text}\\x1b[0m"\n\n\n'
                               'def wrap(text, width):\n    """Break text into lines of a width."""\n'
                               '    return [text[i:i + width] for i in range(0, len(text), width)]\n')
    git.commit("style")
    return git


def test_a_british_question_finds_american_code(repo, tmp_path):
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main"])
    results = ws.search(SearchRequest("colour the output", "main", top_k=2, mode="lexical"))
    assert [r.identity.qualified_name for r in results] == ["set_color"]  # no word of it is in `wrap`
    ws.close()
