"""What leaves the review app, and what it looks up: the editor, the clipboard, the bundle
export, an index refresh, the statistics and the index status.

Blocking work (building the bundle preview, re-indexing, reading the statistics log) runs in
thread workers that post messages; their handlers open the screen that shows the answer.
The app (app.py) mixes this in; it owns the widgets.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from branchwise.git.names import work_tree_path
from branchwise.models import Verdict
from branchwise.wording import plural
from textual import on, work
from textual.app import SuspendNotSupported
from textual.widgets import DataTable

from branchwise_tui.editor import chosen_editor, editor_command
from branchwise_tui.jobs.base import ReviewAppBase
from branchwise_tui.messages import (
    BundlePlanned,
    ExportCompleted,
    IndexRefreshed,
    StatsLoaded,
)
from branchwise_tui.screens.bundle import BundleScreen
from branchwise_tui.screens.stats import StatsScreen
from branchwise_tui.screens.status import StatusLoaded, StatusScreen
from branchwise_tui.session import DEFAULT_BUNDLE
from branchwise_tui.widgets.keybar import KeyBar
from branchwise_tui.widgets.results import ResultsTable


class ReviewOutputs(ReviewAppBase):
    """The open, copy, export, refresh, statistics and status keys of the review app."""


    @on(DataTable.RowSelected, "#results")
    def row_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_editor()

    def action_open_editor(self) -> None:
        """Open the result's file at its line in $VISUAL/$EDITOR, handing the terminal over."""
        result = self.selected
        if result is None:
            return
        editor = chosen_editor()
        if editor is None:
            self.notify("Set $VISUAL or $EDITOR to open results in your editor.", severity="warning")
            return
        root = self.session.workspace.repo.work_tree
        path = work_tree_path(root, result.current_path or result.path) if root else None
        if path is None or not path.is_file():
            self.notify(f"{result.current_path or result.path} is not in the work tree "
                        f"({result.verdict.value if result.verdict else 'unverified'}).", severity="warning")
            return
        line = result.current_start_line or result.start_line
        command = editor_command(editor, path, line)
        try:
            with self.suspend():
                returncode = subprocess.run(command).returncode
        except SuspendNotSupported:
            if not self.is_headless:
                self.notify("This terminal cannot hand over to an editor.", severity="warning")
                return
            # headless (no terminal to hand over): the editor runs without one
            returncode = subprocess.run(command, stdin=subprocess.DEVNULL).returncode
        except OSError as error:
            self.notify(f"Could not start {command[0]}: {error}", severity="error")
            return
        if returncode:
            self.notify(f"{command[0]} exited with status {returncode}.", severity="warning")

    def action_copy(self, what: str) -> None:
        result = self.selected
        if result is None:
            return
        takes_current = self.session.takes_current_text(result) or (
            result.verdict in (Verdict.CURRENT, Verdict.UNCHANGED_OLDER) and result.current_start_line is not None)
        path = (result.current_path or result.path) if takes_current else result.path
        line = result.current_start_line if takes_current and result.current_start_line else result.start_line
        if what == "citation":
            text, named = "\n".join(self.session.header(result)), "the citation header"
        elif what == "location":
            text, named = f"{path}:{line}", f"{path}:{line}"
        else:
            text = result.current_text if self.session.takes_current_text(result) and result.current_text is not None else result.text
            named = f"the text of {result.identity.qualified_name}"
        self.copy_to_clipboard(text)
        self.notify(f"Copied {named}.")


    def action_export(self) -> None:
        if self.session.request is None:
            self.notify("Search first: the bundle holds the reviewed results.", severity="warning")
            return
        self.query_one(KeyBar).set_status("building the bundle preview", busy=True)
        self.plan_bundle()

    @work(thread=True, exclusive=True, group="plan", name="plan", exit_on_error=False)
    def plan_bundle(self) -> None:
        self.post_message(BundlePlanned(self.session.bundle_plan()))

    def on_bundle_planned(self, message: BundlePlanned) -> None:
        self.query_one(KeyBar).set_status(plural(len(self.session.results), "result"))
        self.push_screen(BundleScreen(self.session, message.plan, DEFAULT_BUNDLE), self._exported)

    def _exported(self, summary: str | None) -> None:
        if summary is not None:
            self.post_message(ExportCompleted(summary, Path()))

    def on_export_completed(self, message: ExportCompleted) -> None:
        self.notify(message.summary, title="Bundle written", timeout=8)

    def action_refresh_index(self) -> None:
        self.query_one(ResultsTable).loading = True
        self.query_one(KeyBar).set_status("re-indexing", busy=True)
        self.run_refresh()

    @work(thread=True, exclusive=True, group="refresh", name="refresh", exit_on_error=False)
    def run_refresh(self) -> None:
        summary = self.session.refresh_index()
        self.post_message(IndexRefreshed(self.session.branches(), summary or "nothing to do"))

    def action_stats(self) -> None:
        self.load_stats()

    @work(thread=True, exclusive=True, group="stats", name="stats", exit_on_error=False)
    def load_stats(self) -> None:
        self.post_message(StatsLoaded(self.session.statistics()))

    def on_stats_loaded(self, message: StatsLoaded) -> None:
        self.push_screen(StatsScreen(message.summary))

    def action_index_status(self) -> None:
        self.load_status()

    @work(thread=True, exclusive=True, group="status", name="status", exit_on_error=False)
    def load_status(self) -> None:
        self.post_message(StatusLoaded(self.session.workspace.status()))

    def on_status_loaded(self, message: StatusLoaded) -> None:
        self.push_screen(StatusScreen(message.status))
