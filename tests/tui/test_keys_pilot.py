"""Keystrokes in the review app go where the reviewer means them (issue #30; undo is in
test_undo_pilot.py), driven by Pilot over the shop sample (hashing embedder).

The typing tests hold the search in a worker until half the query is typed, let it finish,
then type the rest one key at a time: whatever finished in the background, the query box must
hold exactly the typed text and nothing else may have changed (no label, note, scope, dialog).
"""

from __future__ import annotations

import threading

from pilot_helpers import run_async, settle

from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.widgets.results import ResultsTable

FIRST = "make order cancellation idempotent"
#: every key here is also a command on the results table (u r x n a t f e o s i b y c p …)
TYPED = "parse a date string from user input, then export it"
SIZE = (120, 36)


def _app(shop_index, query=FIRST, scope="branch"):
    repo, index_dir = shop_index
    return create_app(Workspace(repo, index_dir), branch="main", query=query, scope=scope)


def _stored_labels(shop_index) -> list:
    workspace = Workspace(*shop_index)
    try:
        return workspace.review.labels()
    finally:
        workspace.close()


def _gate_search(app) -> threading.Event:
    """Hold every search until the returned event is set."""
    gate = threading.Event()
    search = app.session.search

    def held(request):
        gate.wait(20)
        return search(request)

    app.session.search = held
    return gate


async def _until_searched(pilot) -> None:
    for _ in range(500):
        if pilot.app.session.request is not None:  # set when a search's results are shown
            return
        await pilot.pause(0.02)
    raise AssertionError("the search never finished")


def _untouched(app, shop_index, labels_before, scope_before) -> None:
    assert len(app.screen_stack) == 1, f"a screen opened: {type(app.screen).__name__}"
    assert app.query_one("#scope").value is scope_before
    assert _stored_labels(shop_index) == labels_before
    assert all(r.label is None for r in app.session.results)
    assert not app.query_one(ResultsTable).marked


