"""Shared pytest fixtures."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

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


# vector backends ----------------------------------------------------------------------------
#
# Search and index tests run once per backend: FAISS (the default), Qdrant in local mode (a
# directory, as in CI) and, when QDRANT_URL names a server, that server (see README).

BACKENDS = ["faiss", "qdrant-local", "qdrant-server"]


@contextmanager
def backend_environment(kind: str, tmp_dir: Path):
    """Point every Workspace in this process at one backend, and clean it up afterwards."""
    if kind == "qdrant-server" and not os.environ.get("QDRANT_URL"):
        pytest.skip("QDRANT_URL is not set (no Qdrant server to test against)")
    names = ("BRANCHWISE_BACKEND", "BRANCHWISE_QDRANT_PATH", "BRANCHWISE_QDRANT_URL", "BRANCHWISE_QDRANT_COLLECTION")
    saved = {name: os.environ.get(name) for name in names}
    prefix = f"bwtest-{uuid.uuid4().hex[:12]}"  # a server is shared: every test gets its own collections
    if kind != "faiss":
        os.environ["BRANCHWISE_BACKEND"] = "qdrant"
        os.environ["BRANCHWISE_QDRANT_COLLECTION"] = prefix
        if kind == "qdrant-local":
            os.environ["BRANCHWISE_QDRANT_PATH"] = str(tmp_dir / "qdrant")
        else:
            os.environ["BRANCHWISE_QDRANT_URL"] = os.environ["QDRANT_URL"]
    try:
        yield kind
    finally:
        if kind == "qdrant-server":
            from branchwise.backends.qdrant import drop_collections
            drop_collections(os.environ["QDRANT_URL"], prefix, os.environ.get("QDRANT_API_KEY"))
        if kind != "faiss":
            from branchwise.backends.qdrant import close_clients
            close_clients(os.environ.get("BRANCHWISE_QDRANT_PATH") or os.environ.get("BRANCHWISE_QDRANT_URL"))
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path):
    """Run the test once per vector backend (the Workspace picks it up from the environment)."""
    with backend_environment(request.param, tmp_path) as kind:
        yield kind
