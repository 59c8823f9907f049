"""The review app over a repository whose names git allows and terminals misread: a Latin-1 file
name and branches named with U+0085, U+2028, U+202E and U+009B.

The app's title, its branch list, its results and its status screen show every such name
escaped (never the raw character, which would reorder or break what is drawn), and switching
to such a branch searches it. A Pilot test of state, not a snapshot (the snapshots are the
review-app engineer's to regenerate).
"""

from __future__ import annotations

import os

from pilot_helpers import run_async, settle
from textual.widgets import DataTable, Select

from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.screens.status import StatusScreen
from gittools import GitBuilder

BRANCHES = {"odd\u0085name": "odd\\u0085name", "ls\u2028sep": "ls\\u2028sep",
            "rtl\u202eevil": "rtl\\u202eevil", "csi\u009bx": "csi\\u009bx"}
RAW = ("\u0085", "\u2028", "\u202e", "\u009b")


def _odd_index(tmp_path):
    repo = GitBuilder(tmp_path / "repo")
    repo.write("plain.py", "def plain_helper(x):\n    return x + 1\n")
    repo.write(os.fsdecode(b"caf\xe9.py"), "def brew_coffee(cups):\n    return cups * 2\n")
    repo.commit("init")
    for branch in BRANCHES:
        repo.branch(branch)
    index = tmp_path / "index"
    Workspace(repo.path, index).index([], all_branches=True)
    return repo.path, index


def _cells(table: DataTable) -> list[str]:
    return [str(cell) for i in range(table.row_count) for cell in table.get_row_at(i)]


@run_async
async def test_the_app_escapes_odd_branch_names_and_searches_them(tmp_path, hashing_model):
    repo, index = _odd_index(tmp_path)
    app = create_app(Workspace(repo, index), branch="rtl\u202eevil", query="brew coffee")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith("repo @ rtl\\u202eevil")
        select = app.query_one("#branch", Select)
        labels = {str(prompt): value for prompt, value in select._options}
        for branch, escaped in BRANCHES.items():
            assert labels[escaped] == branch  # shown escaped, selects the real name
        assert not any(char in label for label in labels for char in RAW)
        results = app.session.results
        assert any(r.path == "caf\\xe9.py" and r.verdict.value == "current" for r in results)
        assert not any(char in cell for cell in _cells(app.query_one("#results", DataTable)) for char in RAW)

        select.value = "csi\u009bx"  # the reviewer picks another odd branch
        await settle(pilot)
        assert app.session.branch == "csi\u009bx" and app.sub_title.startswith("repo @ csi\\u009bx")

        await pilot.press("escape", "I")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatusScreen)
        shown = _cells(screen.query_one("#status-branches", DataTable))
        assert set(BRANCHES.values()) <= set(shown)
        assert not any(char in cell for cell in shown for char in RAW)
