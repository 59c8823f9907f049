"""A documentation page is indexed section by section: an edit to one section is one new version.

Real git repository, real SQLite and FAISS, hashing embedder (the verdicts and versions do not
depend on the model).
"""

from __future__ import annotations

import pytest
from gittools import GitBuilder

from branchwise.models import Verdict
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

PAGE = """(options)=

# Options

Options are added with the option decorator.

## Setting a Default

Pass default to give an option a value when it is not given.

## Values from Environment Variables

Options can read their values from environment variables named by envvar.

```console
$ export GREETER_USERNAME=john
```

## Multiple Options

An option given many times collects every value with multiple.
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "tool")
    git.write("docs/options.md", PAGE)
    git.write("tool.py", "def main():\n    return 0\n")
    git.commit("docs")
    return git


def _sections(ws: Workspace, question: str) -> dict[str, object]:
    results = ws.search(SearchRequest(question, "main", top_k=20, path_prefix="docs/"))
    return {r.identity.qualified_name: r for r in results}


def _versions(ws: Workspace) -> dict[str, int]:
    return dict(ws.store.conn.execute(
        "SELECT i.qualified_name, count(*) FROM versions v JOIN identities i ON i.id = v.identity_id "
        "WHERE i.path = 'docs/options.md' GROUP BY i.qualified_name"))


def test_an_edit_to_one_section_changes_that_section_only(repo, tmp_path):
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main"])
    names = ["Options", "Setting a Default", "Values from Environment Variables", "Multiple Options"]
    assert [row["qualified_name"] for row in ws.inspect("main") if row["path"] == "docs/options.md"] == names
    assert all(row["symbol_type"] == "section" for row in ws.inspect("main") if row["path"] == "docs/options.md")

    edited = PAGE.replace("named by envvar.", "named by envvar.\n\nWith auto_envvar_prefix every option\n"
                                             "gets one: the prefix and the option's name in upper case.")
    repo.write("docs/options.md", edited)
    found = _sections(ws, "option values environment variables default multiple")
    assert set(found) == set(names)
    assert found["Values from Environment Variables"].verdict is Verdict.CHANGED
    assert "auto_envvar_prefix" in found["Values from Environment Variables"].current_text
    for name in ("Options", "Setting a Default", "Multiple Options"):
        assert found[name].verdict is Verdict.CURRENT, name  # "Multiple Options" moved down 3 lines
    assert found["Multiple Options"].current_start_line == found["Multiple Options"].start_line + 3

    repo.commit("document auto_envvar_prefix")
    [summary] = ws.index(["main"])
    assert summary.versions_added == 1
    assert _versions(ws) == {"Options": 1, "Setting a Default": 1, "Values from Environment Variables": 2,
                             "Multiple Options": 1}
    found = _sections(ws, "option values environment variables default multiple")
    assert {name: r.verdict for name, r in found.items()} == {name: Verdict.CURRENT for name in names}
    assert "auto_envvar_prefix" in found["Values from Environment Variables"].text
