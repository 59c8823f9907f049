"""The diff review mode and the tour player, driven by Pilot over the shop sample.

Diff: `feature/old-arch` against `main` (forked in March; it kept and reworked
`CancelOrderHandler`, which main later deleted). Tour: written at the March commit, played at
main's tip, where one step is deleted and one moved with the mailer rename.
"""

from __future__ import annotations

import json
import subprocess

from pilot_helpers import run_async, settle
from textual.widgets import DataTable, Static

from branchwise.git.repo import GitRepo
from branchwise.models import Label
from branchwise.review.tours import Tour
from branchwise.review.tours.record import step_at
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app
from branchwise_tui.screens.diff import DiffScreen
from branchwise_tui.screens.help import HelpScreen
from branchwise_tui.screens.tour import TourScreen

SIZE = (160, 45)


def march_tour(repo_path) -> Tour:
    repo = GitRepo(repo_path)
    march = subprocess.run(["git", "log", "--reverse", "--format=%H", "main"], cwd=repo_path,
                           capture_output=True, text=True, check=True).stdout.split()[0]
    steps = [
        ("src/orders/handlers/cancel_handler.py", "CancelOrderHandler", "Cancelling is idempotent."),
        ("src/orders/handlers/create_handler.py", "CreateOrderHandler.handle", "Orders are created here."),
        ("src/notifications/email.py", "EmailNotifier", "The customer hears about it by e-mail."),
    ]
    return Tour("Cancelling an order", "Written in March", [step_at(repo, march, *step) for step in steps])


def _text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


@run_async
async def test_diff_review_labels_impact_and_exports_the_review_bundle(shop_index, tmp_path):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", diff=("feature/old-arch", "main"))
    out = tmp_path / "review.md"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        diff = screen.diff
        changes = screen.query_one("#changes", DataTable)
        assert changes.row_count == len(diff.changes) > 0
        handler = next(i for i, c in enumerate(diff.changes) if c.qualified_name == "CancelOrderHandler.handle")
        changes.move_cursor(row=handler)
        await pilot.pause()
        change = diff.changes[handler]
        assert change.kind == "changed" and change.base_status == "deleted"
        header = _text(screen, "#change-header")
        assert f"L{change.new.start_line}-L{change.new.end_line} on feature/old-arch" in header
        assert "main has deleted it" in header
        code = str(screen.query_one("#change-code", Static).content)
        assert f"{change.new.start_line}" in code.splitlines()[0]  # real line numbers, not 1
        # label the first impact hit of a change that has one, as reference-only
        with_impact = next(i for i, c in enumerate(diff.changes) if c.impact)
        changes.move_cursor(row=with_impact)
        await pilot.pause()
        await pilot.press("tab")
        assert app.focused.id == "impact"
        await pilot.press("r")
        await settle(pilot)
        labelled = diff.changes[with_impact].impact[0].result
        assert labelled.label is Label.REFERENCE_ONLY
        await pilot.press("e")
        await pilot.pause()
        field = app.screen.query_one("#export-path")
        field.value = str(out)
        await pilot.press("enter")
        await settle(pilot)
    bundle = out.read_text()
    manifest = json.loads(out.with_name("review.md.manifest.json").read_text())
    assert bundle.startswith("# Review of feature/old-arch against main")
    assert "Change: changed against the merge-base" in bundle and "(before)" in bundle
    kinds = [chunk.get("impact") for chunk in manifest["chunks"]]
    first_impact = kinds.index(next(k for k in kinds if k))
    assert all(k is None for k in kinds[:first_impact]) and all(k for k in kinds[first_impact:])  # changes first
    ref = next(c for c in manifest["chunks"] if c.get("version_id") == labelled.version_id)
    assert ref["label"] == "reference-only"
    assert "Purpose: reference for" in bundle


@run_async
async def test_playing_a_tour_walks_steps_and_exports_it(shop_index, tmp_path):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", tour=march_tour(repo))
    out = tmp_path / "tour.md"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TourScreen)
        assert "Step 1/3" in _text(screen, "#tour-step") and "deleted" in _text(screen, "#tour-step")
        assert "Cancelling is idempotent." in _text(screen, "#tour-note")
        await pilot.press("n")
        assert "Step 2/3" in _text(screen, "#tour-step") and "unchanged-older" in _text(screen, "#tour-step")
        await pilot.press("n", "n")  # stops at the last step
        step = _text(screen, "#tour-step")
        assert "Step 3/3" in step and "moved" in step
        assert "Source: src/notifications/mailer.py#L" in _text(screen, "#tour-header")
        assert "class EmailNotifier" in str(screen.query_one("#tour-code", Static).content.code)
        await pilot.press("p")
        assert "Step 2/3" in _text(screen, "#tour-step")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen) and ("n / →", "next step") in app.screen.keys
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        await settle(pilot)
    bundle = out.read_text()
    assert bundle.startswith("# A walk through Cancelling an order")
    assert bundle.index("Step 1:") < bundle.index("Step 2:") < bundle.index("Step 3:")
    assert "The customer hears about it by e-mail." in bundle
    manifest = json.loads(out.with_name("tour.md.manifest.json").read_text())
    assert [c["status"] for c in manifest["chunks"]] == ["deleted", "ok", "moved"]
