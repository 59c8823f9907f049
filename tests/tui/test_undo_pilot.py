"""Every label or note change in the review app can be undone, and a note stands on its own
(issues #30 and #46), driven by Pilot over the shop sample (hashing embedder)."""

from __future__ import annotations

from pilot_helpers import run_async, select_row, settle
from test_keys_pilot import FIRST, SIZE, _app, _stored_labels

from branchwise.models import Label, Verdict
from branchwise.review import labels
from branchwise.review.labels import effective_label
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_tui.widgets.keybar import KeyBar
from branchwise_tui.widgets.results import ResultsTable


@run_async
async def test_u_undoes_label_and_note_changes_one_at_a_time_in_the_store(shop_index):
    repo, index_dir = shop_index
    workspace = Workspace(repo, index_dir)
    found = workspace.search(SearchRequest(FIRST, "main", scope="all"))
    kept = next(r for r in found if r.verdict is Verdict.DELETED)
    # a label from another day, by another reviewer
    labels.set_label(workspace.store.conn, repo.name, kept, Label.USE, "an earlier reviewer's note",
                     reviewer="someone else", labelled_at="2026-01-02T03:04:05+00:00")
    workspace.close()
    before = _stored_labels(shop_index)
    assert [b["version_id"] for b in before] == [kept.version_id]

    app = _app(shop_index, scope="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = app.query_one(KeyBar)
        other = select_row(app, lambda r: r.verdict is Verdict.CURRENT)
        await pilot.press("x")
        await settle(pilot)
        assert other.label is Label.EXCLUDE
        assert "U undoes" in bar.status and other.identity.qualified_name in bar.status
        select_row(app, lambda r: r.version_id == kept.version_id)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert type(app.screen).__name__ == "NoteScreen"
        await pilot.press("ctrl+a", "ctrl+k", *"the retry design", "enter")
        await settle(pilot)
        assert app.session.notes[kept.version_id] == "the retry design"
        assert "note on" in bar.status and "U undoes" in bar.status
        changed = _stored_labels(shop_index)
        assert {(c["label"], c["note"]) for c in changed} == {
            ("exclude", ""), ("reference-only", "the retry design")}

        await pilot.press("U")  # the note
        await settle(pilot)
        assert app.session.notes[kept.version_id] == "an earlier reviewer's note"
        assert "undone" in bar.status
        await pilot.press("U")  # the reference-only label
        await settle(pilot)
        assert {(c["version_id"], c["label"]) for c in _stored_labels(shop_index)} >= {(kept.version_id, "use")}
        await pilot.press("U")  # the exclude label
        await settle(pilot)
        assert _stored_labels(shop_index) == before  # reviewer and time too: as it was
        assert other.label is None
        assert next(r for r in app.session.results if r.version_id == kept.version_id).label is Label.USE
        await pilot.press("U")
        await settle(pilot)
        assert bar.status == "nothing to undo"
        assert _stored_labels(shop_index) == before


@run_async
async def test_label_keys_do_nothing_away_from_the_table(shop_index):
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab")  # to the preview
        assert type(app.focused).__name__ == "Preview"
        await pilot.press("u", "r", "x", "n", "space", "asterisk")
        await settle(pilot)
        assert len(app.screen_stack) == 1
        assert all(r.label is None for r in app.session.results)
        assert _stored_labels(shop_index) == []
        await pilot.press("escape", "u")  # back on the table the key labels
        await settle(pilot)
        assert app.query_one(ResultsTable).selected.label is not None


@run_async
async def test_a_note_leaves_the_label_as_it_was_and_U_takes_it_back(shop_index):
    """`n` stores the note alone: the row keeps its default handling, in the store too (issue 46)."""
    def stored() -> list:
        return [(s["version_id"], s["label"], s["note"]) for s in _stored_labels(shop_index)]

    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        row = select_row(app, lambda r: r.verdict is Verdict.CURRENT)
        vid = row.version_id
        await pilot.press("n")
        await pilot.pause()
        assert "The label stays as it is (use by default)" in str(app.screen.query_one(".dialog-help").render())
        await pilot.press(*"the retry design", "enter")
        await settle(pilot)
        assert stored() == [(vid, None, "the retry design")]
        assert row.label is None and effective_label(row) is Label.USE
        assert app.session.notes[vid] == "the retry design"
        await pilot.press("u")  # a label now: the note stays with it
        await settle(pilot)
        assert stored() == [(vid, "use", "the retry design")]
        await pilot.press("u")  # the same label again clears it: the note stands alone again
        await settle(pilot)
        assert stored() == [(vid, None, "the retry design")] and row.label is None
        assert app.session.notes[vid] == "the retry design"
        for expected in ([(vid, "use", "the retry design")], [(vid, None, "the retry design")], []):
            await pilot.press("U")
            await settle(pilot)
            assert stored() == expected
        assert vid not in app.session.notes and row.label is None
