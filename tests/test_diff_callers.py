"""Callers that really call, the diff summary, the ancestor hint and the Markdown comment.

Each repository is built here with exactly the references the test is about, next to the
look-alikes a word search would take for callers: the name in a comment, in a string, in
prose, as a parameter, or as a method of an unrelated class. The impact context does not
depend on the model (callers come from the syntax tree), so the hashing embedder is used.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.chunking.grammars import parser
from branchwise.review.references import references
from branchwise.workspace import Workspace
from branchwise_cli.main import main

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(autouse=True)
def _hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def _callers(change) -> list[tuple[str, str, str]]:
    return sorted((h.result.path, h.result.identity.qualified_name, h.how) for h in change.impact if h.kind == "caller")


# a configuration key ------------------------------------------------------------------------


@pytest.fixture
def config_repo(tmp_path):
    git = GitBuilder(tmp_path / "config")
    git.write(".github/workflows/lock.yaml", "name: lock\npermissions:\n  issues: write\njobs:\n  lock:\n    runs-on: ubuntu\n")
    git.write(".github/workflows/publish.yaml", "name: publish\npermissions:\n  contents: read\njobs:\n  build:\n    runs-on: ubuntu\n")
    git.write("src/app/files.py",
              "import os\n\n\ndef open_atomic(path, permissions=0o644):\n"
              "    # permissions of the new file\n    return os.open(path, permissions)\n\n\n"
              "def describe(mode):\n    return 'permissions: ' + str(mode)\n")
    git.write("tests/test_files.py", "from app.files import open_atomic\n\n\ndef test_open_atomic_permissions():\n"
              "    assert open_atomic('x', permissions=0o600)\n")
    git.write("CHANGES.rst", "Version 2\n=========\n\n- permissions of atomic files\n")
    # configuration beside the Python code that spells the same word
    git.write("src/app/defaults.yaml", "permissions:\n  mode: 420\nretries:\n  count: 3\n")
    git.write("src/app/overrides.yaml", "permissions:\n  mode: 384\nlog:\n  level: info\n")
    git.commit("start")
    git.branch("topic")
    git.checkout("topic")
    git.write(".github/workflows/lock.yaml", "name: lock\npermissions:\n  issues: write\n  pull-requests: write\n"
              "jobs:\n  lock:\n    runs-on: ubuntu\n")
    git.write("src/app/defaults.yaml", "permissions:\n  mode: 416\nretries:\n  count: 3\n")
    git.commit("lock pull requests too")
    git.checkout("main")
    return git.path


def test_a_yaml_key_change_lists_other_config_naming_it_and_no_python_caller(config_repo, tmp_path):
    diff = Workspace(config_repo, tmp_path / "index").diff("topic", "main")
    by_path = {c.path: c for c in diff.changes if c.qualified_name == "permissions"}
    workflow, defaults = by_path[".github/workflows/lock.yaml"], by_path["src/app/defaults.yaml"]
    assert workflow.kind == defaults.kind == "changed" and workflow.group == "ci" and defaults.group == "config"
    # nothing in Python, prose or tests "calls" a YAML key, though they all spell the word (and
    # src/app/files.py sits beside defaults.yaml): only the configuration beside it names it
    assert _callers(workflow) == [(".github/workflows/publish.yaml", "permissions", "key")]
    assert _callers(defaults) == [("src/app/overrides.yaml", "permissions", "key")]
    assert all(h.result.identity.language == "yaml" for c in (workflow, defaults) for h in c.impact)


# a renamed method ---------------------------------------------------------------------------


@pytest.fixture
def method_repo(tmp_path):
    git = GitBuilder(tmp_path / "methods")
    git.write("shop/store.py",
              "class Store:\n    def save_all(self, items):\n        for item in items:\n"
              "            self.rows.append(item)\n        return len(items)\n\n"
              "    def flush(self):\n        return self.save_all(self.pending)\n\n\n"
              "class Cache:\n    def save_all(self, items):\n        return None\n\n"
              "    def warm(self):\n        return self.save_all([])\n")
    git.write("shop/orders.py",
              "from shop.store import Store\n\n\ndef place(order, store):\n"
              "    # save_all is called once per order\n    store.save_all([order])\n    return 'save_all done'\n\n\n"
              "def place_many(orders):\n    store = Store()\n    return store.save_all(orders)\n\n\n"
              "def label(save_all=None):\n    return save_all\n")
    git.write("shop/legacy.py", "def legacy_total(values):\n    return sum(values)\n")
    git.write("shop/report.py", "from shop.legacy import legacy_total\n\n\ndef report(values):\n"
              "    return legacy_total(values) * 2\n\n\ndef note():\n    return 'legacy_total is gone'\n")
    git.write("docs/store.md", "# Store\n\nCall `store.save_all(items)` and `legacy_total(values)`.\n")
    git.commit("start")
    git.branch("topic")
    git.checkout("topic")
    git.write("shop/store.py",
              "class Store:\n    def persist_all(self, items):\n        for item in items:\n"
              "            self.rows.append(item)\n        return len(items)\n\n"
              "    def flush(self):\n        return self.persist_all(self.pending)\n\n\n"
              "class Cache:\n    def save_all(self, items):\n        return None\n\n"
              "    def warm(self):\n        return self.save_all([])\n")
    git.delete("shop/legacy.py")
    git.commit("rename save_all, drop legacy_total")
    git.checkout("main")
    return git.path


def test_a_renamed_method_lists_the_call_sites_of_its_old_name_on_the_base(method_repo, tmp_path):
    diff = Workspace(method_repo, tmp_path / "index").diff("topic", "main")
    [renamed] = [c for c in diff.changes if c.kind == "renamed"]
    assert (renamed.old.qualified_name, renamed.new.qualified_name) == ("Store.save_all", "Store.persist_all")
    assert _callers(renamed) == [
        ("shop/orders.py", "place", "call"),  # store.save_all: an object of unknown type
        ("shop/orders.py", "place_many", "call"),  # store = Store(): known to be a Store
        ("shop/store.py", "Store.flush", "call"),  # self inside Store
    ]
    # Cache.warm calls self.save_all, but that is Cache's method; `label` only has a parameter
    # of that name, docs/store.md only mentions it in prose
    by_caller = {h.result.identity.qualified_name: h for h in renamed.impact if h.kind == "caller"}
    assert by_caller["place_many"].certain and by_caller["Store.flush"].certain
    assert not by_caller["place"].certain
    assert by_caller["place"].line == 6  # the call's line, not the comment's
    assert renamed.callers_total == 3 and renamed.callers_certain == 2


def test_a_deleted_function_still_called_on_the_base_is_in_the_summary(method_repo, tmp_path, capsys):
    diff = Workspace(method_repo, tmp_path / "index").diff("topic", "main")
    [deleted] = [c for c in diff.changes if c.qualified_name == "legacy_total"]
    assert deleted.kind == "deleted"
    assert deleted in diff.summary.still_referenced
    # `note` only says the name in a string, docs/store.md in prose
    assert _callers(deleted) == [("shop/report.py", "report", "call")]
    summary = diff.to_json()["summary"]["still_referenced"]
    entry = next(e for e in summary if e["qualified_name"] == "legacy_total")
    assert entry["kind"] == "deleted" and {"path": "shop/report.py", "line": 5, "qualified_name": "report",
                                           "how": "call"} in entry["shown"]
    # the text output says so before the list of changes
    code = main(["diff", "topic", "--repo", str(method_repo), "--index", str(tmp_path / "index"), "--base", "main"])
    out = capsys.readouterr().out
    assert code == 0
    head = out.split("## Source")[0]
    assert "Deleted or renamed, still referenced on main" in head
    assert "shop/report.py:5  report" in head


# the ancestor case --------------------------------------------------------------------------


@pytest.mark.parametrize("same", [False, True])
def test_an_ancestor_branch_prints_the_swapped_command_and_exits_0(method_repo, tmp_path, capsys, same):
    git = GitBuilder.__new__(GitBuilder)
    git.path, git._tick = method_repo, 20
    if same:
        git.branch("twin", "main")
    branch, base = ("twin", "main") if same else ("main", "topic")
    code = main(["diff", branch, "--repo", str(method_repo), "--index", str(tmp_path / "index"), "--base", base])
    out = capsys.readouterr().out
    assert code == 0
    assert ("is the same commit as" if same else "is an ancestor of") in out
    assert f"branchwise diff {base} --base {branch}" in out
    assert main(["diff", branch, "--repo", str(method_repo), "--index", str(tmp_path / "index"), "--base", base,
                 "--json"]) == 0
    assert '"branch_is_ancestor": true' in capsys.readouterr().out


# the Markdown comment -----------------------------------------------------------------------


def test_markdown_matches_the_golden_comment(method_repo, tmp_path, capsys):
    assert main(["diff", "topic", "--repo", str(method_repo), "--index", str(tmp_path / "index"),
                 "--base", "main", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    golden = GOLDEN / "diff_comment.md"
    assert out == golden.read_text(encoding="utf-8")
    assert "<details>" in out and len(out) < 65_536


# references per language --------------------------------------------------------------------

SOURCES = {
    "python": b"import x\nfrom m import target\n\ndef f(a):\n    # target here\n    s = 'target'\n"
              b"    obj.target(a)\n    return target(a)\n",
    "javascript": b"import { target } from './m';\nfunction f(a) {\n  // target\n  const s = 'target';\n"
                  b"  obj.target(a);\n  return target(a);\n}\n",
    "typescript": b"import { target } from './m';\nfunction f(a: number): number {\n  /* target */\n"
                  b"  const s = \"target\";\n  obj.target(a);\n  return target(a);\n}\n",
    "go": b"package p\n\nfunc f(a int) int {\n\t// target\n\ts := \"target\"\n\tobj.target(a)\n\treturn target(a)\n}\n",
    "rust": b"use m::target;\nfn f(a: i32) -> i32 {\n    // target\n    let s = \"target\";\n"
            b"    obj.target(a);\n    target(a)\n}\n",
    "java": b"import m.target;\nclass A {\n  int f(int a) {\n    // target\n    String s = \"target\";\n"
            b"    obj.target(a);\n    return target(a);\n  }\n}\n",
}


@pytest.mark.parametrize("grammar", sorted(SOURCES))
def test_references_are_code_never_comments_or_strings(grammar):
    source = SOURCES[grammar]
    found = references(grammar, parser(grammar).parse(source).root_node, frozenset({"target"}))
    lines = source.decode().splitlines()
    hows = {(lines[r.line - 1].strip(), r.how, r.owner) for r in found}
    assert all("//" not in text and "#" not in text and "/*" not in text and '"' not in text and "'" not in text
               for text, _how, _owner in hows if "import" not in text and "use " not in text)
    assert any(how == "call" and owner == "obj" for _text, how, owner in hows)
    assert any(how == "call" and owner is None for _text, how, owner in hows)
    if grammar != "go":  # Go imports packages, not names
        assert any(how == "import" for _text, how, _owner in hows)
