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
    import branchwise.index.indexer

    monkeypatch.setattr(branchwise.index.indexer, "utc_now", lambda: FROZEN_NOW)


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


@pytest.fixture
def shop_changed_index(shop_index) -> tuple[Path, Path]:
    """`shop_index` with `OrderRepository.save` edited in the work tree after indexing, so a
    search on main (checked out) verifies it `changed` (history no longer brings other
    branches' copies of main's own symbols, so the work tree is where a change comes from)."""
    repo, index_dir = shop_index
    path = repo / "src/orders/repositories/order_repo.py"
    text = path.read_text()
    assert "        versions.append(order)\n" in text
    path.write_text(text.replace("        versions.append(order)\n", "        versions.append(order)  # newest last\n"))
    return repo, index_dir


LONG_PATH = "services/billing/internal/adapters/persistence/postgres/repositories/invoice_cancellation_repository.py"
LONG_PATH_CODE = '''"""Storage of invoice cancellations."""


class InvoiceCancellationRepository:
    def cancel_invoice_idempotently(self, invoice_id, idempotency_key):
        """Cancel an order's invoice once; a repeated key returns the first cancellation."""
        previous = self._by_key.get(idempotency_key)
        if previous is not None:
            return previous
        self._by_key[idempotency_key] = invoice_id
        return invoice_id
'''


@pytest.fixture
def shop_long_path_index(shop_repo, tmp_path, hashing_model, frozen_clock) -> tuple[Path, Path]:
    """The shop sample plus one commit on main adding a deeply nested file, every branch indexed."""
    import os
    import subprocess

    from gittools import GIT_ENV

    target = shop_repo / LONG_PATH
    target.parent.mkdir(parents=True)
    target.write_text(LONG_PATH_CODE, encoding="utf-8")
    date = "2026-09-30T12:00:00+00:00"
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    for args in (["add", "-A"], ["commit", "-q", "-m", "invoice cancellations"]):
        subprocess.run(["git", *args], cwd=shop_repo, env=env, check=True, capture_output=True)
    index_dir = tmp_path / "index"
    index_all(shop_repo, index_dir)
    return shop_repo, index_dir


@pytest.fixture
def moved_index(tmp_path, hashing_model, frozen_clock) -> tuple[Path, Path]:
    """The scenario of tests/test_moved_one_truth.py: `detect_program_name` indexed in
    cli/utils.py, then moved unchanged to cli/_progname.py and committed, not re-indexed."""
    from test_moved_one_truth import build_moved

    repo, index_dir = build_moved(tmp_path)
    return repo.path, index_dir


# click (a real project, BSD-3): long dotted names and release lines, for the layout at 80x24 --

CLICK_BRANCHES = ("main", "release/7.x", "release/8.1")


@pytest.fixture(scope="session")
def click_index(tmp_path_factory) -> tuple[Path, Path]:
    """(repository, index directory) of the click bundle with three release lines indexed by the
    hashing embedder at a frozen clock; shared by the tests that only read it (no labels).
    Skipped when the bundle is not beside the checkout (see bench/realrepos.py)."""
    import sys

    import branchwise.index.indexer

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from shared_data import realrepo_clone

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BRANCHWISE_MODEL", "hashing-384")
        patch.setattr(branchwise.index.indexer, "utc_now", lambda: FROZEN_NOW)
        repo = realrepo_clone("click", tmp_path_factory.mktemp("realrepos"))
        index_dir = tmp_path_factory.mktemp("click-index")
        workspace = Workspace(repo, index_dir)
        workspace.index(list(CLICK_BRANCHES))
        workspace.close()
    return repo, index_dir
