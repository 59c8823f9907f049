"""Snapshots of the diff review screen and the tour player at 160x45, on fixed data.

Fixed: the shop sample's pinned commits, the hashing embedder and the indexer's clock
(tests/tui/conftest.py). Regenerate with `pytest tests/tui --snapshot-update` after checking
the new SVGs by eye.
"""

from __future__ import annotations

from pilot_helpers import settle
from test_modes_pilot import march_tour

from branchwise.workspace import Workspace
from branchwise_tui.app import create_app

SIZE = (160, 45)


def test_diff_review_screen(shop_index, snap_compare):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", diff=("feature/old-arch", "main"))

    async def select_the_handler(pilot):
        await settle(pilot)
        table = app.screen.query_one("#changes")
        table.move_cursor(row=next(i for i, c in enumerate(app.screen.diff.changes)
                                   if c.qualified_name == "CancelOrderHandler.handle"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=select_the_handler)


def test_tour_player_on_a_moved_step(shop_index, snap_compare):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", tour=march_tour(repo))

    async def go_to_the_moved_step(pilot):
        await settle(pilot)
        await pilot.press("n", "n")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=go_to_the_moved_step)
