"""Hostile input, round four (issue 46): bad settings, deep nesting, reflog refs past the reflog.

Each case ends in one `branchwise: ...` line and the exit code of the CLI contract, never a
traceback and never a run that silently indexes nothing. Real git repositories, the real CLI in
a subprocess, the hashing embedder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

ENV = {**os.environ, "BRANCHWISE_MODEL": "hashing-384"}
DEPTH = 3000


def cli(*argv, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True,
                          text=True, env=ENV, cwd=cwd)


def one_line(out: subprocess.CompletedProcess, code: int, *words: str) -> str:
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and "Error:" not in out.stderr.replace("branchwise:", ""), out.stderr
    (line,) = [line for line in out.stderr.splitlines() if line.startswith("branchwise: ")]
    for word in words:
        assert word in line, line
    return line


@pytest.fixture
def repo(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "repo")
    builder.write("src/orders.py", 'def cancel_order(order):\n    """Cancel an order."""\n    return order\n')
    builder.commit("orders")
    builder.branch("feature/x")
    builder.checkout("feature/x")
    builder.write("src/orders.py", 'def cancel_order(order):\n    """Cancel an order, once."""\n    return None\n')
    builder.commit("feature")
    builder.checkout("main")
    return builder


# hostile 7: [chunking] settings ---------------------------------------------------------------


@pytest.mark.parametrize("setting, words", [
    ('max_file_bytes = "1MB"', ("max_file_bytes", "an integer", "'1MB'")),
    ("max_file_byte = 10", ("unknown chunking setting 'max_file_byte'", "did you mean 'max_file_bytes'")),
    ("max_file_bytes = -1", ("max_file_bytes", "1 or more", "-1")),
    ("max_file_bytes = 0", ("max_file_bytes", "1 or more")),
    ("section_max_lines = true", ("section_max_lines", "an integer")),
    ("minified_max_alnum_share = 2", ("minified_max_alnum_share", "between 0 and 1")),
    ('docs_globs = "*.md"', ("docs_globs", "list of strings")),
])
def test_a_bad_chunking_setting_is_one_line_and_exit_2(repo, tmp_path, setting, words):
    index = tmp_path / "index"
    index.mkdir()
    (index / "config.toml").write_text(f"[chunking]\n{setting}\n")
    one_line(cli("index", repo.path, "--index", index), 2, "config.toml", "[chunking]", *words)
    one_line(cli("search", "cancel order", "--repo", repo.path, "--branch", "main", "--index", index), 2,
             "[chunking]", *words)


def test_a_good_chunking_setting_still_applies(repo, tmp_path):
    index = tmp_path / "index"
    index.mkdir()
    (index / "config.toml").write_text("[chunking]\nmax_file_bytes = 20\n")
    out = cli("index", repo.path, "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    (main,) = json.loads(out.stdout)["branches"]
    assert main["skipped_files"] == 1  # the one file is larger than 20 bytes


# hostile 8: deep nesting ----------------------------------------------------------------------


def test_a_config_file_nested_3000_deep(repo, tmp_path):
    index = tmp_path / "index"
    index.mkdir()
    (index / "config.toml").write_text("ranking = " + "[" * DEPTH + "]" * DEPTH + "\n")
    one_line(cli("index", repo.path, "--index", index), 2, "config.toml", "nested more than")


def test_a_tour_file_nested_3000_deep(repo, tmp_path):
    tour = tmp_path / "deep.toml"
    tour.write_text('title = "deep"\nx = ' + "{a = " * DEPTH + "1" + "}" * DEPTH + "\n")
    one_line(cli("tour", "check", tour, "--repo", repo.path, "--index", tmp_path / "index"), 2, "nested more than")


def test_a_labels_file_nested_3000_deep(repo, tmp_path):
    labels = tmp_path / "labels.toml"
    labels.write_text('repository = "repo"\n[[label]]\npath = ' + "[" * DEPTH + "]" * DEPTH + "\n")
    assert cli("index", repo.path, "--index", tmp_path / "index").returncode == 0
    one_line(cli("labels", "import", labels, "--repo", repo.path, "--index", tmp_path / "index"), 2,
             "nested more than")
    as_json = tmp_path / "labels.json"
    as_json.write_text("[" * DEPTH + "]" * DEPTH)
    one_line(cli("labels", "import", as_json, "--repo", repo.path, "--index", tmp_path / "index"), 2)


def test_a_codetour_file_nested_3000_deep(repo, tmp_path):
    tour = tmp_path / "deep.tour"
    tour.write_text('{"title": "deep", "steps": ' + "[" * DEPTH + "]" * DEPTH + "}")
    one_line(cli("tour", "import-codetour", tour, "--repo", repo.path, "--out", tmp_path / "t.toml",
                 "--index", tmp_path / "index"), 2, "nested more than")


# hostile 9: reflog refs past the reflog -------------------------------------------------------


def test_a_diff_base_past_the_reflog(repo, tmp_path):
    one_line(cli("diff", "feature/x", "--base", "main@{1000}", "--repo", repo.path, "--index", tmp_path / "index"),
             2, "unknown revision", "main@{1000}")


def test_a_codetour_ref_past_the_reflog(repo, tmp_path):
    tour = tmp_path / "far.tour"
    tour.write_text(json.dumps({"title": "far", "ref": "HEAD@{1000}",
                                "steps": [{"file": "src/orders.py", "line": 2, "description": "cancel"}]}))
    one_line(cli("tour", "import-codetour", tour, "--repo", repo.path, "--out", tmp_path / "t.toml",
                 "--index", tmp_path / "index"), 2, "unknown revision", "HEAD@{1000}")


# hostile 12 and 13: MCP budgets ----------------------------------------------------------------


@pytest.fixture(scope="module")
def shop_service(sample_repos, tmp_path_factory):
    import shutil

    from branchwise.mcp_server.service import AgentService
    from branchwise.workspace import Workspace

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BRANCHWISE_MODEL", "hashing-384")
        repo = Path(shutil.copytree(sample_repos["shop"], tmp_path_factory.mktemp("mcp") / "shop", symlinks=True))
        ws = Workspace(repo)
        ws.index(["main"])
        yield AgentService([ws])
        ws.close()


def test_search_code_keeps_max_tokens_with_a_megabyte_query(shop_service):
    from branchwise.mcp_server.answer_size import compact_json

    query = ("cancel order " * 80_000)[:1_000_000]
    answer = shop_service.search_code(query, branch="main", max_tokens=500)
    assert answer["tokens"] <= 500
    assert len(compact_json(answer)) < 5_000
    assert answer["query"].startswith("cancel order cancel") and "elided: 1,000,000 characters" in answer["query"]
    short = shop_service.search_code("cancel order", branch="main", max_tokens=500)
    assert short["query"] == "cancel order"  # a short query is echoed whole


def test_context_bundle_returns_a_bundle_within_500_tokens(shop_service):
    answer = shop_service.context_bundle("cancel order", branch="main", max_tokens=500)
    assert answer["answer_tokens"] <= 500 and answer["included"], answer
    roomy = shop_service.context_bundle("cancel order", branch="main", max_tokens=4000)
    assert roomy["left_out"] or len(roomy["included"]) > 1  # with room, the metadata is whole


def test_context_bundle_below_the_smallest_budget_names_max_tokens_and_that_budget(shop_service):
    import re

    from branchwise.errors import UsageError

    with pytest.raises(UsageError) as raised:
        shop_service.context_bundle("cancel order", branch="main", max_tokens=60)
    message = str(raised.value)
    assert "--max-tokens" not in message and message.startswith("max_tokens 60 is too small")
    smallest = int(re.search(r"ask for max_tokens (\d+) or more", message).group(1))
    answer = shop_service.context_bundle("cancel order", branch="main", max_tokens=smallest)
    assert answer["included"] and answer["answer_tokens"] <= smallest
    with pytest.raises(UsageError, match=f"ask for max_tokens {smallest} or more"):
        shop_service.context_bundle("cancel order", branch="main", max_tokens=smallest - 1)


def test_context_bundle_leaves_a_result_out_when_only_the_metadata_overshoots(shop_service):
    """The code fits the budget with room to spare, and the answer is over it only by its
    metadata (the list of what is included): a result is left out, not an error returned."""
    full = shop_service.context_bundle("cancel order", branch="main")
    shortened = shop_service.context_bundle("cancel order", branch="main", max_tokens=full["answer_tokens"] - 1)
    assert shortened["included"] and shortened["answer_tokens"] < full["answer_tokens"]
    tight = shortened["answer_tokens"] - 1
    assert shortened["tokens"] < tight - 100  # the bundle itself is far under the budget
    answer = shop_service.context_bundle("cancel order", branch="main", max_tokens=tight)
    assert answer["included"] and answer["answer_tokens"] <= tight


# truth item 4: small untruths ----------------------------------------------------------------


def test_export_takes_no_stats_like_search(repo, tmp_path):
    index = tmp_path / "index"
    assert cli("index", repo.path, "--index", index).returncode == 0
    log = index / "stats.jsonl"
    common = ("cancel order", "--repo", repo.path, "--branch", "main", "--index", index)
    assert cli("export", *common, "--out", tmp_path / "quiet.md", "--no-stats").returncode == 0
    assert not log.exists() or log.read_text() == ""
    assert cli("export", *common, "--out", tmp_path / "logged.md").returncode == 0
    assert len(log.read_text().splitlines()) == 1
