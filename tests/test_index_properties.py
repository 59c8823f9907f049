"""Property: whatever the history, incremental indexing equals a from-scratch parse.

Hypothesis generates random git histories (branches, edits, deletions, renames, moved
functions, merges, reverts, force-pushes), indexes branches in random order with indexing
interleaved with the history, and checks every branch's live set against a fresh parse of
its tip, and that no search result lies outside the queried branch's live set.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from gittools import GitBuilder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_index import live_symbols, tip_symbols

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

FILES = ["pkg/alpha.py", "pkg/beta.py", "lib/gamma.py"]
NAMES = ["parse_order", "ship_parcel", "refund_money", "count_items", "send_email", "audit_event"]

operation = st.one_of(
    st.tuples(st.just("edit"), st.integers(0, 3), st.sampled_from(FILES),
              st.lists(st.tuples(st.sampled_from(NAMES), st.integers(0, 3)), min_size=1, max_size=4)),
    st.tuples(st.just("delete"), st.integers(0, 3), st.sampled_from(FILES)),
    st.tuples(st.just("rename"), st.integers(0, 3), st.sampled_from(FILES), st.sampled_from(FILES)),
    st.tuples(st.just("move"), st.integers(0, 3), st.sampled_from(FILES), st.sampled_from(FILES)),
    st.tuples(st.just("branch"), st.integers(0, 3)),
    st.tuples(st.just("merge"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("revert"), st.integers(0, 3)),
    st.tuples(st.just("force"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("index"), st.integers(0, 3)),
)


def render(functions: list[tuple[str, int]]) -> str:
    seen = dict(functions)
    return "".join(f"def {name}():\n    return {value!r}\n\n\n" for name, value in seen.items())


class History:
    def __init__(self, root: Path):
        self.repo = GitBuilder(root / "repo")
        self.repo.write(FILES[0], render([("parse_order", 0), ("ship_parcel", 1)]))
        self.repo.commit("initial")
        self.branches = ["main"]
        self.ws = Workspace(self.repo.path, root / "index")

    def on(self, index: int) -> str:
        name = self.branches[index % len(self.branches)]
        self.repo.checkout(name)
        return name

    def apply(self, op) -> None:
        kind = op[0]
        getattr(self, f"op_{kind}")(*op[1:])

    def op_edit(self, b, path, functions):
        self.on(b)
        self.repo.write(path, render(functions))
        self.repo.commit("edit")

    def op_delete(self, b, path):
        self.on(b)
        if (self.repo.path / path).exists():
            self.repo.delete(path)
            self.repo.commit("delete")

    def op_rename(self, b, src, dst):
        self.on(b)
        if src != dst and (self.repo.path / src).exists() and not (self.repo.path / dst).exists():
            (self.repo.path / dst).parent.mkdir(parents=True, exist_ok=True)
            self.repo.git("mv", src, dst)
            self.repo.commit("rename")

    def op_move(self, b, src, dst):
        """Move the first function of src, unchanged, to the end of dst."""
        self.on(b)
        source = self.repo.path / src
        if src == dst or not source.exists():
            return
        blocks = [blk for blk in source.read_text().split("\n\n\n") if blk.strip()]
        if not blocks:
            return
        target = self.repo.path / dst
        existing = target.read_text() if target.exists() else ""
        if blocks[0].split("(")[0] in existing:
            return
        self.repo.write(src, "".join(blk + "\n\n\n" for blk in blocks[1:]))
        self.repo.write(dst, existing + blocks[0] + "\n\n\n")
        self.repo.commit("move")

    def op_branch(self, b):
        if len(self.branches) < 4:
            name = f"topic/{len(self.branches)}"
            self.repo.branch(name, self.branches[b % len(self.branches)])
            self.branches.append(name)

    def op_merge(self, a, b):
        into, other = self.on(a), self.branches[b % len(self.branches)]
        if into == other:
            return
        try:
            self.repo.git("merge", "-q", "--no-edit", "-X", "theirs", other)
        except subprocess.CalledProcessError:
            self.repo.git("merge", "--abort")

    def op_revert(self, b):
        self.on(b)
        try:
            self.repo.git("revert", "--no-edit", "HEAD")
        except subprocess.CalledProcessError:
            subprocess.run(["git", "revert", "--abort"], cwd=self.repo.path, capture_output=True)

    def op_force(self, b, other):
        """A force-push: point the branch at another branch's commit (or its parent)."""
        name = self.on(b)
        target = self.branches[other % len(self.branches)]
        self.repo.git("reset", "-q", "--hard", target)
        del name

    def op_index(self, b):
        self.ws.index([self.branches[b % len(self.branches)]])


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(ops=st.lists(operation, min_size=3, max_size=14), order=st.randoms(use_true_random=False))
def test_incremental_index_equals_fresh_parse_on_every_branch(ops, order):
    with tempfile.TemporaryDirectory() as tmp:
        history = History(Path(tmp))
        for op in ops:
            history.apply(op)
        branches = list(history.branches)
        order.shuffle(branches)
        history.ws.index(branches)
        for branch in branches:
            tip = history.repo.head(branch)
            assert live_symbols(history.ws, branch) == tip_symbols(history.repo, tip), branch
            live = {(p, q, h) for p, q, _t, h, _s, _e in live_symbols(history.ws, branch)}
            for query in ("parse order", "refund money audit event"):
                for result in history.ws.search(SearchRequest(query, branch, top_k=10)):
                    assert (result.path, result.identity.qualified_name, result.content_hash) in live
        history.ws.close()
