"""Click's `@t.overload` stubs are never results: `prompt` is the implementation, on every branch.

Indexed from the real click bundle (five release lines). Which definitions are overload stubs
is decided independently of the chunker, by Python's own `ast`; the check is that no chunk of
any branch's live set is a stub, that each overloaded name is one chunk holding its stubs and
its implementation, and that the MCP `symbol` tool, a tour step and a search name the
implementation. Hashing embedder: what is checked does not depend on the model's ranking.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared_data import realrepo_clone  # noqa: E402

from branchwise.mcp_server.service import AgentService  # noqa: E402
from branchwise.review.tours.check import check_tour  # noqa: E402
from branchwise.review.tours.tourfile import Step, Tour  # noqa: E402
from branchwise.search.hybrid import SearchRequest  # noqa: E402
from branchwise.workspace import Workspace  # noqa: E402

BRANCHES = ("main", "release/7.x", "release/8.0", "release/8.1", "release/8.3")


@pytest.fixture(scope="module")
def click(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BRANCHWISE_MODEL", "hashing-384")
        path = realrepo_clone("click", tmp_path_factory.mktemp("realrepos"))
        ws = Workspace(path, tmp_path_factory.mktemp("click-index"))
        ws.index(list(BRANCHES))
        yield ws
        ws.close()


def _overload_groups(source: str) -> list[tuple[str, int, int, list[int]]]:
    """(qualified name, first stub's first line, implementation's last line, stubs' last lines)
    of every overloaded function or method, by `ast`."""
    groups = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        functions = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        index = 0
        while index < len(functions):
            node = functions[index]
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            if not isinstance(node, ast.ClassDef) and _is_stub(node):
                end = index
                while end + 1 < len(functions) and functions[end + 1].name == node.name and _is_stub(functions[end + 1]):
                    end += 1
                implementation = functions[end + 1] if end + 1 < len(functions) else None
                assert implementation is not None and implementation.name == node.name, "click has no stub-only group"
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                while first > 1 and lines[first - 2].lstrip().startswith("#"):
                    first -= 1  # the comments directly above belong to the chunk (docs/chunking.md)
                groups.append((prefix + node.name, first, implementation.end_lineno,
                               [f.end_lineno for f in functions[index : end + 1]]))
                index = end + 2
                continue
            index += 1

    lines = source.splitlines()
    visit(ast.parse(source).body, "")
    return groups


def _is_stub(node: ast.stmt) -> bool:
    return any((isinstance(d, ast.Name) and d.id == "overload") or (isinstance(d, ast.Attribute) and d.attr == "overload")
               for d in getattr(node, "decorator_list", []))


def _source(ws: Workspace, branch: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(ws.repo.path), "show", f"{branch}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def test_no_chunk_of_any_branch_is_an_overload_stub(click):
    ws = click
    checked = 0
    for branch in BRANCHES:
        rows = [r for r in ws.inspect(branch) if r["path"].endswith(".py") and r["path"].startswith("src/click/")]
        by_path: dict[str, list[dict]] = {}
        for row in rows:
            by_path.setdefault(row["path"], []).append(row)
        for path, chunks in by_path.items():
            for name, first, last, stub_ends in _overload_groups(_source(ws, branch, path)):
                named = [c for c in chunks if c["qualified_name"].split("#")[0] == name]
                assert [(c["qualified_name"], c["start_line"], c["end_line"]) for c in named] == [(name, first, last)], \
                    (branch, path, name)
                assert not [c for c in chunks if c["end_line"] in stub_ends], (branch, path, name)
                checked += 1
    assert checked >= 30  # main alone has 15 overloaded names in src/click (termui, decorators, core, ...)


def test_prompt_resolves_to_its_implementation_in_symbol_a_tour_and_a_search(click):
    ws = click
    service = AgentService([Workspace(ws.repo.path, ws.index_dir, create=False)])
    answer = service.symbol("src/click/termui.py", "prompt", branch="main")
    text = answer["text"]
    assert "Prompts a user for input" in text and text.count("def prompt(") == 3
    with pytest.raises(Exception, match="no symbol 'prompt#3'"):
        service.symbol("src/click/termui.py", "prompt#3", branch="main")

    main = ws.repo.resolve_branch("main")
    tour = Tour("decorators", steps=[
        Step(note="recorded", path="src/click/decorators.py", qualified_name="command", commit=main),
        Step(note="hand-written", path="src/click/decorators.py", qualified_name="command")])
    recorded, by_name = check_tour(ws, tour, "main").steps
    assert recorded.verdict.value == "current"
    for step in (recorded, by_name):
        assert "Creates a new :class:`Command`" in step.text and step.text.count("def command(") >= 3

    for branch in ("main", "release/8.3"):
        results = ws.search(SearchRequest("prompt for a password with confirmation", branch, top_k=10))
        termui = [r for r in results if r.path == "src/click/termui.py"]
        stubs = {end for _name, _first, _last, ends in _overload_groups(_source(ws, branch, "src/click/termui.py"))
                 for end in ends}
        assert termui and not [r for r in termui if r.end_line in stubs], branch
        assert all("#" not in r.identity.qualified_name for r in termui if r.identity.qualified_name.startswith("prompt"))
