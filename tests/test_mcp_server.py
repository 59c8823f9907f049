"""`branchwise mcp` as an agent meets it: a subprocess spoken to by the MCP SDK's own stdio client.

No mocks: each test starts the real server on a real index of the shop sample, built with the
real default model because retrieval and verdicts are at stake, and calls its tools over stdio.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from gittools import GIT_ENV
from mcp import ClientSession, StdioServerParameters, stdio_client

from branchwise.models import Label
from branchwise.review.bundle.tokens import token_counter
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_cli.jsonschemas import checked

pytestmark = pytest.mark.model

TOOLS = {"search_code", "context_bundle", "verify_citations", "list_branches", "index_status", "symbol"}
QUERY = "make order cancellation idempotent"
SERVICE = "src/orders/services/order_service.py"


@pytest.fixture(scope="module")
def indexed_shop(sample_repos, tmp_path_factory):
    """A copy of the shop sample with every branch indexed by the default model, and one
    result of QUERY labelled `exclude` by a reviewer (it must never reach an agent)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("BRANCHWISE_MODEL", raising=False)
        repo = Path(shutil.copytree(sample_repos["shop"], tmp_path_factory.mktemp("mcp") / "shop", symlinks=True))
        ws = Workspace(repo)
        ws.index([], all_branches=True)
        results = ws.search(SearchRequest(QUERY, "main", top_k=10))
        labelled = next(r for r in results if r.verdict.value == "current"
                        and r.identity.qualified_name != "OrderService.cancel_order")
        ws.review.set_label(labelled, Label.EXCLUDE, "wrong layer")
        ws.close()
        yield repo, labelled.identity.qualified_name


class Client:
    """A blocking face on the SDK's async ClientSession, so tests read top to bottom."""

    def __init__(self, portal, session):
        self.portal, self.session = portal, session

    def call(self, tool: str, arguments: dict | None = None):
        return self.portal.call(self.session.call_tool, tool, arguments or {})

    def ok(self, tool: str, arguments: dict | None = None) -> dict:
        result = self.call(tool, arguments)
        assert not result.is_error, result.content[0].text
        # every answer fits the tool's documented schema (docs/schema/mcp-TOOL.json)
        checked(f"mcp-{tool}", json.dumps(result.structured_content))
        return result.structured_content

    def list_tools(self):
        return self.portal.call(self.session.list_tools).tools


