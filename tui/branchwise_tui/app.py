"""The review app: search a branch, check each result's verdict, label it, export the bundle.

`create_app` is the one factory: `branchwise review` and the tests both build the app through
it (and `runner.run_app` runs it so that quitting never waits for a worker). The app is a thin
layer over the core: the blocking work (model loading, search with verification, export, index
refresh, statistics, label writes) runs in thread workers that call the `ReviewSession` and
post messages back; handlers on the UI thread update the widgets, and one handler turns any
worker's error into a notification.

Screens beyond the main one live in `screens/` and are pushed by an `action_*` method; a new
screen or mode is a new module there, a row in `keys.KEYS` and one action method here.
"""

from __future__ import annotations

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widgets import Header, Input, Select, Switch
from textual.widgets import Label as TextLabel
from textual.worker import Worker, WorkerState

from branchwise.display import escape_controls
from branchwise.errors import BranchwiseError
from branchwise.models import Result
from branchwise.workspace import Workspace
from branchwise_tui.commands import ReviewCommands
from branchwise_tui.jobs.base import focus_now
from branchwise_tui.jobs.outputs import ReviewOutputs
from branchwise_tui.jobs.searching import ReviewSearch
from branchwise_tui.keys import KEYS
from branchwise_tui.messages import IndexRefreshed
from branchwise_tui.screens.filter import FilterScreen
from branchwise_tui.screens.help import HelpScreen
from branchwise_tui.session import ReviewSession
from branchwise_tui.widgets.keybar import KeyBar
from branchwise_tui.widgets.preview import Preview
from branchwise_tui.widgets.results import Filter, ResultsTable

#: Workers whose errors end in a notification, with what the user was doing.
WORK_NAMES = {
    "search": "Search failed",
    "refresh": "Index refresh failed",
    "stats": "Statistics failed",
    "status": "Index status failed",
    "label": "Label not saved",
    "pin": "Pin not saved",
    "note": "Note not saved",
    "undo": "Undo failed",
    "branches": "Could not list the indexed branches",
    "model": "The model did not load",
    "measure": "Could not count the bundle's tokens",
    "plan": "Could not build the bundle preview",
}

#: Actions that change what the reviewer decided about a result: only a key on the results
#: table runs them (never a key typed elsewhere, nor one pressed while a search runs).
ON_THE_TABLE = frozenset({"label", "edit_note", "toggle_pin", "toggle_text", "toggle_mark", "mark_all", "undo"})
#: What stays available while a dialog or another screen is on top of the main screen.
OVER_OTHER_SCREENS = frozenset({"quit", "help", "command_palette", "pop_screen", "focus_next", "focus_previous"})

#: Widths and heights where the layout changes (see app.tcss).
WIDE = 170  # preview beside the results instead of below
NARROW = 100  # compact controls
SHORT = 30  # no header line
BRANCH_MOST, BRANCH_MOST_NARROW = 36, 24  # the branch selector's widest
#: the query box's fewest cells beside a wide layout's scope switch and its label (30 cells):
#: a question of 40 characters shows whole at 100 columns, where the branch selector gives way
QUERY_LEAST, SCOPE_CELLS = 46, 30


