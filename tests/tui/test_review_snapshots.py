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
