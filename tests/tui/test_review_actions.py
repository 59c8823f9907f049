"""Each action of the review app, driven by Pilot over the shop sample (hashing embedder).

One test per action or state the reviewer can see: opening the editor at the line, copying,
sorting, filtering, the score column, marks and bulk labels, notes, the bundle preview (and
its staying open on an error), the visible `t` and scope states, the commit dates, the model
loading state, the help's key rows and `q` from the help.
"""

from __future__ import annotations

import json
import stat

from pilot_helpers import run_async, select_row, settle, write_stats_log

from branchwise.models import Label, Verdict
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.keys import KEYS
from branchwise_tui.widgets.keybar import KeyBar
from branchwise_tui.widgets.preview import Preview, file_lines_hunk
from branchwise_tui.widgets.results import ResultsTable

QUERY = "make order cancellation idempotent"
SIZE = (160, 45)


def _app(shop_index, query=QUERY, scope="all"):
    repo, index_dir = shop_index
    return create_app(Workspace(repo, index_dir), branch="main", query=query, scope=scope)


def _row_texts(table: ResultsTable, column: str) -> list[str]:
    return [str(table.get_cell_at((row, list(table.columns).index(column)))) for row in range(table.row_count)]


@run_async
async def test_enter_opens_the_editor_at_the_line(shop_index, tmp_path, monkeypatch):
    log = tmp_path / "editor.log"
    editor = tmp_path / "fake-editor"
    editor.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\n')
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("VISUAL", str(editor))
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        current = select_row(app, lambda r: r.verdict is Verdict.CURRENT)
        await pilot.press("enter")
        await settle(pilot)
    args = log.read_text().split("\n")
    assert args[0] == f"+{current.current_start_line or current.start_line}"
    assert args[1] == str(shop_index[0] / current.path)


@run_async
async def test_enter_on_a_deleted_result_says_it_is_not_in_the_work_tree(shop_index, monkeypatch):
    monkeypatch.setenv("VISUAL", "true")
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_row(app, lambda r: r.verdict is Verdict.DELETED and r.current_path is None)
        await pilot.press("enter")
        await pilot.pause()
        assert any("not in the work tree" in n.message for n in app._notifications)


@run_async
async def test_copy_citation_location_and_chunk(shop_index):
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        current = select_row(app, lambda r: r.verdict is Verdict.CURRENT)
        await pilot.pause()
        await pilot.press("c")
        assert app.clipboard == "\n".join(app.session.header(current))
        assert app.clipboard.startswith(f"Source: {current.path}#L")
        await pilot.press("p")
        assert app.clipboard == f"{current.current_path or current.path}:{current.current_start_line or current.start_line}"
        await pilot.press("y")
        assert app.clipboard == current.text


@run_async
async def test_sort_by_key_and_by_header_click(shop_index):
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        ranks = [r.rank for r in table.rows_shown]
        assert ranks == sorted(ranks)
        await pilot.press("o")  # the next column after rank: the verdict
        assert table.sort_key == "verdict"
        order = [r.verdict for r in table.rows_shown]
        assert order == sorted(order, key=lambda v: list(Verdict).index(v))
        await pilot.press("O")
        assert [r.verdict for r in table.rows_shown] == sorted(order, key=lambda v: list(Verdict).index(v), reverse=True)
        table.sort_by("path")
        await pilot.pause()
        assert [r.path for r in table.rows_shown] == sorted(r.path for r in table.rows_shown)
        assert "sorted by path" in str(table.border_title)
        assert _row_texts(table, "path") == [r.path for r in table.rows_shown]  # rows follow the order


@run_async
async def test_filter_by_verdict_label_and_path_class(shop_index):
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        total = len(table.rows_shown)
        await pilot.press("f")
        await pilot.pause()
        app.screen.query_one("#filter-verdict").value = "deleted"
        await pilot.click("#filter-apply")
        await pilot.pause()
        assert table.rows_shown and all(r.verdict is Verdict.DELETED for r in table.rows_shown)
        assert len(table.rows_shown) < total
        assert "verdict=deleted" in str(table.border_title)
        await pilot.press("f")
        await pilot.pause()
        await pilot.click("#filter-clear")
        await pilot.pause()
        assert len(table.rows_shown) == total
        from branchwise_tui.widgets.results import Filter
        table.set_filter(Filter(label="none"))
        assert len(table.rows_shown) == total  # nothing labelled yet
        table.set_filter(Filter(path_class=app.session.results[0].path_class))
        assert all(r.path_class is app.session.results[0].path_class for r in table.rows_shown)


@run_async
async def test_score_column_can_be_shown_and_hidden(shop_index):
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        assert "score" not in [c.value for c in table.columns]
        await pilot.press("S")
        assert "score" in [c.value for c in table.columns]
        assert _row_texts(table, "score")[0] == f"{table.rows_shown[0].score:.3f}"
        await pilot.press("S")
        assert "score" not in [c.value for c in table.columns]


