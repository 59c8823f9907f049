"""`--scope all` adds, never changes, on a second real project (spf13/cobra, Go, four release lines).

Issue 28, rule 6, asked of cobra as of click (tests/test_click_result_shape.py): for every
question of bench/realrepos/cobra.toml on every branch, the branch's own results are identical
(same versions, same order) with and without `--scope all`, and what `--scope all` adds after
them is history only, each identity once and none the branch has live. Real default model; the
bundle ships in bench/realrepos/, so this runs on a clean clone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.realrepos import CachedEmbedder, clone, load_questions  # noqa: E402
from branchwise.embedding import get_embedder  # noqa: E402
from branchwise.workspace import Workspace  # noqa: E402
from result_shape_checks import scope_all_adds_history_only  # noqa: E402

pytestmark = pytest.mark.model

#: the benchmark's cache (bench/realrepos.py), as in the click test: vectors by text hash
CACHE = Path(os.environ.get("BRANCHWISE_REALREPOS_CACHE") or Path(tempfile.gettempdir()) / "branchwise-realrepos")


@pytest.fixture(scope="module")
def cobra(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("BRANCHWISE_MODEL", raising=False)
        CACHE.mkdir(parents=True, exist_ok=True)
        source = clone("cobra", CACHE)
        path = tmp_path_factory.mktemp("realrepos") / "cobra"  # a copy of our own
        subprocess.run(["git", "clone", "-q", str(source), str(path)], check=True)
        for name in ("release/v1.2", "release/v1.6", "release/v1.8"):
            subprocess.run(["git", "-C", str(path), "branch", "-f", name, f"origin/{name}"], check=True,
                           capture_output=True)
        ws = Workspace(path, tmp_path_factory.mktemp("cobra-index"))
        # the configured identity (BRANCHWISE_RUNTIME included), so a torch run embeds with torch
        ws.__dict__["embedder"] = CachedEmbedder(get_embedder(ws.config.model_identity),
                                                 CACHE / "embeddings.sqlite")
        ws.index([], all_branches=True)
        yield ws
        ws.close()


def test_scope_all_leaves_the_branchs_results_as_they_are_on_every_branch(cobra):
    branches = [b.name for b in cobra.indexed_branches()]
    assert set(branches) == {"main", "release/v1.2", "release/v1.6", "release/v1.8"}
    added = scope_all_adds_history_only(cobra, load_questions("cobra"), branches)
    assert added > 0, "history must appear somewhere for this test to mean anything"
