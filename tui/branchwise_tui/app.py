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

import subprocess
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Select, Switch
from textual.widgets import Label as TextLabel
from textual.worker import Worker, WorkerState

from branchwise.display import escape_controls
from branchwise.errors import BranchwiseError
from branchwise.git.names import work_tree_path
from branchwise.models import Label, Result, Verdict
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_tui.commands import ReviewCommands
from branchwise_tui.editor import chosen_editor, editor_command
from branchwise_tui.keys import KEYS
from branchwise_tui.messages import (
    BundleMeasured,
    BundlePlanned,
    ExportCompleted,
    IndexRefreshed,
    LabelSaved,
    LabelsRestored,
    ModelLoaded,
    NoteSaved,
    PinsSaved,
    SearchCompleted,
    StatsLoaded,
)
from branchwise_tui.screens.bundle import BundleScreen
from branchwise_tui.screens.filter import FilterScreen
from branchwise_tui.screens.help import HelpScreen
from branchwise_tui.screens.note import NoteScreen
from branchwise_tui.screens.stats import StatsScreen
from branchwise_tui.screens.status import StatusLoaded, StatusScreen
from branchwise_tui.session import DEFAULT_BUNDLE, ReviewSession
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


class BranchwiseApp(App[None]):
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

    # model and search -------------------------------------------------------------------------

    @work(thread=True, group="model", name="model", exit_on_error=False)
    def load_model(self) -> None:
        self.session.warm()
        self.post_message(ModelLoaded())

    def on_model_loaded(self, message: ModelLoaded) -> None:
        # once results are shown their count stays in the bar (the search needed the model anyway)
        if not self.query_one(ResultsTable).loading and not self.session.results:
            self.query_one(KeyBar).set_status("model ready")

    def current_request(self) -> SearchRequest | None:
        query = self.query_one("#query", Input).value.strip()
        if not query:
            return None
        scope = "all" if self.query_one("#scope", Switch).value else "branch"
        return SearchRequest(query=query, branch=self.session.branch, scope=scope)

    def start_search(self, from_enter: bool = False) -> None:
        request = self.current_request()
        if request is None:
            if self.query_one("#query", Input).value:
                self.notify("The query is blank: type a question.", severity="warning")
            return
        self.search_from_enter = from_enter
        self.typed_since_search = False
        self.query_one(ResultsTable).loading = True
        waiting = "" if self.session.model_ready else " (loading the model first)"
        self.query_one(KeyBar).set_status(f"searching{waiting}", busy=True)
        self.run_search(request)

    @work(thread=True, exclusive=True, group="search", name="search", exit_on_error=False)
    def run_search(self, request: SearchRequest) -> None:
        results, target = self.session.search(request)
        self.post_message(SearchCompleted(request, results, target))

    def on_search_completed(self, message: SearchCompleted) -> None:
        self.session.accept(message.request, message.results, message.target)
        table = self.query_one(ResultsTable)
        table.loading = False
        table.indexed_text = self.session.use_indexed_text
        table.show(self.session.results, self.session.commit_dates())
        if self._results_may_take_focus():
            focus_now(table)  # a loading table cannot take the focus, so it takes it now
        self.query_one(KeyBar).set_status(self.session.results_status(len(message.results)))
        if not message.results:
            self.query_one(Preview).clear("No results on this branch: try other words or all history (a).")
        self.measure_bundle()

    def _results_may_take_focus(self) -> bool:
        """Never from a query box the reviewer typed in (or went to) after the search started:
        the keys they type next would become commands on the results."""
        focused = self.query_one(ResultsTable).screen.focused
        if isinstance(focused, Input):
            return focused.id == "query" and self.search_from_enter and not self.typed_since_search
        return True

    @on(Input.Submitted, "#query")
    def query_submitted(self) -> None:
        self.start_search(from_enter=True)

    @on(Input.Changed, "#query")
    def query_changed(self) -> None:
        self.typed_since_search = True

    @on(Select.Changed, "#branch")
    def branch_changed(self, event: Select.Changed) -> None:
        if event.value is Select.NULL or event.value == self.session.branch:
            return
        self.session.branch = str(event.value)
        self.sub_title = escape_controls(f"{self.session.repository} @ {self.session.branch}")
        self.start_search()

    @on(Switch.Changed, "#scope")
    def scope_changed(self, event: Switch.Changed) -> None:
        self.query_one("#scope-label", TextLabel).update(self._scope_text(event.value))
        self.start_search()

    def _fit_branch_selector(self) -> None:
        """Wide enough for the longest branch name (border, padding and arrow take 9 cells),
        within what the query box can spare; a longer name is cut, never wrapped."""
        longest = max((len(name) for name in self.branch_names), default=8)
        most = BRANCH_MOST_NARROW if self.size.width and self.size.width < NARROW else BRANCH_MOST
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

    # the selected result ----------------------------------------------------------------------

    @property
    def selected(self) -> Result | None:
        return self.query_one(ResultsTable).selected

    def on_results_table_highlighted(self, message: ResultsTable.Highlighted) -> None:
        self.show_preview(message.result)

    def show_preview(self, result: Result | None) -> None:
        preview = self.query_one(Preview)
        if result is None:
            preview.clear("No result matches the filter (f changes it)." if self.session.results else "")
        else:
            preview.show(result, self.session.header(result), self.session.takes_current_text(result),
                         self.session.shown(result))

    def action_label(self, value: str) -> None:
        """Label the marked rows, else the selected one; the same label again clears it."""
        targets = self.query_one(ResultsTable).targets
        if not targets:
            return
        label = Label(value)
        clear = all(r.label is label for r in targets)
        self.save_labels(targets, None if clear else label, dict(self.session.notes))

    @work(thread=True, group="label", name="label", exit_on_error=False)
    def save_labels(self, results: list[Result], label: Label | None, notes: dict[str, str]) -> None:
        self.post_message(LabelSaved(results, self.session.set_labels(results, label, notes)))

    def on_label_saved(self, message: LabelSaved) -> None:
        for result in message.results:
            if result.label is None:
                self.session.notes.pop(result.version_id, None)
        table = self.query_one(ResultsTable)
        if len(message.results) > 1:
            table.marked.clear()
        table.refresh_results()
        self._changed(message.change)
        self.measure_bundle()

    def _changed(self, change) -> None:
        """Every label or note change is said in the status line, with the key that undoes it."""
        self.undo_stack.append(change)
        self.query_one(KeyBar).set_status(f"{change.summary} · U undoes")

    def action_undo(self) -> None:
        """Take back the last label or note change (again: the one before), in the store too."""
        if not self.undo_stack:
            self.query_one(KeyBar).set_status("nothing to undo")
            return
        self.undo_change(self.undo_stack.pop())

    @work(thread=True, group="label", name="undo", exit_on_error=False)
    def undo_change(self, change) -> None:
        self.session.undo(change)
        self.post_message(LabelsRestored(change))

    def on_labels_restored(self, message: LabelsRestored) -> None:
        for result, record in message.change.before:
            if record is not None and record.note:
                self.session.notes[result.version_id] = record.note
            else:
                self.session.notes.pop(result.version_id, None)
        self.query_one(ResultsTable).refresh_results()
        left = f" · {len(self.undo_stack)} more to undo" if self.undo_stack else ""
        self.query_one(KeyBar).set_status(f"undone: {message.change.summary}{left}")
        self.measure_bundle()

    def action_toggle_pin(self) -> None:
        """Pin the marked rows' symbols, else the selected one's, on this branch: later searches
        here put them first when they find them; when all are pinned already, unpin them."""
        targets = [r for r in self.query_one(ResultsTable).targets if not r.history]
        if not targets:
            if self.selected is not None:
                self.notify("History is not on this branch: only its own code can be pinned.", severity="warning")
            return
        self.save_pins(targets, not all(r.pinned for r in targets))

    @work(thread=True, group="pin", name="pin", exit_on_error=False)
    def save_pins(self, results: list[Result], pinned: bool) -> None:
        self.session.set_pins(results, pinned)
        self.post_message(PinsSaved(results, pinned))

    def on_pins_saved(self, message: PinsSaved) -> None:
        table = self.query_one(ResultsTable)
        what = (message.results[0].identity.qualified_name if len(message.results) == 1
                else f"{len(message.results)} symbols")
        if len(message.results) > 1:
            table.marked.clear()
        table.refresh_results()
        if message.pinned:
            self.notify(f"Pinned {what} on {self.session.branch}: offered first when a search here finds it.")
        else:
            self.notify(f"Unpinned {what} on {self.session.branch}.")

    def measure_bundle(self) -> None:
        """Count (in a worker) the tokens of the bundle as reviewed so far; shown in the subtitle."""
        session = self.session
        if session.request is not None:
            self.measures_started += 1
            self.run_measure(self.measures_started, session.request, list(session.results),
                             frozenset(session.use_indexed_text))

    @work(thread=True, exclusive=True, group="measure", name="measure", exit_on_error=False)
    def run_measure(self, number: int, request: SearchRequest, results: list[Result],
                    use_indexed_text: frozenset[str]) -> None:
        self.post_message(BundleMeasured(self.session.bundle_tokens(request, results, use_indexed_text), number))

    def on_bundle_measured(self, message: BundleMeasured) -> None:
        if message.number != self.measures_started:
            return  # counted before a later change: the later count is on its way
        self.bundle_tokens = message.tokens
        self.sub_title = escape_controls(f"{self.session.repository} @ {self.session.branch} · bundle: {message.tokens:,} tokens")
        self.query_one(ResultsTable).bundle_tokens = message.tokens

    def action_toggle_text(self) -> None:
        result = self.selected
        if result is None or result.current_text is None:
            self.notify("Only a changed result has a current text to choose.", severity="warning")
            return
        takes = self.session.toggle_current_text(result)
        self.query_one(ResultsTable).refresh_results()
        self.measure_bundle()
        self.notify(f"The bundle takes the {'current' if takes else 'indexed'} text of {result.identity.qualified_name}.")

    def action_toggle_mark(self) -> None:
        self.query_one(ResultsTable).toggle_mark()

    def action_mark_all(self) -> None:
        self.query_one(ResultsTable).mark_all()

    def action_edit_note(self) -> None:
        result = self.selected
        if result is None:
            return
        from branchwise.review.labels import effective_label

        label = (result.label or effective_label(result)).value
        note = self.session.notes.get(result.version_id, "")

        def save(value: str | None) -> None:
            if value is not None:
                self.save_note(result, value)

        self.push_screen(NoteScreen(result.identity.qualified_name, label, note), save)

    @work(thread=True, group="label", name="note", exit_on_error=False)
    def save_note(self, result: Result, note: str) -> None:
        self.post_message(NoteSaved(result, note.strip(), self.session.set_note(result, note)))

    def on_note_saved(self, message: NoteSaved) -> None:
        if message.note:
            self.session.notes[message.result.version_id] = message.note
        else:
            self.session.notes.pop(message.result.version_id, None)
        self.query_one(ResultsTable).refresh_results()
        self._changed(message.change)
        self.measure_bundle()

    # open and copy ----------------------------------------------------------------------------

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

    # export, index refresh, statistics ------------------------------------------------------------

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
        self.query_one(KeyBar).set_status(f"{len(self.session.results)} results")
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
        if action == "focus_query" and isinstance(self.screen.focused, Input):
            return False  # a `/` typed in a box is text (its binding is looked at first: see keys.Key.first)
        if action in ON_THE_TABLE:
            focused = self.screen.focused
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


def focus_now(widget) -> None:
    """Focus `widget` before the next key is handled. `Widget.focus` only schedules it, after
    the keys already queued: typed fast, they would still go to the widget focused before."""
    widget.screen.set_focus(widget)


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