@run_async
async def test_mark_rows_and_label_them_at_once(shop_index):
    repo, index_dir = shop_index
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        from branchwise_tui.widgets.results import Filter
        table.set_filter(Filter(verdict=Verdict.DELETED))
        await pilot.pause()
        deleted = list(table.rows_shown)
        assert len(deleted) >= 2
        await pilot.press("asterisk")
        assert len(table.marked) == len(deleted)
        await pilot.press("x")
        await settle(pilot)
        assert all(r.label is Label.EXCLUDE for r in deleted)
        assert not table.marked  # a bulk label clears the marks
        table.move_cursor(row=0)
        await pilot.press("space")  # one mark: labels act on it, not on the cursor row
        assert len(table.marked) == 1
    stored = Workspace(repo, index_dir).search(SearchRequest(QUERY, "main", scope="all"))
    assert {r.version_id for r in stored if r.label is Label.EXCLUDE} == {r.version_id for r in deleted}


@run_async
async def test_edit_a_labels_note(shop_index, tmp_path):
    repo, index_dir = shop_index
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        deleted = select_row(app, lambda r: r.verdict is Verdict.DELETED)
        await pilot.press("n")
        await pilot.pause()
        note_input = app.screen.query_one("#note-input")
        note_input.value = "the idempotency design"
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.notes[deleted.version_id] == "the idempotency design"
        assert "Purpose: reference for the idempotency design only" in "\n".join(app.session.header(deleted))
    from branchwise.review import labels
    stored = labels.notes_for(Workspace(repo, index_dir).store.conn, repo.name, [deleted.version_id])
    assert stored == {deleted.version_id: "the idempotency design"}


@run_async
async def test_bundle_preview_lists_the_order_and_token_total_then_writes(shop_index, tmp_path):
    app = _app(shop_index)
    bundle = tmp_path / "b.md"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        excluded = select_row(app, lambda r: r.verdict is Verdict.CURRENT)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        assert type(screen).__name__ == "BundleScreen"
        items = screen.items
        included = [i for i in items if i.included]
        handlings = [i.handling for i in included]
        assert handlings == sorted(handlings, key=lambda h: h != "use")  # code to use first, then references
        skipped = next(i for i in items if i.result is excluded)
        assert not skipped.included and skipped.tokens == 0 and "excluded" in skipped.handling
        assert all(i.tokens > 0 for i in included)
        total = screen.plan.total_tokens
        assert total > sum(i.tokens for i in included)  # the whole bundle: title and lists too
        assert f"{total:,} tokens" in str(screen.query_one("#bundle-summary").content)
        assert screen.query_one("#bundle-items").row_count == len(items)
        screen.query_one("#bundle-path").value = str(bundle)
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ != "BundleScreen"
    text = bundle.read_text(encoding="utf-8")
    headings = [line.split(". ", 1)[1] for line in text.splitlines() if line.startswith("#") and ". " in line]
    assert headings == [i.result.identity.qualified_name for i in included]  # the preview's order is the bundle's
    manifest = json.loads(bundle.with_name("b.md.manifest.json").read_text(encoding="utf-8"))
    assert manifest["total_tokens"] == total


@run_async
async def test_export_error_keeps_the_preview_open_with_the_path(shop_index, tmp_path):
    app = _app(shop_index)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    bad = str(blocker / "bundle.md")  # a path under a file cannot be written
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#bundle-path").value = bad
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "BundleScreen"
        assert app.screen.query_one("#bundle-path").value == bad
        assert "Not written" in str(app.screen.query_one("#bundle-error").content)


@run_async
async def test_text_choice_and_scope_state_are_shown_in_words(shop_changed_index):
    shop_index = shop_changed_index
    app = _app(shop_index, query="save the order in the repository")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        changed = select_row(app, lambda r: r.verdict is Verdict.CHANGED)
        row = table.rows_shown.index(changed)
        verdicts = list(table.columns).index("verdict")
        assert "[current]" in str(table.get_cell_at((row, verdicts)))
        await pilot.press("t")
        await pilot.pause()
        row = table.rows_shown.index(changed)
        assert "[indexed]" in str(table.get_cell_at((row, verdicts)))
        label = app.query_one("#scope-label")
        assert "ON" in str(label.content)
        await pilot.press("a")
        await pilot.pause()
        assert "off" in str(label.content)


@run_async
async def test_indexed_column_shows_the_commit_date(shop_index):
    repo, _ = shop_index
    app = _app(shop_index)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(ResultsTable)
        dates = _row_texts(table, "indexed")
    workspace = Workspace(*shop_index)
    expected = [workspace.repo.commit_time(r.commit).date().isoformat() for r in table.rows_shown]
    assert dates == expected
    assert len(set(dates)) > 1  # the sample's results come from commits of different days


