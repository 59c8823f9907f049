"""Pinning from the review app: the `P` key over the shop sample (hashing embedder), and the
results table's pin mark in snapshots at 80x24 and 160x45 (checked by eye when regenerated)."""

from __future__ import annotations

import pytest
from pilot_helpers import run_async, select_row, settle
from textual.widgets import Input

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.widgets.results import PIN, ResultsTable

QUERY = "make order cancellation idempotent"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


def _third_own(app):
    """The third result of the branch's own code (not history): pinning moves it up."""
    own = [r for r in app.session.results if not r.history]
    return select_row(app, lambda r: r is own[2])


@run_async
async def test_p_pins_the_selected_symbol_and_the_next_search_puts_it_first(shop_index):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", query=QUERY)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        chosen = _third_own(app)
        assert chosen.rank == 3 and not chosen.pinned
        await pilot.press("P")
        await settle(pilot)
        assert chosen.pinned
        table = app.query_one(ResultsTable)
        rank_cells = [str(table.get_cell_at((row, 0))) for row in range(table.row_count)]
        assert rank_cells[2] == f"{PIN}3" and all(PIN not in cell for i, cell in enumerate(rank_cells) if i != 2)
        assert f"{PIN} 1 pinned" in str(table.border_title)
        assert any("Pinned" in n.message for n in app._notifications)
        [pin] = app.session.workspace.review.pins("main")
        assert (pin.path, pin.qualified_name) == (chosen.path, chosen.identity.qualified_name)

        await pilot.press("slash", "enter")  # search again: the pin comes first
        await settle(pilot)
        first = app.session.results[0]
        assert (first.identity.qualified_name, first.path, first.pinned) == (
            chosen.identity.qualified_name, chosen.path, True)
        assert str(table.get_cell_at((0, 0))) == f"{PIN}1"

        await pilot.press("escape")
        select_row(app, lambda r: r.pinned)
        await pilot.press("P")  # again: unpin
        await settle(pilot)
        assert app.session.workspace.review.pins() == [] and not app.session.results[0].pinned
    other = Workspace(repo, index_dir).search(SearchRequest(QUERY, "main"))
    assert not any(r.pinned for r in other)


@pytest.mark.parametrize("size", SIZES)
def test_a_pinned_result_is_marked_in_the_table(shop_index, snap_compare, size):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", query=QUERY)

    async def pin_the_third(pilot):
        await settle(pilot)
        _third_own(app)
        await pilot.press("P")
        await settle(pilot)
        for box in app.screen.query(Input):
            box.cursor_blink = False
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=pin_the_third)
