"""The results table and the preview on a real project (click), at 80x24 and 200x50.

click has long dotted names (`Option.resolve_envvar_value`), release lines (`release/7.x`) and
code that moved between them, which the samples lack. At 80 columns the table drops what is the
same on every row (the branch, the commit's date: the title says them once) before it cuts a
name, cuts a name at its left so the last part stays whole, and keeps the branch when all
history mixes branches; the preview numbers the code from the line its header cites.

Fixed for the snapshots: the click bundle's pinned commits, the hashing embedder, the
indexer's clock (tests/tui/conftest.py) and the input cursor. Regenerate with
`pytest tests/tui --snapshot-update` after checking the new SVGs by eye.
"""

from __future__ import annotations

import re

import pytest
from pilot_helpers import run_async, settle
from textual.widgets import Input

from branchwise.models import Verdict
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.widgets.preview import Preview
from branchwise_tui.widgets.results import ResultsTable

QUERY = "envvar value of an option"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((200, 50), id="200x50")]
SOURCE = re.compile(r"^Source: (\S+)#L(\d+)-L(\d+)")


def _app(click_index, scope: str, against: str | None = None):
    """release/7.x's results; verified against `against` (another branch's tip) when given, so
    7.x's own code that main moved and changed comes back moved (`--scope all` no longer
    brings main's copy of a symbol 7.x has: history only adds what the branch lacks)."""
    app = create_app(Workspace(*click_index), branch="release/7.x", query=QUERY, scope=scope)
    app.session.against = against
    return app


def _moved(result) -> bool:
    """Verified at other lines than it was indexed at: the header cites the current ones."""
    return result.current_start_line is not None and result.current_start_line != result.start_line


def _select_moved(app):
    table = app.query_one(ResultsTable)
    row = next(i for i, r in enumerate(table.rows_shown) if _moved(r) and r.verdict is Verdict.CHANGED)
    table.move_cursor(row=row)
    return table.rows_shown[row]


def _column(table: ResultsTable, key: str) -> list[str]:
    index = list(table.columns).index(key)
    return [str(table.get_cell_at((row, index))) for row in range(table.row_count)]


async def _steady(pilot) -> None:
    await settle(pilot)
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_click_results_on_one_branch(click_index, hashing_model, snap_compare, size):
    assert snap_compare(_app(click_index, "branch"), terminal_size=size, run_before=_steady)


@pytest.mark.parametrize("size", SIZES)
def test_click_all_history_on_a_moved_result(click_index, hashing_model, snap_compare, size):
    async def select_the_moved_result(pilot):
        await settle(pilot)
        _select_moved(pilot.app)
        await _steady(pilot)

    assert snap_compare(_app(click_index, "all", against="main"), terminal_size=size, run_before=select_the_moved_result)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
@run_async
async def test_names_keep_their_last_part_and_history_rows_their_branch(click_index, hashing_model, size):
    for scope in ("branch", "all"):
        app = _app(click_index, scope)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            table = app.query_one(ResultsTable)
            names = [r.identity.qualified_name for r in table.rows_shown]
            assert "Option.resolve_envvar_value" in names
            for name, cell in zip(names, _column(table, "symbol"), strict=True):
                assert cell.endswith(name.rsplit(".", 1)[-1]), (size, scope, name, cell)
            branches = {r.branch for r in table.rows_shown}
            if len(branches) > 1:  # all history: rows from several branches must say which
                assert scope == "all"
                assert _column(table, "branch") == [r.branch for r in table.rows_shown]
            else:
                title = str(table.border_title)
                assert "branch" in [c.value for c in table.columns] or f"all from {branches.pop()}" in title, title
            select = app.query_one("#branch")
            assert select.region.width >= len("release/7.x") + 9  # border, padding, arrow: never wrapped
            assert select.region.height == 3


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
@run_async
async def test_moved_code_is_numbered_from_the_line_its_header_cites(click_index, hashing_model, size):
    app = _app(click_index, "all", against="main")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        moved = _select_moved(app)
        await pilot.pause()
        preview = app.query_one(Preview)
        header = str(preview.query_one("#citation").content)
        code = preview.query_one("#code").content
    source = SOURCE.match(header)
    assert source, header
    assert int(source[2]) == moved.current_start_line != moved.start_line
    assert code.start_line == int(source[2])  # the first line number drawn is the header's
    assert code.code == (moved.current_text or moved.text).rstrip("\n")  # and the text is the one cited
