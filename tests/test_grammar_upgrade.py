"""An index written before a language had a grammar re-chunks that language's files once."""

from __future__ import annotations

import pytest

from branchwise.chunking import languages
from branchwise.workspace import Workspace
from gittools import GitBuilder

C_SOURCE = "/* Parse a value. */\nint parse(const char *text) {\n  return 0;\n}\n\nvoid free_all(void) {}\n"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def test_files_kept_whole_before_their_grammar_are_cut_into_symbols_at_the_next_run(tmp_path, monkeypatch):
    repo = GitBuilder(tmp_path / "repo")
    repo.write("src/parse.c", C_SOURCE)
    repo.write("app.py", "def main():\n    return 1\n")
    repo.commit("initial")
    with monkeypatch.context() as older_chunker:  # C had no grammar: one `file` chunk
        older_chunker.delitem(languages._GRAMMAR_BY_SUFFIX, ".c")
        ws = Workspace(repo.path, tmp_path / "index")
        ws.index(["main"])
        assert {(r["path"], r["symbol_type"]) for r in ws.inspect("main")} == {
            ("src/parse.c", "file"), ("app.py", "function")}
        ws.close()

    ws = Workspace(repo.path, tmp_path / "index")
    [summary] = ws.index(["main"])  # the branch did not move
    assert summary.files_parsed == 1
    assert {(r["path"], r["symbol_type"], r["qualified_name"]) for r in ws.inspect("main")} == {
        ("src/parse.c", "function", "parse"), ("src/parse.c", "function", "free_all"),
        ("app.py", "function", "main")}
    [again] = ws.index(["main"])
    assert again.files_parsed == 0 and again.base == "up to date"  # once
    ws.close()
