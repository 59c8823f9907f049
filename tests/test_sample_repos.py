"""The sample repositories are the fixtures every integration test and the demo stand on, so
their histories are checked here with real git: reproducible hashes, and each case the
retrieval and verification code relies on (deletion, rename, move, merge, revert, per-branch
signatures, generated, backup, fixture and vendored files) really present."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD_SCRIPT = ROOT / "sample_repos" / "build.py"
READ_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=READ_ENV, check=True, capture_output=True, text=True
    ).stdout


def show(repo: Path, branch: str, path: str) -> str:
    return git(repo, "show", f"{branch}:{path}")


def exists(repo: Path, branch: str, path: str) -> bool:
    done = subprocess.run(
        ["git", "cat-file", "-e", f"{branch}:{path}"], cwd=repo, env=READ_ENV, capture_output=True
    )
    return done.returncode == 0


def branches(repo: Path) -> set[str]:
    return set(git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split())


def heads(repo: Path) -> str:
    return git(repo, "for-each-ref", "--format=%(refname) %(objectname)")


def run_builder(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), *args], capture_output=True, text=True, env=READ_ENV
    )


def python_function(source: str, name: str) -> str:
    """The text of top-level function `name`, up to the next top-level statement."""
    match = re.search(rf"^def {name}\(.*?(?=^\S|\Z)", source, re.S | re.M)
    assert match, f"{name} not found"
    return match.group(0).rstrip()


# --- the builder -------------------------------------------------------------------------


def test_building_again_gives_identical_commit_hashes(sample_repos, tmp_path):
    for _ in range(2):  # the second run replaces the first build in place
        done = run_builder(str(tmp_path))
        assert done.returncode == 0, done.stderr
    for name, repo in sample_repos.items():
        assert heads(tmp_path / name) == heads(repo), name


def test_repositories_are_left_on_main_with_a_clean_work_tree(sample_repos):
    for repo in sample_repos.values():
        assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "main"
        assert git(repo, "status", "--porcelain") == ""


def test_refuses_to_replace_a_directory_that_is_not_ours(tmp_path):
    precious = tmp_path / "shop" / "notes.txt"
    precious.parent.mkdir()
    precious.write_text("keep me")
    done = run_builder(str(tmp_path))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "not a branchwise sample" in done.stderr
    assert precious.read_text() == "keep me"


@pytest.mark.parametrize("args", [[], ["a", "b"], ["--force"]])
def test_bad_usage_exits_2_with_one_line(args):
    done = run_builder(*args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("usage:")


# --- shop (Python, seed 000) ----------------------------------------------------------------


def test_shop_branches(sample_repos):
    assert branches(sample_repos["shop"]) == {
        "main", "feature/old-arch", "feature/stock-alerts", "release/1.x"
    }


def test_shop_cancel_handler_is_deleted_on_main_but_lives_on_old_branches(sample_repos):
    shop = sample_repos["shop"]
    path = "src/orders/handlers/cancel_handler.py"
    assert not exists(shop, "main", path)
    for branch in ("feature/old-arch", "release/1.x"):
        handler = show(shop, branch, path)
        assert "class CancelOrderHandler" in handler
        assert "a repeated request returns the previous result" in handler
        assert "dedup key" in handler
    old_arch_dates = git(shop, "log", "--format=%ad", "--date=short", "main..feature/old-arch").split()
    assert old_arch_dates == ["2026-04-02", "2026-03-20"]


def test_shop_main_carries_the_logic_in_order_service_since_september(sample_repos):
    shop = sample_repos["shop"]
    service = show(shop, "main", "src/orders/services/order_service.py")
    assert "class OrderService" in service and "def cancel_order(" in service
    assert "if order.status == OrderStatus.CANCELLED:\n            return order" in service
    assert "idempotency" not in service.split("def cancel_order")[0].lower()
    assert "def ensure_cancellable(" in show(shop, "main", "src/orders/domain/order.py")
    log = git(shop, "log", "-2", "--format=%ad", "--date=short", "main", "--",
              "src/orders/services/order_service.py").split()
    assert log == ["2026-09-29", "2026-09-28"]


def test_shop_june_files_generated_backup_and_fixtures(sample_repos):
    shop = sample_repos["shop"]
    client = show(shop, "main", "src/orders/generated/order_api_client.py")
    assert client.splitlines()[0] == "# Code generated by openapi-generator. DO NOT EDIT."
    assert "class OrderApiClient" in client and "def cancel(" in client
    backup = show(shop, "main", "src/orders/repositories/order_repo_old.py")
    assert "class OrderRepoOld" in backup and "def save(" in backup
    assert "def make_order(" in show(shop, "main", "tests/fixtures/orders_fixture.py")
    added = git(shop, "log", "--diff-filter=A", "--format=%ad", "--date=short", "main", "--",
                "src/orders/repositories/order_repo_old.py").split()
    assert added == ["2026-06-02"]


def test_shop_release_branch_has_its_own_patch(sample_repos):
    shop = sample_repos["shop"]
    own = git(shop, "log", "--format=%s", "main..release/1.x").splitlines()
    assert own == ["Fix refund of shipped orders: always keep the restocking fee"]
    assert "OrderStatus.SHIPPED or not within_grace_period" in show(shop, "release/1.x", "src/payments/refunds.py")
    assert "OrderStatus.SHIPPED or" not in show(shop, "main", "src/payments/refunds.py")


def test_shop_rename_is_detected(sample_repos):
    status = git(sample_repos["shop"], "log", "--follow", "-M", "--name-status", "--format=",
                 "main", "--", "src/notifications/mailer.py")
    assert "R100\tsrc/notifications/email.py\tsrc/notifications/mailer.py" in status


def test_shop_function_moved_unchanged_to_another_file(sample_repos):
    shop = sample_repos["shop"]
    root = git(shop, "rev-list", "--max-parents=0", "main").strip()
    before = python_function(show(shop, root, "src/payments/refunds.py"), "round_half_up")
    after = python_function(show(shop, "main", "src/common/money.py"), "round_half_up")
    assert before == after
    assert "def round_half_up" not in show(shop, "main", "src/payments/refunds.py")


def test_shop_merge_and_revert(sample_repos):
    shop = sample_repos["shop"]
    merges = git(shop, "rev-list", "--merges", "--format=%s", "--no-commit-header", "main").splitlines()
    assert merges == ["Merge branch 'feature/stock-alerts'"]
    revert = git(shop, "log", "--format=%H %s%n%b", "--grep=This reverts commit", "main")
    reverted = re.search(r"This reverts commit ([0-9a-f]{40})", revert).group(1)
    assert git(shop, "log", "-1", "--format=%s", reverted).strip() == "Send an SMS when an order is cancelled"
    assert exists(shop, reverted, "src/notifications/sms.py")
    assert not exists(shop, "main", "src/notifications/sms.py")
    assert exists(shop, "main", "src/inventory/alerts.py")


def test_shop_is_a_non_trivial_codebase(sample_repos):
    files = git(sample_repos["shop"], "ls-tree", "-r", "--name-only", "main").split()
    python = [path for path in files if path.endswith(".py")]
    assert 15 <= len([path for path in python if not path.endswith("__init__.py")]) <= 25
    definitions = sum(
        len(re.findall(r"^\s*(?:def|class) ", show(sample_repos["shop"], "main", path), re.M))
        for path in python
    )
    assert definitions >= 40


# --- engine (Rust, seed 004) --------------------------------------------------------------


def test_engine_branches(sample_repos):
    assert branches(sample_repos["engine"]) == {
        "main", "release/v1.15", "feature-x", "feature/segment-merge"
    }


@pytest.mark.parametrize(
    ("branch", "signature"),
    [
        ("main", "pub fn optimizer_thresholds(config: &Config, mode: Mode) -> Thresholds {"),
        ("release/v1.15", "pub fn optimizer_thresholds(config: &Config) -> Thresholds {"),
        ("feature-x", "pub fn optimizer_thresholds(config: &Config, profile: &Profile) -> Thresholds {"),
    ],
)
def test_engine_optimizer_thresholds_signature_per_branch(sample_repos, branch, signature):
    config = show(sample_repos["engine"], branch, "src/config.rs")
    assert [line for line in config.splitlines() if "fn optimizer_thresholds" in line] == [signature]
    assert "pub struct Config" in config and "impl Config {" in config
    assert "pub fn new(" in config


def test_engine_legacy_search_survives_only_on_the_release_branch(sample_repos):
    engine = sample_repos["engine"]
    assert "pub fn legacy_search(" in show(engine, "release/v1.15", "src/search.rs")
    for branch in ("main", "feature-x", "feature/segment-merge"):
        assert "legacy_search" not in show(engine, branch, "src/search.rs"), branch


def test_engine_feature_branch_is_merged_with_a_merge_commit(sample_repos):
    engine = sample_repos["engine"]
    merge = git(engine, "rev-list", "--merges", "main").split()
    assert len(merge) == 1
    parents = git(engine, "rev-list", "--parents", "-1", merge[0]).split()[1:]
    assert len(parents) == 2
    assert parents[1] == git(engine, "rev-parse", "feature/segment-merge").strip()
    assert exists(engine, "main", "src/merge.rs")


# --- webapp (TypeScript + Go) -------------------------------------------------------------


def test_webapp_branches_and_languages(sample_repos):
    webapp = sample_repos["webapp"]
    assert branches(webapp) == {"main", "release/2.3"}
    files = git(webapp, "ls-tree", "-r", "--name-only", "main").split()
    assert any(path.startswith("web/src/") and path.endswith(".ts") for path in files)
    assert any(path.endswith(".tsx") for path in files)
    assert any(path.startswith("service/") and path.endswith(".go") for path in files)
    assert any(path.startswith("web/vendor/") for path in files)
    assert "service/testdata/orders.json" in files


def test_webapp_generated_go_file(sample_repos):
    generated = show(sample_repos["webapp"], "main", "service/status_string.go")
    assert re.match(r"// Code generated .* DO NOT EDIT\.\n", generated)
    assert "refunded" in generated
    assert "refunded" not in show(sample_repos["webapp"], "release/2.3", "service/status_string.go")


def test_webapp_release_fix_stays_on_the_release_branch(sample_repos):
    webapp = sample_repos["webapp"]
    assert 'timeZone: "UTC"' in show(webapp, "release/2.3", "web/src/dates.ts")
    assert 'timeZone: "UTC"' not in show(webapp, "main", "web/src/dates.ts")
    assert "export function formatDate" not in show(webapp, "main", "web/src/format.ts")
