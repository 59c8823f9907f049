"""Every screen and dialog of the review app, drawn on fixed data, and none with a table
squashed to nothing.

The snapshots cover what test_review_snapshots.py and test_modes_snapshots.py do not: the
export dialog, the statistics screen before any session was recorded, the index status
screen, the filter and note dialogs, and the diff review and tour player at 80x24. Fixed as
there: the sample's pinned commits, the hashing embedder, the indexer's clock and the input
cursor (not blinking). Regenerate with `pytest tests/tui --snapshot-update` after checking
the new SVGs by eye.

The height test opens each screen at 80x24 and asserts that every table on it that is
displayed gets at least one row of the terminal (a table laid out at zero height passes a
`row_count` check while showing nothing).
"""

from __future__ import annotations

import pytest
from pilot_helpers import run_async, select_row, settle, write_stats_log
from test_modes_pilot import march_tour
from rich.table import Table
from textual.errors import NoWidget
from textual.widgets import DataTable, Input, Static

from branchwise.models import Verdict
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app

QUERY = "make order cancellation idempotent"
SIZES = {"80x24": (80, 24), "160x45": (160, 45)}


async def _steady(pilot) -> None:
    await settle(pilot)
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


# each screen: how to build the app over (repository, index) and how to get to the screen ------


def _search_app(repo, index_dir):
    return create_app(Workspace(repo, index_dir), branch="main", query=QUERY, scope="all")


def _plain_app(repo, index_dir):
    return create_app(Workspace(repo, index_dir), branch="main")


def _stats_app(repo, index_dir):
    write_stats_log(repo, index_dir)
    return _plain_app(repo, index_dir)


def _diff_app(repo, index_dir):
    return create_app(Workspace(repo, index_dir), branch="main", diff=("feature/old-arch", "main"))


def _tour_app(repo, index_dir):
    return create_app(Workspace(repo, index_dir), branch="main", tour=march_tour(repo))


def _press(*keys: str, on_current_row: bool = False):
    """How to reach a screen: wait for the first search, optionally select a current result,
    press `keys`, and wait again."""

    async def reach(pilot) -> None:
        await settle(pilot)
        if on_current_row:
            select_row(pilot.app, lambda r: r.verdict is Verdict.CURRENT)
        await pilot.press(*keys)
        await _steady(pilot)

    return reach


#: name -> (app builder, how to reach the screen)
SCREENS = {
    "results": (_search_app, _press()),
    "help": (_search_app, _press("question_mark")),
    # without a query the query box has the focus: Escape leaves it
    "stats-with-sessions": (_stats_app, _press("escape", "s")),
    "stats-without-sessions": (_plain_app, _press("escape", "s")),
    "status": (_plain_app, _press("escape", "I")),
    "filter": (_search_app, _press("f")),
    "note": (_search_app, _press("u", "n", on_current_row=True)),
    "bundle-preview": (_search_app, _press("e", on_current_row=True)),
    "diff": (_diff_app, _press()),
    "diff-export": (_diff_app, _press("e")),
    "tour": (_tour_app, _press("n")),
    "tour-export": (_tour_app, _press("e")),
}

#: drawn in the other snapshot files already, at both sizes
ELSEWHERE = {"results", "help", "stats-with-sessions", "bundle-preview"}
SNAPSHOTS = [
    pytest.param(name, size, id=f"{name}-{size}")
    for name in SCREENS if name not in ELSEWHERE
    for size in SIZES
    if not (name in ("diff", "tour") and size == "160x45")  # test_modes_snapshots.py has those
]


@pytest.mark.parametrize(("name", "size"), SNAPSHOTS)
def test_screen(shop_index, snap_compare, name, size):
    build, reach = SCREENS[name]
    assert snap_compare(build(*shop_index), terminal_size=SIZES[size], run_before=reach)


#: screens whose point is a table: it must be there, with rows, and visible
TABLE_SCREENS = {"results", "help", "stats-with-sessions", "status", "bundle-preview", "diff"}


def _tables(screen) -> list:
    """The displayed tables with rows: DataTables, and Statics drawing a rich Table (help)."""
    found = [t for t in screen.query(DataTable) if t.display and t.row_count]
    found += [s for s in screen.query(Static) if s.display and isinstance(s.content, Table) and s.content.row_count]
    return found


@pytest.mark.parametrize("name", list(SCREENS))
@run_async
async def test_every_displayed_table_has_room_at_80x24(shop_index, name):
    build, reach = SCREENS[name]
    app = build(*shop_index)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot)
        tables = _tables(app.screen)
        if name in TABLE_SCREENS:
            assert tables, f"{name}: no table with rows on {type(app.screen).__name__}"
        for table in tables:
            try:
                placed = app.screen.find_widget(table)
            except NoWidget:
                raise AssertionError(f"{name}: table {table!r} is not on the screen") from None
            shown = placed.region.intersection(placed.clip)
            assert shown.height > 0 and shown.width > 0, f"{name}: table {table!r} is drawn in {shown}"