class BranchwiseApp(ReviewSearch, ReviewOutputs):
    CSS_PATH = ["app.tcss", "modals.tcss", "stats.tcss", "modes.tcss", "status.tcss"]
    TITLE = "branchwise review"
    AUTO_FOCUS = None  # on_mount decides: the results when a query was given, else the query box
    COMMANDS = App.COMMANDS | {ReviewCommands}
    KEYS = KEYS
    BINDINGS = [
        *(Binding(k.key, k.action, k.title, key_display=k.shown, show=False, priority=k.first)
          for k in KEYS if k.bound and k.key != "enter"),
        Binding("escape", "focus_results", "Results", show=False),
    ]

    #: set by `runner.run_app`: quitting ends the process at once (see `runner.leave_now`)
    quick_exit = False

    def __init__(self, workspace: Workspace, branch: str, query: str = "", scope: str = "branch",
                 mode_screen: Screen | None = None) -> None:
        super().__init__()
        self.mode_screen = mode_screen  # diff review or tour player: opened over the main screen
        self.session = ReviewSession(workspace, branch)
        self.initial_query = query
        self.initial_scope = scope
        self.sub_title = escape_controls(f"{workspace.repo.name} @ {branch}")
        #: how the running search started, and whether the query box changed since: a finished
        #: search takes the focus to the results only from a box left as it was when Enter was pressed
        self.search_from_enter = False
        self.typed_since_search = False
        #: label and note changes, the last one last: `U` takes them back one at a time
        self.undo_stack: list = []
        self.bundle_tokens: int | None = None
        self.measures_started = 0
        self.branch_names = [branch]  # the branch selector's choices (the indexed branches)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="controls"):
            # no select-on-focus: Textual selects the text after the keys already queued, so
            # a fast typist's first words would be replaced (`/` selects it at once instead)
            yield Input(self.initial_query, id="query", select_on_focus=False,
                        placeholder=f"Ask about the code of {self.session.repository} (Enter searches)")
            yield Select([(escape_controls(self.session.branch), self.session.branch)], value=self.session.branch,
                         allow_blank=False, id="branch")
            yield TextLabel(self._scope_text(self.initial_scope == "all"), id="scope-label")
            yield Switch(self.initial_scope == "all", id="scope")
        with Container(id="body"):
            yield ResultsTable(id="results")
            yield Preview(id="preview")
        yield KeyBar(KEYS, id="keybar")

    def on_mount(self) -> None:
        self.load_branches()
        if self.mode_screen is not None:
            self.push_screen(self.mode_screen)
            return
        self.load_model()
        self.query_one(KeyBar).set_status("loading model", busy=True)
        if self.initial_query.strip():
            self.start_search()
        else:
            focus_now(self.query_one("#query", Input))
            self.query_one(Preview).clear(
                "Type a question and press Enter. Press ? for the keys.\n"
                "The model loads in the background meanwhile.")

    def on_resize(self) -> None:
        width, height = self.size
        self.screen.set_class(width >= WIDE, "-wide")
        self.screen.set_class(width < NARROW, "-narrow")
        self.screen.set_class(height < SHORT, "-short")
        self.query_one("#scope-label", TextLabel).update(self._scope_text(self.query_one("#scope", Switch).value))
        self._fit_branch_selector()

    @on(Select.Changed, "#branch")
    def branch_changed(self, event: Select.Changed) -> None:
        if event.value is Select.NULL or event.value == self.session.branch:
            return
        self.session.branch = str(event.value)
        self.session.index_note = None  # the next search's branch says its own
        self.sub_title = self.session.subtitle()
        self.start_search()

    @on(Switch.Changed, "#scope")
    def scope_changed(self, event: Switch.Changed) -> None:
        self.query_one("#scope-label", TextLabel).update(self._scope_text(event.value))
        self.start_search()

    def _fit_branch_selector(self) -> None:
        """Wide enough for the longest branch name (border, padding and arrow take 9 cells),
        within what the query box can spare; a longer name is cut, never wrapped."""
        longest = max((len(name) for name in self.branch_names), default=8)
        width = self.size.width
        if width and width < NARROW:
            most = BRANCH_MOST_NARROW
        else:
            most = min(BRANCH_MOST, width - QUERY_LEAST - SCOPE_CELLS) if width else BRANCH_MOST
        self.query_one("#branch", Select).styles.width = max(16, min(longest + 9, most))

    def _scope_text(self, all_history: bool) -> str:
        if self.size.width and self.size.width < NARROW:
            return "scope: all" if all_history else "scope: branch"
        return "all history: ON" if all_history else "all history: off"

    @work(thread=True, group="branches", name="branches", exit_on_error=False)
    def load_branches(self) -> None:
        self.post_message(IndexRefreshed(self.session.branches(), ""))

    def on_index_refreshed(self, message: IndexRefreshed) -> None:
        names = [b.name for b in message.branches]
        if self.session.branch not in names:
            names.insert(0, self.session.branch)
        select = self.query_one("#branch", Select)
        with self.prevent(Select.Changed):  # a new option list is not the reviewer's choice
            select.set_options([(escape_controls(name), name) for name in names])
            select.value = self.session.branch
        self.branch_names = names
        self._fit_branch_selector()
        if message.summary:
            self.notify(f"Index refreshed: {message.summary}")
            self.start_search()

    def on_results_table_highlighted(self, message: ResultsTable.Highlighted) -> None:
        self.show_preview(message.result)

    def show_preview(self, result: Result | None) -> None:
        preview = self.query_one(Preview)
        if result is None:
            preview.clear("No result matches the filter (f changes it)." if self.session.results else "")
        else:
            preview.show(result, self.session.header(result), self.session.takes_current_text(result),
                         self.session.shown(result))

    # view: sort, filter, columns ----------------------------------------------------------------

    def action_next_sort(self) -> None:
        self.query_one(ResultsTable).next_sort()

    def action_reverse_sort(self) -> None:
        table = self.query_one(ResultsTable)
        table.sort_by(table.sort_key)

    def action_toggle_score(self) -> None:
        self.query_one(ResultsTable).toggle_score()

    def action_filter(self) -> None:
        table = self.query_one(ResultsTable)

        def apply(chosen: Filter | None) -> None:
            if chosen is not None:
                table.set_filter(chosen)
                focus_now(table)

        self.push_screen(FilterScreen(table.filter), apply)

    # focus, help, quit ------------------------------------------------------------------------

    def action_focus_query(self) -> None:
        """The query box, its text selected (typing replaces it; an arrow key keeps it)."""
        box = self.query_one("#query", Input)
        focus_now(box)
        box.select_all()

    def action_focus_results(self) -> None:
        focus_now(self.query_one(ResultsTable))

    def action_focus_branch(self) -> None:
        select = self.query_one("#branch", Select)
        focus_now(select)
        select.expanded = True

    def action_toggle_scope(self) -> None:
        self.query_one("#scope", Switch).toggle()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(KEYS))

    async def action_quit(self) -> None:
        message = None
        try:
            self.session.record()
        except (BranchwiseError, OSError) as error:  # never keep the reviewer from leaving
            message = f"branchwise: this session was not recorded in the statistics: {error}"
        if self.quick_exit:
            from branchwise_tui.runner import leave_now

            leave_now(self, message)
        self.exit(message=message)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Review actions act on the results, so they are off while another screen is on top
        (moving between a dialog's fields is not); the ones that change a decision about a
        result run only from the results table, and not while it waits for a search."""
        if len(self.screen_stack) > 1:
            return action in OVER_OTHER_SCREENS
        focused = self.screen.focused
        if action == "focus_query" and isinstance(focused, Input):
            # a `/` typed in a box is text (its binding is looked at first: see keys.Key.first),
            # except in the empty query box (focused at start-up): there it is the key that goes to it
            return focused.id == "query" and not focused.value
        if action in ON_THE_TABLE:
            return isinstance(focused, ResultsTable) and not focused.loading
        return True

    # errors -------------------------------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state in (WorkerState.ERROR, WorkerState.CANCELLED) and worker.name in ("search", "refresh"):
            self.query_one(ResultsTable).loading = False
            self.query_one(KeyBar).set_status("")
        if event.state is WorkerState.ERROR:
            if worker.name == "model":
                self.query_one(KeyBar).set_status("model failed")
            self.notify(str(worker.error), title=WORK_NAMES.get(worker.name, "Error"), severity="error", timeout=10)


def create_app(workspace: Workspace, branch: str, query: str = "", scope: str = "branch",
               diff: tuple[str, str | None] | None = None, tour=None) -> BranchwiseApp:
    """The review app over `workspace`, searching `branch`; runs `query` at once when given.

    `diff=(BRANCH, BASE)` opens the diff review of BRANCH, `tour` (a loaded Tour) the tour player.
    """
    mode_screen: Screen | None = None
    if diff is not None:
        from branchwise_tui.screens.diff import DiffScreen

        mode_screen = DiffScreen(*diff)
    elif tour is not None:
        from branchwise_tui.screens.tour import TourScreen

        mode_screen = TourScreen(tour, branch)
    return BranchwiseApp(workspace, branch, query=query or "", scope=scope, mode_screen=mode_screen)
