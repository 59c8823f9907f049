"""The diff review screen at 80x24, driven by Pilot over the shop sample: the change list
filtered by text and by kind, moved with the review app's keys, and a change opened in place
of the list (the screen is too narrow for both side by side).
"""

from __future__ import annotations

from pilot_helpers import run_async, settle
from textual.widgets import DataTable, Input, Static

from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.screens.diff import DiffScreen


def _symbols(table: DataTable) -> list[str]:
    return [str(table.get_row_at(row)[2]) for row in range(table.row_count)]


@run_async
async def test_the_change_list_filters_by_text_and_kind_and_moves_with_the_app_keys(shop_index):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", diff=("feature/old-arch", "main"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        changes = screen.query_one("#changes", DataTable)
        everything = [c.qualified_name for c in screen.diff.changes]
        assert _symbols(changes) == everything and len(everything) > 3
        # text: the rows whose symbol or path holds every word typed
        await pilot.press("slash")
        assert app.focused is screen.query_one("#change-filter", Input)
        await pilot.press(*"handler")
        await pilot.pause()
        expected = [c.qualified_name for c in screen.diff.changes
                    if "handler" in f"{c.path} {c.qualified_name}".lower()]
        assert 0 < len(expected) < len(everything)
        assert _symbols(changes) == expected
        assert f"showing {len(expected)}" in str(screen.query_one("#diff-summary", Static).content)
        # Esc clears the text; `f` then shows one kind at a time, in the order of KIND_STYLES
        await pilot.press("escape")
        await pilot.pause()
        assert _symbols(changes) == everything and app.focused is changes
        await pilot.press("f")
        await pilot.pause()
        added = [c.qualified_name for c in screen.diff.changes if c.kind == "added"]
        assert added and _symbols(changes) == added
        await pilot.press("f")
        await pilot.pause()
        assert _symbols(changes) == [c.qualified_name for c in screen.diff.changes if c.kind == "changed"]
        await pilot.press("escape")
        await pilot.pause()
        assert _symbols(changes) == everything
        # the review app's keys move through the list
        await pilot.press("G")
        assert changes.cursor_row == len(everything) - 1
        await pilot.press("g")
        assert changes.cursor_row == 0
        await pilot.press("j", "j", "k")
        assert changes.cursor_row == 1
        await pilot.press("end")
        assert changes.cursor_row == len(everything) - 1
        await pilot.press("home")
        assert changes.cursor_row == 0
        # at 80 columns Enter opens the change in place of the list, Esc comes back
        await pilot.press("enter")
        await pilot.pause()
        assert screen.has_class("-detail")
        assert not changes.display and screen.query_one("#diff-detail").display  # the change has the screen
        header = str(screen.query_one("#change-header", Static).content)
        assert screen.diff.changes[0].qualified_name in header
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.has_class("-detail") and app.focused is changes
        assert changes.display and not screen.query_one("#diff-detail").display
