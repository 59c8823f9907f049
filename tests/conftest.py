"""Shared pytest fixtures."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest
from backend_env import BACKENDS, backend_environment

ROOT = Path(__file__).resolve().parents[1]

# This tree's packages (core, review app, command line) ahead of any installed copy, in this
# process and in the `python -m branchwise_cli` subprocesses that tests start.
_SOURCES = [str(ROOT / part) for part in ("core", "tui", "cli")]
sys.path[:0] = [path for path in _SOURCES if path not in sys.path]
os.environ["PYTHONPATH"] = os.pathsep.join(
    _SOURCES + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p not in _SOURCES])
# An editable install's finder would serve a module this tree no longer has from the installed
# checkout; without it, an import of a moved or deleted module fails as it should.
sys.meta_path[:] = [f for f in sys.meta_path if not type(f).__module__.startswith("__editable__")]
# The developer's own ~/.config/branchwise/config.toml must not change what the tests see: each
# run gets an empty user configuration directory (tests of that layer point it elsewhere).
os.environ["XDG_CONFIG_HOME"] = str(Path(os.environ.get("TMPDIR", "/tmp")) / f"branchwise-test-config-{os.getpid()}")
# Exports made at run time (a model without a shipped one) go to a cache that starts empty, as it
# does on a clean machine: a test that only passes with the developer's cache must fail here.
os.environ["BRANCHWISE_CACHE_DIR"] = str(Path(os.environ.get("TMPDIR", "/tmp")) / f"branchwise-test-cache-{os.getpid()}")
# Every `--json` output any test prints is checked against docs/schema/ (branchwise_cli/jsonschemas.py).
os.environ.setdefault("BRANCHWISE_CHECK_JSON_SCHEMA", "1")


def _load_sample_builder():
    """Import sample_repos/build.py, which is a script and not part of an installed package."""
    path = ROOT / "sample_repos" / "build.py"
    spec = importlib.util.spec_from_file_location("branchwise_sample_repos_build", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def sample_repos(tmp_path_factory) -> dict[str, Path]:
    """The sample repositories (shop, engine, webapp), built once per session: name -> path.

    Shared by every test in the session, so treat them as read-only. A test that commits,
    checks out, writes files or otherwise changes a repository must work on a copy: use the
    `shop_repo`, `engine_repo` or `webapp_repo` fixture, which copies one into `tmp_path`.
    """
    return _load_sample_builder().build_all(tmp_path_factory.mktemp("sample_repos"))


def _copy_sample(sample_repos: dict[str, Path], name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_repos[name], tmp_path / name, symlinks=True))


@pytest.fixture
def shop_repo(sample_repos, tmp_path) -> Path:
    """A private copy of the shop repository (Python, seed 000), free to modify."""
    return _copy_sample(sample_repos, "shop", tmp_path)


@pytest.fixture
def engine_repo(sample_repos, tmp_path) -> Path:
    """A private copy of the engine repository (Rust, seed 004), free to modify."""
    return _copy_sample(sample_repos, "engine", tmp_path)


@pytest.fixture
def webapp_repo(sample_repos, tmp_path) -> Path:
    """A private copy of the webapp repository (TypeScript and Go), free to modify."""
    return _copy_sample(sample_repos, "webapp", tmp_path)


# vector backends: see backend_env.py ----------------------------------------------------


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path):
    """Run the test once per vector backend (the Workspace picks it up from the environment)."""
    with backend_environment(request.param, tmp_path) as kind:
        yield kind


# data from ../shared: see shared_data.py ------------------------------------------------


def pytest_configure(config) -> None:
    """Without the shared data, the click layout's snapshot tests skip, and the snapshot plugin
    would fail the whole run for their snapshots going unused: there, unused snapshots only
    warn. Where the data is (CI), an unused snapshot still fails the run."""
    from shared_data import MissingSharedData, bundle

    try:
        bundle("click")
    except MissingSharedData:
        config.option.warn_unused_snapshots = True


def pytest_runtest_logreport(report) -> None:
    """Where the shared data is (CI), nothing may skip for want of it: with
    $BRANCHWISE_SHARED_SKIPS set, each test that skipped for absent shared data, or that ran
    without some of it (a benchmark item it reports as skipped), is appended to that file,
    which `.ci/run` requires to be empty."""
    target = os.environ.get("BRANCHWISE_SHARED_SKIPS")
    if not target:
        return
    from shared_data import MISSING_PREFIX

    missing = [str(value) for key, value in report.user_properties if key == "needs_shared_data"]
    if report.skipped and MISSING_PREFIX in str(report.longrepr):
        missing.append(str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr))
    if missing:
        with open(target, "a", encoding="utf-8") as out:
            out.writelines(f"{report.nodeid}: {why}\n" for why in missing)