@run_async
async def test_typing_while_a_search_runs_all_goes_to_the_query_box(shop_index):
    labels_before = _stored_labels(shop_index)
    app = _app(shop_index)
    gate = _gate_search(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("slash")
        box = app.query_one("#query")
        box.value = ""
        half = len(TYPED) // 2
        for char in TYPED[:half]:
            await pilot.press(char)
        gate.set()  # the first search finishes while the reviewer is typing
        await _until_searched(pilot)
        for char in TYPED[half:]:
            await pilot.press(char)
            await pilot.pause()
        await settle(pilot)
        assert box.value == TYPED
        assert app.focused is box
        _untouched(app, shop_index, labels_before, False)


@run_async
async def test_typing_right_after_enter_all_goes_to_the_query_box(shop_index):
    labels_before = _stored_labels(shop_index)
    app = _app(shop_index, query="")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gate = _gate_search(app)
        for char in FIRST:
            await pilot.press(char)
        await pilot.press("enter")
        box = app.query_one("#query")
        await pilot.press("ctrl+a", "ctrl+k")  # the reviewer clears the box to type the next question
        for char in TYPED[:5]:
            await pilot.press(char)
        gate.set()
        await _until_searched(pilot)
        for char in TYPED[5:]:
            await pilot.press(char)
            await pilot.pause()
        await settle(pilot)
        assert box.value == TYPED
        assert app.focused is box
        assert [r for r in app.session.results], "the first search showed its results"
        _untouched(app, shop_index, labels_before, False)


def _burst(app, keys: str) -> None:
    """Queue every key at once, as a terminal delivers fast typing (Pilot waits after each)."""
    from textual import events
    from textual.keys import _character_to_key

    for char in keys:
        name = char if char.isalnum() else _character_to_key(char)
        event = events.Key(name, char)
        event.set_sender(app)
        app._driver.send_message(event)


@run_async
async def test_a_burst_of_keys_after_slash_all_goes_to_the_query_box(shop_index):
    """`/` and a question typed faster than the app handles keys: the focus moves to the box
    before the next key is handled, and nothing selected on focus swallows what follows."""
    labels_before = _stored_labels(shop_index)
    app = _app(shop_index)
    gate = _gate_search(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        gate.set()
        await _until_searched(pilot)
        await settle(pilot)
        assert isinstance(app.focused, ResultsTable)  # the search was given on the command line
        _burst(app, "/" + TYPED + " to src/out.md")
        await settle(pilot)
        box = app.query_one("#query")
        assert box.value == TYPED + " to src/out.md"  # a `/` in the box is text
        assert app.focused is box
        _untouched(app, shop_index, labels_before, False)


#: the question of issue 48's scripted run (bench/typing_run.py)
ASKED = "refund a payment and notify by email"


@run_async
async def test_slash_and_a_question_typed_at_once_on_mount_leave_just_the_question(shop_index):
    """Issue 48, item 8: `/` the moment the app is mounted (the empty query box already has the
    focus: there `/` is the key that goes to it, not text), then the whole question at once."""
    labels_before = _stored_labels(shop_index)
    app = _app(shop_index, query="")
    async with app.run_test(size=(100, 30)) as pilot:
        _burst(app, "/" + ASKED)
        await settle(pilot)
        box = app.query_one("#query")
        assert box.value == ASKED
        assert app.focused is box
        assert box.content_region.width > len(ASKED)  # shown whole, cursor too: the branch selector gave way
        _untouched(app, shop_index, labels_before, False)


@run_async
async def test_slash_and_a_question_typed_at_once_while_a_search_runs(shop_index):
    """The same while the first search (from the command line) is still running: the question
    replaces the old one, and the search finishing takes neither the focus nor a key."""
    labels_before = _stored_labels(shop_index)
    app = _app(shop_index)
    gate = _gate_search(app)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.query_one(ResultsTable).loading  # held by the gate
        _burst(app, "/" + ASKED)
        await settle(pilot)
        gate.set()
        await _until_searched(pilot)
        await settle(pilot)
        box = app.query_one("#query")
        assert box.value == ASKED
        assert app.focused is box
        assert app.session.results  # the first search's results are shown
        _untouched(app, shop_index, labels_before, False)


@run_async
async def test_enter_with_nothing_typed_since_moves_to_the_results(shop_index):
    app = _app(shop_index, query="")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*FIRST, "enter")
        await settle(pilot)
        assert app.session.results
        assert isinstance(app.focused, ResultsTable)


# every list and pane by keyboard -----------------------------------------------------------------


@run_async
async def test_results_table_takes_vim_keys_and_home_end_and_tab_reaches_the_preview(shop_index):
    app = _app(shop_index, scope="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        last = table.row_count - 1
        assert last > 2
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == last
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("end")
        assert table.cursor_row == last
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("tab")
        preview = app.query_one("#preview")
        assert app.focused is preview
        assert "scroll" in str(preview.border_subtitle)
        if preview.max_scroll_y:
            await pilot.press("j")
            assert preview.scroll_y > 0
            await pilot.press("G")
            assert preview.scroll_y == preview.max_scroll_y
            await pilot.press("g")
            assert preview.scroll_y == 0
        await pilot.press("shift+tab")
        assert app.focused is table


async def _scrolls_with_the_keys(pilot, pane) -> None:
    """`pane` has the focus and more to show than fits: every scroll key moves it."""
    assert pilot.app.focused is pane, pilot.app.focused
    assert pane.max_scroll_y > 0, "nothing to scroll at this size"
    for key, where in (("down", lambda: pane.scroll_y == 1), ("j", lambda: pane.scroll_y == 2),
                       ("k", lambda: pane.scroll_y == 1), ("end", lambda: pane.scroll_y == pane.max_scroll_y),
                       ("home", lambda: pane.scroll_y == 0), ("pagedown", lambda: pane.scroll_y > 1),
                       ("pageup", lambda: pane.scroll_y == 0), ("G", lambda: pane.scroll_y == pane.max_scroll_y),
                       ("g", lambda: pane.scroll_y == 0), ("up", lambda: pane.scroll_y == 0)):
        await pilot.press(key)
        await pilot.pause()
        assert where(), (key, pane.scroll_y, pane.max_scroll_y)


SMALL = (80, 16)  # every one of these screens has more than this to show


@run_async
async def test_status_screen_scrolls_with_the_keys(shop_index):
    app = _app(shop_index, query="")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("escape", "I")
        await settle(pilot)
        assert type(app.screen).__name__ == "StatusScreen"
        await _scrolls_with_the_keys(pilot, app.screen.query_one("#status-body"))
        await pilot.press("escape")
        assert len(app.screen_stack) == 1


@run_async
async def test_stats_screen_scrolls_with_the_keys(shop_index):
    from pilot_helpers import write_stats_log

    write_stats_log(*shop_index)
    app = _app(shop_index, query="")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("escape", "s")
        await settle(pilot)
        assert type(app.screen).__name__ == "StatsScreen"
        await _scrolls_with_the_keys(pilot, app.screen.query_one("#stats-body"))


@run_async
async def test_help_scrolls_with_the_keys(shop_index):
    app = _app(shop_index)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        await _scrolls_with_the_keys(pilot, app.screen.query_one("#help-scroll"))
        await pilot.press("escape")
        assert len(app.screen_stack) == 1


@run_async
async def test_tour_code_scrolls_with_the_keys_and_arrows_walk_the_steps(shop_index):
    from test_modes_pilot import march_tour

    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", tour=march_tour(repo))
    async with app.run_test(size=(80, 20)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert type(screen).__name__ == "TourScreen"
        pane = screen.query_one("#tour-code-scroll")
        for _ in range(3):  # the first step whose code is longer than the pane
            if pane.max_scroll_y:
                break
            await pilot.press("right")
            await pilot.pause()
        await _scrolls_with_the_keys(pilot, pane)
        step = screen.index
        await pilot.press("left" if step else "right")
        assert screen.index != step


@run_async
async def test_bundle_preview_by_keyboard(shop_index, tmp_path):
    app = _app(shop_index, scope="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        screen = app.screen
        assert type(screen).__name__ == "BundleScreen"
        path, rows, write = (screen.query_one(s) for s in ("#bundle-path", "#bundle-items", "#bundle-ok"))
        assert app.focused is path
        await pilot.press("down", "down")  # the rows move from the path box
        assert rows.cursor_row == 2
        await pilot.press("pagedown")
        assert rows.cursor_row > 2
        await pilot.press("tab")
        assert app.focused is write
        await pilot.press("tab")
        assert app.focused is rows
        await pilot.press("g")
        assert rows.cursor_row == 0
        await pilot.press("G")
        assert rows.cursor_row == rows.row_count - 1
        await pilot.press("shift+tab", "shift+tab")
        assert app.focused is path
        path.value = str(tmp_path / "b.md")
        await pilot.press("enter")
        await settle(pilot)
        assert (tmp_path / "b.md").exists()
        assert len(app.screen_stack) == 1


@run_async
async def test_filter_dialog_by_keyboard(shop_index):
    from branchwise.models import Verdict

    app = _app(shop_index, scope="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        total = len(table.rows_shown)
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        fields = [screen.query_one(s) for s in
                  ("#filter-text", "#filter-verdict", "#filter-label", "#filter-class", "#filter-apply", "#filter-clear")]
        assert app.focused is fields[0]
        for field in fields[1:]:  # Tab reaches every field in turn
            await pilot.press("tab")
            assert app.focused is field
        for field in reversed(fields[:-1]):  # and Shift+Tab goes back
            await pilot.press("shift+tab")
            assert app.focused is field
        await pilot.press("tab", "enter")  # Enter opens the verdict list ...
        await pilot.pause()
        downs = list(Verdict).index(Verdict.DELETED) + 1  # below the "any verdict" prompt
        await pilot.press(*["down"] * downs, "enter")  # ... the arrows pick, Enter chooses
        await pilot.pause()
        picked = fields[1].value
        assert picked == Verdict.DELETED.value
        await pilot.press("tab", "tab", "tab", "enter")  # Apply
        await pilot.pause()
        assert len(app.screen_stack) == 1
        assert table.rows_shown and all(r.verdict.value == picked for r in table.rows_shown)
        assert len(table.rows_shown) < total

        await pilot.press("f")
        await pilot.pause()
        await pilot.press("escape")  # cancels: the filter stays
        await pilot.pause()
        assert table.filter.verdict.value == picked
        await pilot.press("f")
        await pilot.pause()
        await pilot.press(*"shipped", "enter")  # Enter in the text box applies
        await pilot.pause()
        assert table.filter.text == "shipped"
        assert all(r.verdict.value == picked for r in table.rows_shown)


@run_async
async def test_text_filter_is_fuzzy_over_path_and_symbol(shop_index):
    from branchwise_tui.widgets.results import Filter

    app = _app(shop_index, scope="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        every = list(table.rows_shown)
        target = next(r for r in every if "." in r.identity.qualified_name)
        first, last = target.identity.qualified_name.split(".")[0], target.identity.qualified_name.split(".")[-1]
        pattern = f"{first[:3]}{last[:3]}".upper()  # letters in order, not together, any case
        table.set_filter(Filter(text=pattern))
        shown = table.rows_shown
        assert target in shown and len(shown) <= len(every)
        assert "“" + pattern + "”" in str(table.border_title)
        folder = target.path.split("/")[0]
        table.set_filter(Filter(text=f"{folder} {last}"))  # words: every one must match
        assert target in table.rows_shown
        assert all(folder in r.path for r in table.rows_shown)
        table.set_filter(Filter(text="zzzqqq"))
        assert table.rows_shown == []


@run_async
async def test_note_and_export_dialogs_by_keyboard(shop_index, tmp_path):
    from test_modes_pilot import march_tour

    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert app.focused is app.screen.query_one("#note-input")
        await pilot.press(*"why", "escape")  # Esc cancels: nothing stored
        await settle(pilot)
        assert len(app.screen_stack) == 1 and _stored_labels(shop_index) == []
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"why", "enter")
        await settle(pilot)
        assert [label["note"] for label in _stored_labels(shop_index)] == ["why"]

    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", tour=march_tour(repo))
    out = tmp_path / "tour.md"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        path, ok, cancel = (screen.query_one(s) for s in ("#export-path", "#export-ok", "#export-cancel"))
        assert app.focused is path
        await pilot.press("tab")
        assert app.focused is ok
        await pilot.press("tab")
        assert app.focused is cancel
        await pilot.press("shift+tab", "shift+tab")
        assert app.focused is path
        path.value = str(out)
        await pilot.press("enter")
        await settle(pilot)
        assert out.exists()
