"""The ranking policy: weighted fusion, the source-first prior, per-channel ranks, settings.

Logic tests with the hashing embedder (a deterministic embedding by shared tokens, no
weights): what is checked is the ordering policy, not the model's judgement. Retrieval
quality with the real model on real code is tests/test_realrepo_with_model.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from gittools import GitBuilder

from branchwise.errors import UsageError
from branchwise.ranking import RankingSettings, fuse, prior_factor, role_of, wanted_roles
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

SOURCE = '''def cancel_order(order):
    """Mark the order cancelled and refund the payment."""
    order.status = "cancelled"
    refund_payment(order)
'''
TEST = '''from shop.orders import cancel_order


def test_cancel_order():
    order = make_order()
    cancel_order(order)
    assert order.status == "cancelled"


def test_cancel_order_twice():
    order = make_order()
    cancel_order(order)
    cancel_order(order)
    assert order.status == "cancelled"
'''
DOCS = "# Cancelling an order\n\nCall cancel_order(order) to cancel an order; the payment is refunded.\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "shop")
    git.write("shop/orders.py", SOURCE)
    git.write("tests/test_orders.py", TEST)
    git.write("docs/orders.md", DOCS)
    git.commit("shop")
    return git


def _workspace(repo, tmp_path, ranking: dict | None = None) -> Workspace:
    index = tmp_path / "index"
    index.mkdir(parents=True, exist_ok=True)
    if ranking is not None:
        lines = ["[ranking]"] + [f"{k} = {v}" for k, v in ranking.items()]
        (index / "config.toml").write_text("\n".join(lines) + "\n")
    ws = Workspace(repo.path, index)
    ws.index(["main"])
    return ws


def _names(results) -> list[str]:
    return [r.identity.qualified_name for r in results]


def test_roles_of_symbols():
    assert role_of("src/click/core.py", "source", "python", "Context.invoke") == "source"
    assert role_of("tests/test_basic.py", "test", "python", "test_choice_option.cli") == "test"
    assert role_of("src/app.py", "source", "python", "TestClient.test_login") == "test"
    assert role_of("command_test.go", "test", "go", "TestSuggestions") == "test"
    assert role_of("doc/man_docs.go", "docs", "go", "GenManTree") == "source"  # code under doc/ is code
    assert role_of("docs/testing.md", "docs", "markdown", "testing.md") == "docs"
    assert role_of("examples/aliases/aliases.py", "source", "python", "AliasedGroup") == "example"
    assert role_of("src/context.py", "source", "python", "Testing") == "source"
    # Rust's inline `#[cfg(test)] mod tests` in a source file
    assert role_of("tokio/src/util/memchr.rs", "source", "rust", "tests.memchr_empty") == "test"
    assert role_of("tokio/src/util/memchr.rs", "source", "rust", "memchr") == "source"


def test_a_name_makes_a_test_only_in_test_files_and_test_classes():
    # an application's own API named test_...: source outside test files
    assert role_of("src/flask/app.py", "source", "python", "Flask.test_client") == "source"
    assert role_of("app.py", "source", "python", "test_client") == "source"
    assert role_of("app.py", "source", "python", "test_request_context#2") == "source"
    assert role_of("src/starlette/testclient.py", "source", "python", "TestClient") == "source"
    assert role_of("src/starlette/testclient.py", "source", "python", "TestClient.request") == "source"
    # the same names in a test file, or as test methods of a Test* class, are tests
    assert role_of("tests/test_app.py", "test", "python", "test_client") == "test"
    assert role_of("src/checks.py", "source", "python", "TestOrders.test_cancel_twice") == "test"
    assert role_of("src/checks.py", "source", "python", "TestOrders.test_cancel_twice.fake_gateway") == "test"


def test_questions_that_ask_for_tests_docs_or_examples():
    assert wanted_roles("tests for cancelling twice") == {"test"}
    assert wanted_roles("documentation page about testing") == {"docs"}
    assert wanted_roles("where is cancelling tested") == {"test"}
    assert wanted_roles("temporary directory for a test that is removed afterwards") == frozenset()
    assert wanted_roles("an example of a custom group") == {"example"}
    assert wanted_roles("cancel an order and refund it") == frozenset()
    assert wanted_roles("test running a command with a context") == {"test"}
    # a role word before another noun describes that noun: the code that runs tests, makes docs
    assert wanted_roles("test runner for CLI commands in isolation") == frozenset()
    assert wanted_roles("documentation generation for man pages and markdown") == frozenset()


def test_module_level_source_comes_after_definitions_unless_a_role_is_asked_for():
    settings = RankingSettings(module_level_weight=0.5, test_weight=0.3, docs_weight=0.4, example_weight=0.4)
    behaviour = frozenset()
    assert prior_factor("source", behaviour, settings, "function") == 1.0
    assert prior_factor("source", behaviour, settings, "struct") == 1.0
    for kind in ("module", "constant", "config", "file"):
        assert prior_factor("source", behaviour, settings, kind) == 0.5
    assert prior_factor("test", behaviour, settings, "module") == 0.3  # a role's weight, not both
    assert prior_factor("docs", frozenset({"docs"}), settings, "file") == 1.0
    assert prior_factor("source", frozenset({"test"}), settings, "constant") == 0.3
    assert prior_factor("source", behaviour, RankingSettings(module_level_weight=1.0), "config") == 1.0


def test_weighted_fusion_counts_each_channel_by_its_weight():
    rankings = {"dense": [("a", 0.9), ("b", 0.8)], "lexical": [("b", 5.0), ("a", 4.0)]}
    even = fuse(rankings, RankingSettings(dense_weight=1.0, lexical_weight=1.0))
    assert even[0].score == pytest.approx(even[1].score)
    leaning = fuse(rankings, RankingSettings(dense_weight=2.0, lexical_weight=1.0))
    assert [item.key for item in leaning] == ["a", "b"]
    assert leaning[0].ranks == {"dense": 1, "lexical": 2}


def test_prior_puts_source_before_tests_and_docs(repo, tmp_path):
    question = "cancel order"
    # the docstring rerank off too: only the source has a docstring, so it alone would lift it;
    # and the path boost, which lifts `orders.py` for "order" by itself
    off = {"test_weight": 1, "docs_weight": 1, "example_weight": 1, "doc_weight": 0, "path_boost": 0}
    plain = _workspace(repo, tmp_path / "plain", off).search(SearchRequest(question, "main", top_k=5))
    assert plain[0].identity.path != "shop/orders.py"  # the tests say "cancel order" more often
    prior = _workspace(repo, tmp_path / "prior", {"path_boost": 0})  # the default prior
    first = prior.search(SearchRequest(question, "main", top_k=5))[0]
    assert (first.identity.path, first.identity.qualified_name) == ("shop/orders.py", "cancel_order")


def test_prior_is_no_filter_and_yields_to_a_question_about_tests(repo, tmp_path):
    ws = _workspace(repo, tmp_path, {"test_weight": 0.5, "docs_weight": 0.5})
    behaviour = _names(ws.search(SearchRequest("cancel order", "main", top_k=10)))
    assert "test_cancel_order" in behaviour  # demoted, still there
    asked = ws.search(SearchRequest("tests for cancel order twice", "main", top_k=3))
    assert asked[0].identity.qualified_name == "test_cancel_order_twice"


def test_results_carry_per_channel_ranks(repo, tmp_path):
    ws = _workspace(repo, tmp_path, {"test_weight": 1, "docs_weight": 1, "example_weight": 1})
    fused = ws.search(SearchRequest("cancel order", "main", top_k=5))
    assert all(r.dense_rank is not None for r in fused)
    assert any(r.lexical_rank is not None and r.name_rank is not None for r in fused)
    dense = ws.search(SearchRequest("cancel order", "main", top_k=5, mode="dense"))
    assert [r.dense_rank for r in dense] == sorted(r.dense_rank for r in dense)  # without the prior
    assert all(r.lexical_rank is None and r.name_rank is None for r in dense)


def test_search_json_has_path_class_and_channel_ranks(repo, tmp_path):
    _workspace(repo, tmp_path).close()
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "search", "cancel order", "--repo", str(repo.path),
         "--branch", "main", "--index", str(tmp_path / "index"), "--json"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert {r["path_class"] for r in results} >= {"source", "test"}
    for r in results:
        assert {"dense_rank", "lexical_rank", "name_rank"} <= set(r)
        assert r["dense_rank"] is None or isinstance(r["dense_rank"], int)


@pytest.mark.parametrize("table, message", [
    ({"test_weigth": 0.5}, "unknown [ranking] setting"),
    ({"docs_weight": -1}, "must be a number >= 0"),
    ({"rrf_k": '"sixty"'}, "must be a number >= 0"),
])
def test_bad_ranking_settings_are_usage_errors(repo, tmp_path, table, message):
    with pytest.raises(UsageError, match=message.replace("[", r"\[")):
        _workspace(repo, tmp_path, table)
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "search", "cancel", "--repo", str(repo.path),
         "--branch", "main", "--index", str(tmp_path / "index")],
        capture_output=True, text=True,
    )
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