@run_async
async def test_model_loading_is_visible_and_preloaded_without_a_query(shop_index):
    import threading

    app = _app(shop_index, query="")
    gate = threading.Event()  # the hashing model loads at once: hold it to see the loading state
    warm = app.session.warm
    app.session.warm = lambda: (gate.wait(10), warm())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        bar = app.query_one(KeyBar)
        assert "loading model" in bar.status and bar.busy
        assert not app.session.model_ready
        assert app.query_one("#query").placeholder.startswith(f"Ask about the code of {shop_index[0].name}")
        gate.set()
        await settle(pilot)
        assert app.session.model_ready  # loaded before any query was typed
        assert bar.status == "model ready" and not bar.busy
        with app.session._lock:  # the search waits for the core while the state is checked
            await pilot.press(*"refund", "enter")
            await pilot.pause(0.1)
            assert app.query_one(ResultsTable).loading and bar.busy and "searching" in bar.status
        await settle(pilot)
        assert not bar.busy and "results" in bar.status


@run_async
async def test_blank_query_is_not_searched(shop_index):
    app = _app(shop_index, query="")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "enter")
        await settle(pilot)
        assert app.session.request is None
        assert any("blank" in n.message for n in app._notifications)


@run_async
async def test_help_lists_every_key_and_q_quits_from_it(shop_index):
    app = _app(shop_index)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        keys = app.screen.query_one("#help-keys")
        table = keys.content  # the rows drawn: (key, description) pairs side by side
        cells = [str(cell) for column in table.columns for cell in column.cells]
        assert all(key.description in cells and key.shown in cells for key in KEYS if key.bound)
        moves = str(app.screen.query_one("#help-moves").content)  # the keys every list and pane has
        assert all(key.shown in moves and key.description in moves for key in KEYS if not key.bound)
        assert app.screen.query_one("#help-moves").region.bottom <= 24
        hidden = {b.key for b in app.BINDINGS} - {k.key for k in KEYS} - {"escape"}  # Esc: back to the results
        assert not hidden, f"bindings missing from the help: {hidden}"
        assert table.row_count >= len(KEYS) // 2
        assert keys.region.height == table.row_count  # every row is on screen
        assert app.screen.query_one("#help-box").region.right <= 80
        assert app.screen.query_one("#help-footer").region.bottom <= 24
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


def test_hunk_header_uses_file_line_numbers():
    assert file_lines_hunk("@@ -4,4 +4,6 @@", 41, 41) == "@@ -44,4 +44,6 @@"
    assert file_lines_hunk("@@ -1 +1,2 @@ def f():", 10, 20) == "@@ -10 +20,2 @@ def f():"
    assert file_lines_hunk("+@@ not a header", 10, 20) == "+@@ not a header"


@run_async
async def test_preview_diff_carries_file_line_numbers(shop_changed_index):
    shop_index = shop_changed_index
    app = _app(shop_index, query="save the order in the repository")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        changed = select_row(app, lambda r: r.verdict is Verdict.CHANGED and r.start_line > 1)
        await pilot.pause()
        diff = app.query_one(Preview).query_one("#diff").content.code
    hunks = [line for line in diff.splitlines() if line.startswith("@@")]
    assert hunks
    old_start = int(hunks[0].split()[1][1:].split(",")[0])
    assert changed.start_line <= old_start <= changed.end_line
    assert changed.start_line > 1  # so chunk-relative numbers would have been caught


def test_every_table_has_rows_on_screen(shop_index):
    """At 80x24 and 160x45, every data table on every screen is at least a row tall."""
    import asyncio

    from branchwise_tui.screens.stats import StatsScreen

    write_stats_log(*shop_index)

    async def check(size):
        app = _app(shop_index)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            seen = []
            for step in ("main", "help", "bundle", "stats"):
                if step == "help":
                    await pilot.press("question_mark")
                elif step == "bundle":
                    await pilot.press("escape", "e")
                elif step == "stats":
                    await pilot.press("escape")
                    await pilot.pause()
                    app.push_screen(StatsScreen(app.session.statistics()))
                await settle(pilot)  # the bundle preview is built in a worker
                for table in app.screen.query("DataTable"):
                    seen.append((step, table.id, table.region.height))
                for widget in app.screen.query("#help-keys, #results, #preview"):
                    seen.append((step, widget.id, widget.region.height))
            return seen

    for size in ((80, 24), (160, 45)):
        seen = asyncio.run(check(size))
        assert {s for s, _, _ in seen} == {"main", "help", "bundle", "stats"}, seen
        assert "stats-sessions" in {t for s, t, _ in seen if s == "stats"}
        assert all(height >= 2 for _, _, height in seen), (size, seen)
