"""The review app driven by Pilot over the shop sample: search, relabel, export, persist."""

from __future__ import annotations

from pilot_helpers import run_async, select_row, settle
from rich.syntax import Syntax

from branchwise.models import Label, Verdict
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.widgets.preview import Preview
from branchwise_tui.widgets.results import ResultsTable

QUERY = "make order cancellation idempotent"
SIZE = (160, 45)


def _preview_text(app, part: str) -> str:
    content = app.query_one(Preview).query_one(part).content
    return content.code if isinstance(content, Syntax) else str(content)


@run_async
async def test_type_query_relabel_export_and_persist(backend, shop_index, tmp_path):
    """On each vector backend: the review app is the same over FAISS and over Qdrant."""
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", scope="all")
    bundle = tmp_path / "out" / "bundle.md"
    bundle.parent.mkdir()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#query")
        await pilot.press(*QUERY, "enter")
        await settle(pilot)
        results = app.session.results
        assert results, "the search found nothing"
        assert [r.rank for r in results] == sorted(r.rank for r in results)
        assert app.query_one(ResultsTable).row_count == len(results)

        deleted = select_row(app, lambda r: r.verdict is Verdict.DELETED)
        await pilot.pause()
        assert "Last seen:" in _preview_text(app, "#status")
        await pilot.press("r")
        await settle(pilot)
        assert deleted.label is Label.REFERENCE_ONLY

        current = select_row(app, lambda r: r.verdict is Verdict.CURRENT)
        await pilot.press("x")
        await settle(pilot)
        assert current.label is Label.EXCLUDE
        await pilot.press("x")  # pressing the same label again clears it
        await settle(pilot)
        assert current.label is None
        await pilot.press("u")
        await settle(pilot)
        assert current.label is Label.USE

        await pilot.press("e")
        await settle(pilot)  # the preview is built in a worker
        path_input = app.screen.query_one("#bundle-path")
        assert path_input.value == "branchwise-bundle.md"
        path_input.value = str(bundle)
        await pilot.press("enter")
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert bundle.exists(), notes
        assert any(str(bundle) in m for m in notes), notes  # the core's summary line is shown
    text = bundle.read_text(encoding="utf-8")
    assert current.identity.qualified_name in text
    assert "do not copy the implementation" in text  # the reference-only chunk's header

    later = Workspace(repo, index_dir)
    again = later.search(SearchRequest(QUERY, "main", scope="all"))
    labels = {r.version_id: r.label for r in again}
    assert labels[deleted.version_id] is Label.REFERENCE_ONLY
    assert labels[current.version_id] is Label.USE


@run_async
async def test_changed_result_shows_diff_and_t_switches_text(shop_changed_index):
    shop_index = shop_changed_index
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", query="save the order in the repository", scope="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        changed = select_row(app, lambda r: r.verdict is Verdict.CHANGED)
        await pilot.pause()
        assert "(indexed," in _preview_text(app, "#diff")
        assert "CURRENT text" in _preview_text(app, "#status")
        await pilot.press("t")
        await pilot.pause()
        assert "INDEXED text" in _preview_text(app, "#status")
        assert changed.version_id in app.session.use_indexed_text


@run_async
async def test_worker_error_becomes_a_notification(shop_index):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="no-such-branch", query=QUERY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("no-such-branch" in m for m in messages), messages
        assert app.is_running


@run_async
async def test_quit_records_the_session_in_the_stats(shop_index):
    from branchwise.review import stats

    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", query=QUERY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
    records, _ = stats.load_records(index_dir, repo.name)
    assert [r["kind"] for r in records] == ["review"]
    assert records[0]["results"] == len(app.session.results)


@run_async
async def test_help_and_palette_list_the_actions(shop_index):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape", "question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"stats")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "StatsScreen"
