"""Fixtures for the review app's tests: the shop sample indexed on every branch.

Indexing uses the deterministic hashing embedder (BRANCHWISE_MODEL=hashing-384), and the
clock the indexer stamps `indexed_at` with is frozen, so what the app shows is the same on
every run and snapshots can compare it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from branchwise.workspace import Workspace

FROZEN_NOW = "2026-10-01T09:00:00+00:00"


@pytest.fixture
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def frozen_clock(monkeypatch):
    import branchwise.indexer

    monkeypatch.setattr(branchwise.indexer, "utc_now", lambda: FROZEN_NOW)


def index_all(repo: Path, index_dir: Path) -> None:
    workspace = Workspace(repo, index_dir)
    workspace.index([], all_branches=True)
    workspace.close()


@pytest.fixture
def shop_index(shop_repo, tmp_path, hashing_model, frozen_clock) -> tuple[Path, Path]:
    """(repository, index directory) of a private shop copy, every branch indexed."""
    index_dir = tmp_path / "index"
    index_all(shop_repo, index_dir)
    return shop_repo, index_dir
