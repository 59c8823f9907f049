"""Keystrokes in the review app go where the reviewer means them, and every label or note
change can be undone (issue #30), driven by Pilot over the shop sample (hashing embedder).

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
        return workspace.labels()
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


@run_async
async def test_enter_with_nothing_typed_since_moves_to_the_results(shop_index):
    app = _app(shop_index, query="")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*FIRST, "enter")
        await settle(pilot)
        assert app.session.results
        assert isinstance(app.focused, ResultsTable)