@asynccontextmanager
async def _session(params: StdioServerParameters):
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@contextmanager
def mcp_server(*args: str, cwd: Path | None = None):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}  # conftest puts this worktree's sources on PYTHONPATH
    env.pop("BRANCHWISE_MODEL", None)
    params = StdioServerParameters(command=sys.executable, args=["-m", "branchwise_cli", "mcp", *args],
                                   env=env, cwd=str(cwd) if cwd else None)
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_session(params)) as session:
            yield Client(portal, session)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_tools_verified_labelled_and_errors_do_not_break_the_server(indexed_shop):
    repo, excluded_name = indexed_shop
    with mcp_server("--repo", str(repo)) as client:
        tools = {tool.name: tool for tool in client.list_tools()}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.description and len(tool.description) > 80
            assert tool.annotations.read_only_hint is True
        assert {"query", "branch", "top_k", "language", "path_prefix", "scope"} <= set(tools["search_code"].input_schema["properties"])
        assert tools["search_code"].input_schema["required"] == ["query"]

        answer = client.ok("search_code", {"query": QUERY})
        assert answer["branch"] == "main" and answer["freshness"]["tip_moved"] is False
        by_name = {r["qualified_name"]: r for r in answer["results"]}
        cancel = by_name["OrderService.cancel_order"]
        assert cancel["verdict"] == "current" and cancel["handling"] == "use"
        assert cancel["header"].startswith(f"Source: {SERVICE}#L")
        assert "def cancel_order" in cancel["text"]
        assert excluded_name not in by_name  # labelled exclude by a reviewer
        assert all(r["verdict"] != "excluded" and "generated" not in r["path"] for r in answer["results"])
        assert answer["excluded"] >= 1

        # a malformed call is a one-sentence tool error, and the server keeps answering
        bad = client.call("search_code", {"query": QUERY, "top_k": "lots"})
        assert bad.is_error and "\n" not in bad.content[0].text and "top_k" in bad.content[0].text
        unknown = client.call("search_code", {"query": QUERY, "branch": "no-such-branch"})
        assert unknown.is_error and "not indexed" in unknown.content[0].text
        assert client.call("symbol", {"path": SERVICE}).is_error  # qualified_name missing
        assert client.ok("symbol", {"path": SERVICE, "qualified_name": "OrderService.cancel_order"})["verdict"] == "current"

        # history is marked, never offered as code to use (no budget: it comes after the
        # branch's own results, which may fill the default one)
        history = client.ok("search_code", {"query": QUERY, "scope": "all", "top_k": 10, "max_tokens": None})
        handler = [r for r in history["results"] if r["qualified_name"].startswith("CancelOrderHandler")]
        assert handler and all(r["handling"] == "reference-only" and r.get("history") for r in handler)

        listed = client.ok("list_branches")["repositories"][0]
        assert listed["checked_out"] == "main"
        assert {b["branch"] for b in listed["branches"]} == {"main", "feature/old-arch", "feature/stock-alerts", "release/1.x"}

    records = [json.loads(line) for line in (repo / ".git/branchwise/stats.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in records].count("mcp") == 3  # the searches and the symbol that answered


def test_context_bundle_keeps_within_max_tokens(indexed_shop):
    repo, excluded_name = indexed_shop
    with mcp_server("--repo", str(repo)) as client:
        full = client.ok("context_bundle", {"query": QUERY, "top_k": 8})
        small = client.ok("context_bundle", {"query": QUERY, "top_k": 8, "max_tokens": 900})
        answer = client.call("context_bundle", {"query": QUERY, "top_k": 8, "max_tokens": 900}).content[0].text
    assert full["answer_tokens"] > 900, "the budget must bind for this test to mean anything"
    # the whole answer (bundle and metadata, as the agent reads it) stays within the budget
    assert small["tokens"] <= small["answer_tokens"] <= 900 and small["max_tokens"] == 900
    assert token_counter()(answer) <= 900
    assert 1 <= len(small["included"]) < len(full["included"])
    assert any(item["reason"] == "budget" for item in small["left_out"])
    assert small["bundle"].count("Source: ") == len(small["included"])
    assert excluded_name not in {item["qualified_name"] for item in full["included"]}
    assert f"({excluded_name})" not in full["bundle"]  # no chunk's Source line names it


def test_verify_citations_reports_a_changed_file(indexed_shop, tmp_path):
    repo = Path(shutil.copytree(indexed_shop[0], tmp_path / "shop", symlinks=True))
    with mcp_server("--repo", str(repo)) as client:
        cancel = next(r for r in client.ok("search_code", {"query": QUERY})["results"]
                      if r["qualified_name"] == "OrderService.cancel_order")
        citation = {"path": cancel["path"], "content_hash": cancel["indexed"]["content_hash"][:12],
                    "commit": cancel["indexed"]["commit"]}
        before = client.ok("verify_citations", {"items": [citation]})["items"][0]
        assert before["verdict"] == "current" and before["qualified_name"] == "OrderService.cancel_order"

        path = repo / SERVICE
        path.write_text(path.read_text().replace("if order.status == OrderStatus.CANCELLED:",
                                                 "if order.status in (OrderStatus.CANCELLED,):"))
        snippet = f"{SERVICE}\t{'0' * 12}"
        after = client.ok("verify_citations", {"items": [citation, snippet]})["items"]
        assert after[0]["verdict"] == "changed"
        assert after[1]["verdict"] == "changed"  # a whole-file hash that no longer matches
        now = client.ok("symbol", {"path": SERVICE, "qualified_name": "OrderService.cancel_order"})
        assert now["verdict"] == "changed" and now["text_is"] == "current"
        assert "OrderStatus.CANCELLED,)" in now["text"]
        assert client.call("verify_citations", {"items": []}).is_error
        status = client.ok("index_status")["repositories"][0]
        assert ("OrderService.cancel_order", "changed") in {(f["qualified_name"], f["verdict"]) for f in status["stale_records"]}
        main = next(b for b in status["branches"] if b["branch"] == "main")
        # an uncommitted edit: re-indexing (which reads commits) cannot help; committing can
        assert main["reindex_recommended"] is False
        assert main["work_tree"].startswith("work tree differs from the index: commit, then index")


def test_a_restricted_user_never_sees_a_forbidden_path(indexed_shop, tmp_path):
    repo = Path(shutil.copytree(indexed_shop[0], tmp_path / "shop", symlinks=True))
    (repo / ".git/branchwise/access.toml").write_text(
        '[users.alice]\nrepositories = ["shop"]\npaths = { shop = ["src/orders/"] }\n')
    with mcp_server("--repo", str(repo), "--as", "alice") as client:
        seen = []
        for query in (QUERY, "refund the payment through the gateway", "low stock alert", "send an email"):
            seen += [r["path"] for r in client.ok("search_code", {"query": query, "top_k": 10, "scope": "all"})["results"]]
        bundle = client.ok("context_bundle", {"query": "refund the payment through the gateway"})
        denied = client.call("symbol", {"path": "src/payments/refunds.py", "qualified_name": "compute_refund"})
        checked = client.ok("verify_citations", {"items": ["src/payments/gateway.py\t" + "0" * 12]})["items"][0]
        status = client.ok("index_status")["repositories"][0]
    assert seen and all(path.startswith("src/orders/") for path in seen)
    assert "src/payments" not in bundle["bundle"]
    assert denied.is_error
    assert checked["verdict"] is None and "may read" in checked["reason"]
    assert all(row["path"].startswith("src/orders/") for b in status["branches"] for row in b["skipped_files"])


def refreshed(client, deadline: float) -> dict:
    """The repository's index_status once its background refresh is no longer running (done)."""
    while time.monotonic() < deadline:
        status = client.ok("index_status")["repositories"][0]
        if status["refresh"]["state"] != "running":
            break
        time.sleep(1)
    assert status["refresh"]["state"] == "done", status["refresh"]
    return status


def test_freshness_and_background_refresh(indexed_shop, tmp_path):
    repo = Path(shutil.copytree(indexed_shop[0], tmp_path / "shop", symlinks=True))
    (repo / "src/common/clock.py").write_text((repo / "src/common/clock.py").read_text() + "\n\ndef tomorrow():\n    return 1\n")
    git(repo, "commit", "-qam", "move the tip")
    with mcp_server("--repo", str(repo), "--refresh") as client:
        first = client.ok("search_code", {"query": QUERY})
        assert first["freshness"]["tip_moved"] is True and first["freshness"]["commits_behind"] == 1
        deadline = time.monotonic() + 120
        status = refreshed(client, deadline)
        main = next(b for b in status["branches"] if b["branch"] == "main")
        assert main["tip_moved"] is False and main["reindex_recommended"] is False
        # the refresh made the branch searchable; its new version's vector comes from the
        # background worker: a question in other words finds it once the worker is done
        while time.monotonic() < deadline:
            found = client.ok("search_code", {"query": "what day comes after today"})
            if (found.get("dense_coverage") or {}).get("complete", True):
                break
            time.sleep(1)
        assert (found.get("dense_coverage") or {}).get("complete", True), found.get("dense_coverage")
        assert found["freshness"]["tip_moved"] is False
        assert "tomorrow" in {r["qualified_name"] for r in found["results"]}


@pytest.mark.parametrize("static", ["auto", "none"])
def test_a_refreshed_branch_answers_by_name_while_its_vectors_are_missing(indexed_shop, tmp_path, monkeypatch, static):
    """Between the refresh (branch searchable) and the worker's vectors, a question naming the
    new function finds it through words and names, with the coverage figure saying why; with the
    static stage (complete at once) and without it (the transformer the only dense stage, so a
    version with no vector yet must not lose to those that have one)."""
    from branchwise.store import worker_record

    monkeypatch.setenv("BRANCHWISE_STATIC_MODEL", static)
    repo = Path(shutil.copytree(indexed_shop[0], tmp_path / "shop", symlinks=True))
    (repo / "src/common/clock.py").write_text((repo / "src/common/clock.py").read_text() + "\n\ndef tomorrow():\n    return 1\n")
    git(repo, "commit", "-qam", "move the tip")
    index_dir = repo / ".git/branchwise"
    with mcp_server("--repo", str(repo), "--refresh") as client:
        client.ok("search_code", {"query": QUERY})
        deadline = time.monotonic() + 120
        stopped = None
        while time.monotonic() < deadline and stopped is None:
            record = worker_record.read(index_dir)
            if record and record.get("state") == "running" and worker_record.alive(record["pid"]):
                os.kill(record["pid"], signal.SIGSTOP)  # hold the worker before it embeds
                stopped = record["pid"]
            time.sleep(0.05)
        assert stopped is not None, "the refresh started no embedding worker"
        try:
            while time.monotonic() < deadline:
                status = client.ok("index_status")["repositories"][0]
                if status["refresh"]["state"] != "running":
                    break
                time.sleep(0.2)
            found = client.ok("search_code", {"query": "tomorrow clock"})  # no symbol is named both: no name channel
            assert found["freshness"]["tip_moved"] is False
            assert found["dense_coverage"]["complete"] is False
            assert found["results"][0]["qualified_name"] == "tomorrow", [(r["qualified_name"], r.get("score")) for r in found["results"]]
        finally:
            os.kill(stopped, signal.SIGCONT)


@pytest.mark.parametrize("case", ["not a repository", "not indexed", "empty index directory", "run inside"])
def test_a_server_that_cannot_start_says_why_in_one_line(tmp_path, case):
    """A reader never creates an index: a repository without one is refused in one line and
    its index directory (default or given) holds no database afterwards."""
    from gittools import GitBuilder

    where, cwd, extra = tmp_path, None, []
    index_dir = tmp_path / "no-such-index"
    if case != "not a repository":
        git = GitBuilder(tmp_path / "fresh")
        git.write("a.py", "def a():\n    return 1\n")
        git.commit("one")
        where = git.path
        index_dir = git.path / ".git" / "branchwise"
    if case == "empty index directory":
        index_dir = tmp_path / "empty"
        index_dir.mkdir()
        extra = ["--index", str(index_dir)]
    command = [sys.executable, "-m", "branchwise_cli", "mcp", *extra]
    if case == "run inside":
        cwd = where
    else:
        command += ["--repo", str(where)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, cwd=cwd)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    expected = "not a git repository" if case == "not a repository" else "no index at"
    assert expected in done.stderr, done.stderr
    assert not (index_dir / "index.sqlite3").exists()


def test_refresh_follows_a_remote_tracking_branch_after_a_fetch(tmp_path):
    """A release line a fresh clone holds only as `origin/release/v1`: after `git fetch` brings
    a new commit of it, `mcp --refresh` sees its tip moved and re-indexes it from the
    remote-tracking ref, and the new code answers on that branch."""
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    (origin / "pay.py").write_text("def refund_payment(order):\n    return -order.total\n")
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "init")
    git(origin, "branch", "release/v1")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    env = {**os.environ, **GIT_ENV, "HF_HUB_OFFLINE": "1"}
    env.pop("BRANCHWISE_MODEL", None)  # the server's model, as mcp_server starts it
    subprocess.run([sys.executable, "-m", "branchwise_cli", "index", "--all-branches", "--quiet"], cwd=clone,
                   env=env, check=True, capture_output=True)
    git(origin, "checkout", "-q", "release/v1")
    (origin / "pay.py").write_text((origin / "pay.py").read_text() + "\n\ndef void_invoice(invoice):\n    return None\n")
    git(origin, "commit", "-qam", "a fix on the release line")
    git(clone, "fetch", "-q")
    with mcp_server("--repo", str(clone), "--refresh") as client:
        first = client.ok("search_code", {"query": "void an invoice", "branch": "release/v1"})
        assert first["freshness"]["tip_moved"] is True
        status = refreshed(client, time.monotonic() + 120)
        release = next(b for b in status["branches"] if b["branch"] == "release/v1")
        assert release["tip_moved"] is False
        found = client.ok("search_code", {"query": "void an invoice", "branch": "release/v1"})
        assert "void_invoice" in {r["qualified_name"] for r in found["results"]}
