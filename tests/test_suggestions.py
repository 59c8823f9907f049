"""Errors that suggest: a mistyped branch, filter value or option is refused in one line that
names the closest valid ones, from the CLI and the MCP tools alike (suggest.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cli_run import ENV, branchwise
from gittools import GitBuilder

from branchwise.errors import UsageError
from branchwise.mcp_server.service import AgentService
from branchwise.workspace import Workspace


def error_line(*argv, cwd) -> str:
    out = branchwise(*argv, cwd=cwd)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    return out.stderr.strip()


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    builder = GitBuilder(tmp_path_factory.mktemp("suggest") / "shop")
    builder.write("src/refund.py", "def refund_payment(order):\n    return order.total\n")
    builder.commit("init")
    builder.branch("release/v2")
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", "index", "--all-branches"], cwd=builder.path,
                         env=ENV, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return builder.path


@pytest.mark.parametrize("argv, wanted", [
    (["index", "--branch", "mian"], "unknown branch 'mian' in shop; did you mean main?"),
    (["search", "refund", "--branch", "mian"], "unknown branch 'mian' in shop, and not indexed; did you mean main?"),
    (["inspect", "--branch", "relase/v2"], "did you mean release/v2?"),
    (["search", "refund", "--language", "pyhton"], "unknown language 'pyhton' (did you mean python?); valid: "),
    (["search", "refund", "--path-class", "tset"], "unknown path class 'tset' (did you mean test?)"),
    (["search", "refund", "--symbol-type", "fucntion"], "unknown symbol type 'fucntion' (did you mean function"),
    (["search", "refund", "--brnch", "main"],
     "search: unrecognized arguments: --brnch main (did you mean --branch?) (see `branchwise search --help`)"),
    (["index", "--al-branches"], "index: unrecognized arguments: --al-branches (did you mean --all-branches"),
])
def test_the_cli_names_the_closest(shop, argv, wanted):
    line = error_line(*argv, cwd=shop)
    assert line.startswith("branchwise: ") and wanted in line


def test_the_mcp_tools_say_the_same(shop):
    service = AgentService([Workspace(shop, create=False)])
    with pytest.raises(UsageError, match="did you mean main"):
        service.search_code("refund", branch="mian")
    with pytest.raises(UsageError, match=r"did you mean python\?"):
        service.search_code("refund", language="pyhton")
