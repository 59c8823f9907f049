"""The review app: search a branch, check each result's verdict, label it, export the bundle.

`create_app` is the one factory: `branchwise review` (core/branchwise/commands.py) and the
tests both build the app through it. The app is a thin layer over the core: the blocking work
(search with verification, export, index refresh, statistics, label writes) runs in thread
workers that call the `ReviewSession` and post messages back; handlers on the UI thread update
the widgets, and one handler turns any worker's error into a notification.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Label as TextLabel, Select, Switch
from textual.worker import Worker, WorkerState

from branchwise.errors import BranchwiseError
from branchwise.models import Label, Result
from branchwise.search import SearchRequest
from branchwise.workspace import Workspace
from branchwise_tui.commands import ReviewCommands
from branchwise_tui.messages import (
    BundleMeasured, ExportCompleted, IndexRefreshed, LabelSaved, SearchCompleted, StatsLoaded,
)
from branchwise_tui.screens.export import ExportScreen
from branchwise_tui.screens.help import HelpScreen
from branchwise_tui.screens.stats import StatsScreen
from branchwise_tui.session import DEFAULT_BUNDLE, ReviewSession
from branchwise_tui.widgets.preview import Preview
from branchwise_tui.widgets.results import ResultsTable

#: Workers whose errors end in a notification, with what the user was doing.
WORK_NAMES = {
    "search": "Search failed",
    "export": "Export failed",
    "refresh": "Index refresh failed",
    "stats": "Statistics failed",
    "label": "Label not saved",
    "branches": "Could not list the indexed branches",
    "measure": "Could not count the bundle's tokens",
}


class BranchwiseApp(App[None]):
    CSS_PATH = ["app.tcss", "modals.tcss", "stats.tcss", "modes.tcss"]
    TITLE = "branchwise review"
    AUTO_FOCUS = None  # on_mount decides: the results when a query was given, else the query box
    COMMANDS = App.COMMANDS | {ReviewCommands}

    #: (key, shown as, action, title, description): the keys, the help screen and the palette
    ACTIONS = [
        ("u", "u", "label('use')", "Use", "Label the selected result: use it (press again to clear)"),
        ("r", "r", "label('reference-only')", "Reference", "Label it reference-only: the idea, not the code"),
        ("x", "x", "label('exclude')", "Exclude", "Label it exclude: keep it out of the bundle"),
        ("t", "t", "toggle_text", "Current/indexed", "For a changed result: bundle the current or the indexed text"),
        ("e", "e", "export", "Export", "Write the bundle and its manifest (asks for the path)"),
        ("s", "s", "stats", "Stats", "Statistics: failure-ratio trend, reasons, re-index advice"),
        ("slash", "/", "focus_query", "Query", "Type a new question (Enter searches)"),
        ("b", "b", "focus_branch", "Branch", "Choose the branch to search"),
        ("a", "a", "toggle_scope", "All history", "Switch between this branch and all history"),
        ("i", "i", "refresh_index", "Re-index", "Bring the indexed branches up to their tips"),
        ("question_mark", "?", "help", "Help", "This list of keys"),
        ("q", "q", "quit", "Quit", "Leave (records this session in the statistics)"),
    ]
    BINDINGS = [
        *(Binding(key, action, title, key_display=shown) for key, shown, action, title, _ in ACTIONS),
        Binding("escape", "focus_results", "Results", show=False),
    ]

    def __init__(self, workspace: Workspace, branch: str, query: str = "", scope: str = "branch",
                 mode_screen: Screen | None = None) -> None:
        super().__init__()
        self.mode_screen = mode_screen  # diff review or tour player: opened over the main screen
        self.session = ReviewSession(workspace, branch)
        self.initial_query = query
        self.initial_scope = scope
        self.sub_title = f"{workspace.repo.name} @ {branch}"

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="controls"):
            yield Input(self.initial_query, placeholder="Ask for code, e.g. make order cancellation idempotent",
                        id="query")
            yield Select([(self.session.branch, self.session.branch)], value=self.session.branch,
                         allow_blank=False, id="branch")
            yield TextLabel("all history", id="scope-label")
            yield Switch(self.initial_scope == "all", id="scope")
        yield ResultsTable(id="results")
        yield Preview(id="preview")
        yield Footer()

    def on_mount(self) -> None:
        self.load_branches()
        if self.mode_screen is not None:
            self.push_screen(self.mode_screen)
            return
        if self.initial_query.strip():
            self.start_search()
        else:
            self.query_one("#query", Input).focus()
            self.query_one(Preview).clear("Type a question and press Enter. Press ? for the keys.")

    # searching ----------------------------------------------------------------------------

    def current_request(self) -> SearchRequest | None:
        query = self.query_one("#query", Input).value.strip()
        if not query:
            return None
        scope = "all" if self.query_one("#scope", Switch).value else "branch"
        return SearchRequest(query=query, branch=self.session.branch, scope=scope)

    def start_search(self) -> None:
        request = self.current_request()
        if request is None:
            return
        self.query_one(ResultsTable).loading = True
        self.run_search(request)

    @work(thread=True, exclusive=True, group="search", name="search", exit_on_error=False)
    def run_search(self, request: SearchRequest) -> None:
        results, target = self.session.search(request)
        self.post_message(SearchCompleted(request, results, target))

    def on_search_completed(self, message: SearchCompleted) -> None:
        self.session.accept(message.request, message.results, message.target)
        table = self.query_one(ResultsTable)
        table.loading = False
        table.show(self.session.results)
        table.focus()  # a loading table cannot take the focus, so it takes it now
        if not message.results:
            self.query_one(Preview).clear("No results on this branch: try other words or all history (a).")
        self.measure_bundle()

    @on(Input.Submitted, "#query")
    def query_submitted(self) -> None:
        self.start_search()

    @on(Select.Changed, "#branch")
    def branch_changed(self, event: Select.Changed) -> None:
        if event.value is Select.BLANK or event.value == self.session.branch:
            return
        self.session.branch = str(event.value)
        self.sub_title = f"{self.session.repository} @ {self.session.branch}"
        self.start_search()

    @on(Switch.Changed, "#scope")
    def scope_changed(self) -> None:
        self.start_search()

    @work(thread=True, group="branches", name="branches", exit_on_error=False)
    def load_branches(self) -> None:
        self.post_message(IndexRefreshed(self.session.branches(), ""))

    def on_index_refreshed(self, message: IndexRefreshed) -> None:
        names = [b.name for b in message.branches]
        if self.session.branch not in names:
            names.insert(0, self.session.branch)
        select = self.query_one("#branch", Select)
        with self.prevent(Select.Changed):  # a new option list is not the reviewer's choice
            select.set_options([(name, name) for name in names])
            select.value = self.session.branch
        if message.summary:
            self.notify(f"Index refreshed: {message.summary}")
            self.start_search()

    # the selected result ------------------------------------------------------------------

    @property
    def selected(self) -> Result | None:
        return self.query_one(ResultsTable).selected

    def on_results_table_highlighted(self, message: ResultsTable.Highlighted) -> None:
        self.show_preview(message.result)

    def show_preview(self, result: Result | None) -> None:
        preview = self.query_one(Preview)
        if result is None:
            preview.clear()
        else:
            preview.show(result, self.session.header(result), self.session.takes_current_text(result))

    def action_label(self, value: str) -> None:
        result = self.selected
        if result is None:
            return
        label = Label(value)
        self.save_label(result, None if result.label is label else label)

    @work(thread=True, group="label", name="label", exit_on_error=False)
    def save_label(self, result: Result, label: Label | None) -> None:
        self.session.set_label(result, label)
        self.post_message(LabelSaved(result))

    def on_label_saved(self, message: LabelSaved) -> None:
        self.query_one(ResultsTable).refresh_result(message.result)
        if message.result is self.selected:
            self.show_preview(message.result)
        self.measure_bundle()

    def measure_bundle(self) -> None:
        """Count (in a worker) the tokens of the bundle as reviewed so far; shown in the subtitle."""
        session = self.session
        if session.request is not None:
            self.run_measure(session.request, list(session.results), frozenset(session.use_indexed_text))

    @work(thread=True, exclusive=True, group="measure", name="measure", exit_on_error=False)
    def run_measure(self, request: SearchRequest, results: list[Result], use_indexed_text: frozenset[str]) -> None:
        self.post_message(BundleMeasured(self.session.bundle_tokens(request, results, use_indexed_text)))

    def on_bundle_measured(self, message: BundleMeasured) -> None:
        self.sub_title = f"{self.session.repository} @ {self.session.branch} · bundle: {message.tokens} tokens"

    def action_toggle_text(self) -> None:
        result = self.selected
        if result is None or result.current_text is None:
            self.notify("Only a changed result has a current text to choose.", severity="warning")
            return
        takes = self.session.toggle_current_text(result)
        self.show_preview(result)
        self.measure_bundle()
        self.notify(f"The bundle takes the {'current' if takes else 'indexed'} text of {result.identity.qualified_name}.")

    # export, index refresh, statistics -----------------------------------------------------

    def action_export(self) -> None:
        if self.session.request is None:
            self.notify("Search first: the bundle holds the reviewed results.", severity="warning")
            return
        summary = f"{len(self.session.results)} results for “{self.session.request.query}” on {self.session.branch}"
        self.push_screen(ExportScreen(DEFAULT_BUNDLE, summary), self._export_to)

    def _export_to(self, path: Path | None) -> None:
        if path is not None:
            self.run_export(path)

    @work(thread=True, exclusive=True, group="export", name="export", exit_on_error=False)
    def run_export(self, path: Path) -> None:
        report = self.session.export(path)
        self.post_message(ExportCompleted(report.summary_line(), report.path))

    def on_export_completed(self, message: ExportCompleted) -> None:
        self.notify(message.summary, title="Bundle written", timeout=8)

    def action_refresh_index(self) -> None:
        self.query_one(ResultsTable).loading = True
        self.notify("Re-indexing the indexed branches …")
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

    # focus, help, quit ---------------------------------------------------------------------

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_focus_results(self) -> None:
        self.query_one(ResultsTable).focus()

    def action_focus_branch(self) -> None:
        select = self.query_one("#branch", Select)
        select.focus()
        select.expanded = True

    def action_toggle_scope(self) -> None:
        self.query_one("#scope", Switch).toggle()

    def action_help(self) -> None:
        self.push_screen(HelpScreen([(shown, description) for _, shown, _, _, description in self.ACTIONS]))

    async def action_quit(self) -> None:
        try:
            self.session.record()
        except (BranchwiseError, OSError) as error:  # never keep the reviewer from leaving
            self.exit(message=f"branchwise: this session was not recorded in the statistics: {error}")
            return
        self.exit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Review actions act on the results, so they are off while another screen is on top."""
        if len(self.screen_stack) > 1 and action not in ("quit", "help", "command_palette", "pop_screen"):
            return False
        return True

    # errors ------------------------------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state in (WorkerState.ERROR, WorkerState.CANCELLED) and worker.name in ("search", "refresh"):
            self.query_one(ResultsTable).loading = False
        if event.state is WorkerState.ERROR:
            self.notify(str(worker.error), title=WORK_NAMES.get(worker.name, "Error"), severity="error", timeout=10)


def create_app(workspace: Workspace, branch: str, query: str = "", scope: str = "branch",
               diff: tuple[str, str | None] | None = None, tour=None) -> BranchwiseApp:
    """The review app over `workspace`, searching `branch`; runs `query` at once when given.

    `diff=(BRANCH, BASE)` opens the diff review of BRANCH, `tour` (a loaded Tour) the tour player.
    """
    mode_screen = None
    if diff is not None:
        from branchwise_tui.screens.diff import DiffScreen

        mode_screen = DiffScreen(*diff)
    elif tour is not None:
        from branchwise_tui.screens.tour import TourScreen

        mode_screen = TourScreen(tour, branch)
    return BranchwiseApp(workspace, branch, query=query or "", scope=scope, mode_screen=mode_screen)
