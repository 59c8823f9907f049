"""Inputs that used to end in a traceback (or a 37 GiB allocation) end in one line and exit 2.

A huge `--top-k` is capped at a documented maximum, `--index` naming a file, a read-only
directory and a statistics log with records of the wrong shape each give one clear line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.errors import UsageError
from branchwise.search import hybrid as search
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

MAX_TOP_K = 1000  # the documented maximum (docs/commands.md)


def test_the_documented_maximum():
    assert search.MAX_TOP_K == MAX_TOP_K


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("errors")
    repo = GitBuilder(root / "repo")
    repo.write("src/app.py", "def handler(x):\n    return x * 2\n")
    repo.commit("init")
    index = root / "index"
    Workspace(repo.path, index).index(["main"])
    return repo.path, index


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True,
                         **kwargs)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def assert_one_line(out: subprocess.CompletedProcess, code: int, *words: str) -> None:
    assert out.returncode == code, (out.stdout, out.stderr)
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    for word in words:
        assert word in out.stderr, out.stderr


@pytest.mark.parametrize("top_k, mode", [("1000000000", "fused"), (str(2**63), "lexical"), (str(2**63), "fused"),
                                         (str(MAX_TOP_K + 1), "dense"), ("0", "fused")])
def test_top_k_is_capped(indexed, top_k, mode):
    repo, index = indexed
    out = run("search", "handler", "--repo", repo, "--branch", "main", "--index", index,
              "--top-k", top_k, "--mode", mode)
    assert_one_line(out, 2, "--top-k", str(MAX_TOP_K))


def test_the_cap_holds_for_library_callers_too(indexed):
    repo, index = indexed
    with pytest.raises(UsageError, match=str(MAX_TOP_K)):
        Workspace(repo, index).search(SearchRequest("handler", "main", top_k=10**9))
    assert Workspace(repo, index).search(SearchRequest("handler", "main", top_k=MAX_TOP_K))


@pytest.mark.parametrize("record", [
    {"failure_ratio": "high", "time": "2026-01-01T00:00:00+00:00"},
    {"failure_ratio": 7.5},
    {"failure_ratio": 0.5, "overrides": 3},
    {"failure_ratio": 0.5, "verdicts": ["changed"]},
    {"failure_ratio": 0.5, "time": 12},
    {"failure_ratio": 0.5, "failures": "two"},
    [1, 2, 3],
])
def test_a_malformed_statistics_record_is_skipped_and_counted(indexed, tmp_path, record):
    repo, source = indexed
    index = Path(shutil.copytree(source, tmp_path / "index"))  # a real index; only its log is ours
    good = {"time": "2026-01-01T00:00:00+00:00", "kind": "export", "repository": "repo", "branch": "main",
            "failure_ratio": 0.25, "failures": 1, "considered": 4, "verdicts": {"changed": 1}}
    (index / "stats.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
    for extra in ((), ("--json",)):
        out = run("stats", "--index", index, *extra)
        assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["sessions"] == 1 and summary["unreadable_lines"] == 1


def test_a_statistics_log_that_cannot_be_read_is_one_line(indexed, tmp_path):
    index = Path(shutil.copytree(indexed[1], tmp_path / "index"))
    (index / "stats.jsonl").unlink(missing_ok=True)
    (index / "stats.jsonl").mkdir()
    assert_one_line(run("stats", "--index", index), 2, "stats.jsonl")


# tours and the MCP server (hardening round three) ------------------------------------------

TOURS = {
    "missing": None,
    "not-toml": "title = [unclosed\n",
    "title-not-a-string": "title = 3\n",
    "step-not-a-table": 'title = "t"\nsteps = [1]\n',
    "step-without-anchor": 'title = "t"\n[[steps]]\nnote = ""\nqualified_name = "handler"\n',
}


@pytest.mark.parametrize("name", list(TOURS))
@pytest.mark.parametrize("action", ["check", "show", "fix"])
def test_a_bad_tour_is_one_line(indexed, tmp_path, name, action):
    repo, index = indexed
    tour = tmp_path / f"{name}.toml"
    if TOURS[name] is not None:
        tour.write_text(TOURS[name])
    out = run("tour", action, tour, "--repo", repo, "--branch", "main", "--index", index)
    assert_one_line(out, 2, "tour")


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "src/../../x.py"])
def test_a_tour_step_outside_the_repository_never_ends_in_a_traceback(indexed, tmp_path, path):
    repo, index = indexed
    tour = tmp_path / "outside.toml"
    tour.write_text(f'title = "t"\n[[steps]]\npath = "{path}"\nqualified_name = "handler"\ncommit = "HEAD"\n')
    # `check` exits 1 for a decayed (gone) step, `show` 0; either may refuse the step as input (2)
    for action, shown in (("check", 1), ("show", 0)):
        out = run("tour", action, tour, "--repo", repo, "--branch", "main", "--index", index, "--json")
        assert out.returncode in (shown, 2), (out.stdout, out.stderr)
        assert len(out.stderr.strip().splitlines()) <= 1, out.stderr
        assert "root:" not in out.stdout  # nothing outside the repository was read


@pytest.mark.parametrize("argv, words", [
    (("tour", "show", "t", "--branch", "no-such-branch"), ("no-such-branch",)),
    (("tour", "record", "t", "--branch", "main", "--query", "q"), ("--from-labels",)),
    (("tour", "import-codetour", "missing.tour"), ("--out",)),
])
def test_tour_usage_errors_are_one_line(indexed, tmp_path, argv, words):
    repo, index = indexed
    tour = tmp_path / "t.toml"
    tour.write_text('title = "t"\n[[steps]]\npath = "src/app.py"\nqualified_name = "handler"\n')
    out = run(*[tour if part == "t" else part for part in argv], "--repo", repo, "--index", index)
    assert_one_line(out, 2, *words)


@pytest.fixture(scope="module")
def odd_indexed(tmp_path_factory) -> tuple[Path, Path]:
    """A Latin-1 file name and a branch named with U+0085, indexed."""
    import os

    root = tmp_path_factory.mktemp("odd")
    repo = GitBuilder(root / "repo")
    repo.write("src/app.py", "def handler(x):\n    return x * 2\n")
    repo.write(os.fsdecode(b"caf\xe9.py"), "def brew_coffee(cups):\n    return cups * 2\n")
    repo.commit("init")
    repo.branch("odd\u0085name")
    index = root / "index"
    Workspace(repo.path, index).index([], all_branches=True)
    return repo.path, index


def mcp_calls(repo: Path, index: Path, calls: list[tuple[str, dict]]) -> list:
    """Each call's result from one real `branchwise mcp` server over stdio (the SDK's client)."""
    import os

    from anyio.from_thread import start_blocking_portal
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "branchwise_cli", "mcp", "--repo", str(repo),
                                                                 "--index", str(index)],
                                   env={**os.environ, "BRANCHWISE_MODEL": "hashing-384", "HF_HUB_OFFLINE": "1"})

    async def run_all():
        errlog = open(index.parent / "mcp-stderr.log", "w")
        with errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return [await session.call_tool(tool, arguments) for tool, arguments in calls]

    with start_blocking_portal() as portal:
        results = portal.call(run_all)
    assert "Traceback" not in (index.parent / "mcp-stderr.log").read_text()
    return results


def test_mcp_tool_errors_are_one_line_and_the_server_keeps_answering(indexed):
    repo, index = indexed
    bad = [
        ("search_code", {"query": "handler", "language": "klingon"}),
        ("search_code", {"query": "   "}),
        ("search_code", {"query": "handler", "branch": "no-such-branch"}),
        ("search_code", {"query": "handler", "top_k": 0}),
        ("context_bundle", {"query": "handler", "max_tokens": 1}),
        ("verify_citations", {"items": [5]}),
        ("verify_citations", {"items": [{"path": "../outside.py", "content_hash": "abc"}]}),
        ("symbol", {"path": "src/app.py", "qualified_name": "no_such_symbol"}),
        ("index_status", {"repository": "no-such-repository"}),
    ]
    good = [("search_code", {"query": "handler"})]
    *errors, answer = mcp_calls(repo, index, bad + good)
    for (tool, arguments), result in zip(bad, errors):
        text = result.content[0].text
        assert result.is_error, (tool, arguments, text)
        assert "\n" not in text.strip() and "Traceback" not in text, (tool, text)
    klingon = errors[0].content[0].text
    assert "klingon" in klingon and "valid:" in klingon and "python" in klingon
    assert not answer.is_error and answer.structured_content["results"]


def test_mcp_tools_handle_a_latin1_file_and_a_branch_named_with_nel(odd_indexed):
    repo, index = odd_indexed
    branch, name = "odd\u0085name", "caf\\xe9.py"
    search, listed, status, symbol, verified = mcp_calls(repo, index, [
        ("search_code", {"query": "brew coffee cups", "branch": branch}),
        ("list_branches", {}),
        ("index_status", {}),
        ("symbol", {"path": name, "qualified_name": "brew_coffee", "branch": branch}),
        ("verify_citations", {"items": [{"path": name, "qualified_name": "brew_coffee", "content_hash": "0" * 7}],
                              "branch": branch}),
    ])
    for result in (search, listed, status, symbol, verified):
        assert not result.is_error, result.content[0].text
    hit = next(r for r in search.structured_content["results"] if r["qualified_name"] == "brew_coffee")
    assert hit["path"] == name and hit["verdict"] == "current"
    assert {b["branch"] for b in listed.structured_content["repositories"][0]["branches"]} == {"main", branch}
    assert symbol.structured_content["verdict"] == "current" and "def brew_coffee" in symbol.structured_content["text"]
    assert verified.structured_content["items"][0]["path"] == name
