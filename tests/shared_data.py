"""Data from beside the checkout (`../shared/realrepos/`, or `$BRANCHWISE_REALREPOS`): the
real-repository bundles some tests read. A clone anywhere else lacks them, so a test that needs
one skips with one reason, beginning "needs shared data" (bench/realrepos.py words it); in CI,
where the data is, conftest.py lists such skips for `.ci/run` to refuse."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.realrepos import MISSING_PREFIX, MissingSharedData, bundle, clone  # noqa: E402

__all__ = ["MISSING_PREFIX", "MissingSharedData", "bundle", "realrepo_bundle", "realrepo_clone"]


def realrepo_bundle(name: str) -> Path:
    """The bundle of real repository `name`, or a skip that says where it is looked for."""
    try:
        return bundle(name)
    except MissingSharedData as missing:
        pytest.skip(str(missing))


def realrepo_clone(name: str, cache: Path) -> Path:
    """`bench.realrepos.clone` (a local branch per release line), or the same skip."""
    realrepo_bundle(name)
    return clone(name, cache)
