"""The review app's index status screen (`I`): the core's status, drawn, over the shop sample."""

from __future__ import annotations

import os
import subprocess

from gittools import GIT_ENV
from pilot_helpers import run_async, settle
from textual.widgets import DataTable

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.screens.status import StatusScreen

SERVICE = "src/orders/services/order_service.py"


def _rows(screen, table_id: str) -> list[list[str]]:
    table = screen.query_one(f"#{table_id}", DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


@run_async
async def test_status_screen_shows_branches_skipped_files_and_stale_records(shop_index):
    repo, index_dir = shop_index
    (repo / ".env").write_text("TOKEN=x\n")
    path = repo / SERVICE
    path.write_text(path.read_text().replace("if order.status == OrderStatus.CANCELLED:",
                                             "if order.status in (OrderStatus.CANCELLED,):"))
    workspace = Workspace(repo, index_dir)
    workspace.search(SearchRequest("cancel order", "main", top_k=10))  # records the failed verification
    app = create_app(workspace, branch="main")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("escape", "I")  # leave the query box, which has the focus without a query
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatusScreen)
        branches = {row[0]: row for row in _rows(screen, "status-branches")}
        assert set(branches) == {"main", "feature/old-arch", "feature/stock-alerts", "release/1.x"}
        assert branches["main"][1] == "at tip" and branches["main"][2] != "0"
        stale = _rows(screen, "status-stale")
        assert ["main", SERVICE, "OrderService.cancel_order", "changed"] in [row[:4] for row in stale]
        assert not screen.query("#status-stale-none")
        # nothing was left out: one dim line says so, not a header row over nothing
        assert str(screen.query_one("#status-skipped-none").content) == "none"
        assert not screen.query("#status-skipped")
        # an uncommitted edit is no reason to re-index (the index holds committed code): it is
        # the work tree's, and the screen says what to do, as `branchwise status` does
        assert "main: " not in str(screen.query_one("#status-advice").content)
        work_tree = str(screen.query_one("#status-work-tree").content)
        assert work_tree.startswith("main: work tree differs from the index: commit, then index (")
        assert f"\n  {SERVICE}" in work_tree
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, StatusScreen)


@run_async
async def test_status_screen_recommends_a_re_index_after_a_new_commit_and_not_before(shop_index):
    repo, index_dir = shop_index
    path = repo / SERVICE
    path.write_text(path.read_text().replace("if order.status == OrderStatus.CANCELLED:",
                                             "if order.status in (OrderStatus.CANCELLED,):"))
    for step in ("edited", "committed"):
        if step == "committed":
            subprocess.run(["git", "-C", str(repo), "commit", "-qam", "cancel: a tuple of states"], check=True,
                           env={**os.environ, **GIT_ENV})
        app = create_app(Workspace(repo, index_dir), branch="main")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("escape", "I")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, StatusScreen)
            advice = str(screen.query_one("#status-advice").content)
            work_tree = [str(w.content) for w in screen.query("#status-work-tree")]
            if step == "edited":
                assert advice == "Every indexed branch is up to date"
                assert len(work_tree) == 1 and "commit, then index" in work_tree[0]
            else:  # committed: the index is behind the tip, and the work tree agrees with HEAD
                assert advice.startswith("Re-index recommended (i): ") and "main: 1 indexed file(s) changed" in advice
                assert work_tree == []
