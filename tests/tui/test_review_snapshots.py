"""Snapshots of the review app at 80x24 and 160x45 on fixed data.

Fixed: the sample repositories (pinned commits and dates), the hashing embedder, the indexer's
clock (tests/tui/conftest.py), the stats log's timestamps (pilot_helpers.write_stats_log) and
the input cursor (not blinking). Regenerate with `pytest tests/tui --snapshot-update` after
checking the new SVGs by eye.
"""

from __future__ import annotations

import pytest
from pilot_helpers import select_row, settle, write_stats_log
from textual.widgets import Input

from branchwise.models import Verdict
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app

QUERY = "make order cancellation idempotent"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


async def _steady(pilot) -> None:
    await settle(pilot)
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_results_with_a_long_path(shop_long_path_index, snap_compare, size):
    repo, index_dir = shop_long_path_index
    app = create_app(Workspace(repo, index_dir), branch="main", query="cancel an invoice idempotently", scope="all")

    async def label_a_deleted_result(pilot):
        await settle(pilot)
        select_row(app, lambda r: r.verdict is Verdict.DELETED)
        await pilot.press("r")
        await settle(pilot)
        select_row(app, lambda r: "invoice_cancellation" in r.path)
        await _steady(pilot)

    assert snap_compare(app, terminal_size=size, run_before=label_a_deleted_result)


@pytest.mark.parametrize("size", SIZES)
def test_help_screen(shop_index, snap_compare, size):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", query=QUERY, scope="all")

    async def open_help(pilot):
        await settle(pilot)
        await pilot.press("question_mark")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=size, run_before=open_help)


@pytest.mark.parametrize("size", SIZES)
def test_statistics_screen(shop_index, snap_compare, size):
    repo, index_dir = shop_index
    write_stats_log(repo, index_dir)
    app = create_app(Workspace(repo, index_dir), branch="main")

    async def open_statistics(pilot):
        await settle(pilot)
        await pilot.press("escape", "s")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=size, run_before=open_statistics)


@pytest.mark.parametrize("size", SIZES)
def test_bundle_preview(shop_index, snap_compare, size):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", query=QUERY, scope="all")

    async def preview_the_bundle(pilot):
        await settle(pilot)
        select_row(app, lambda r: r.verdict is Verdict.CURRENT)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("e")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=size, run_before=preview_the_bundle)


@pytest.mark.parametrize("size", SIZES)
def test_a_function_moved_unchanged_after_indexing(moved_index, snap_compare, size):
    """Issue 46, truth 1: `unchanged-older` at its new place, in the table and the preview."""
    repo, index_dir = moved_index
    app = create_app(Workspace(repo, index_dir), branch="main",
                     query="detect program name usage lines module path argv")

    async def select_the_moved_function(pilot):
        await settle(pilot)
        moved = select_row(app, lambda r: r.identity.qualified_name == "detect_program_name")
        assert moved.verdict is Verdict.UNCHANGED_OLDER and moved.current_path == "cli/_progname.py"
        await _steady(pilot)

    assert snap_compare(app, terminal_size=size, run_before=select_the_moved_function)


@pytest.mark.parametrize("size", SIZES)
def test_the_header_says_when_the_index_is_behind_the_branch(shop_index, snap_compare, size):
    """A commit on main after indexing: the header carries the staleness line the CLI prints
    (advice.py), beside the branch the app was opened on."""
    import os
    import subprocess

    from gittools import GIT_ENV

    repo, index_dir = shop_index
    clock = repo / "src/common/clock.py"
    clock.write_text(clock.read_text() + "\n\ndef tomorrow():\n    return 1\n")
    date = "2026-10-01T12:00:00+00:00"
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    for args in (["add", "-A"], ["commit", "-q", "-m", "after the index"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    app = create_app(Workspace(repo, index_dir), branch="main", query=QUERY)

    async def searched(pilot):
        await _steady(pilot)
        assert "index behind main tip by 1 commit" in str(app.sub_title)
        assert str(app.sub_title).startswith("shop @ main")

    assert snap_compare(app, terminal_size=size, run_before=searched)
