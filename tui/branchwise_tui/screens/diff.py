"""Diff review mode: what a branch changed, symbol by symbol, and what each change touches.

`branchwise review --diff BRANCH [--base REF]` opens this screen over the review app. The
changed symbols (kind, callers, symbol, file) come in reading order (source first); `/`
filters them by text and `f` by kind. The selected change shows its old and new text with the
files' real line numbers, and below it the impact context on the base: callers (how each was
found) and similar code, verified, which the reviewer labels as usual. Side by side where it
fits; at 80 columns the list takes the screen and Enter opens the change (Esc goes back).
While the diff is computed, the summary line says which stage it is at and how far. The
export writes the review bundle: the changes, then the labelled impact context.
"""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from branchwise.models import Label
from branchwise.review.branchdiff import BranchDiff, SymbolChange
from branchwise_tui.screens.export import ExportScreen
from branchwise_tui.screens.hosted import app_session
from branchwise_tui.widgets.badges import verdict_badge
from branchwise_tui.widgets.symboldiff import numbered_diff

KIND_STYLES = {"added": "bold green", "changed": "bold yellow", "deleted": "bold red",
               "moved": "bold cyan", "renamed": "bold magenta"}
#: `f` cycles through these: every kind, then one kind at a time
KIND_FILTERS = (None, *KIND_STYLES)
DEFAULT_REVIEW_BUNDLE = Path("branchwise-review.md")
#: narrower than this, the change list and the selected change take turns on the screen
SIDE_BY_SIDE_WIDTH = 120
STAGES = {"indexing": "indexing the branches", "reading": "reading the changed files",
          "callers": "finding callers: files parsed", "similar": "finding similar code for the changes",
          "verifying": "verifying the impact results"}


class ChangeTable(DataTable):
    """A table that moves with the review app's keys: the arrows, PageUp/PageDown, Home/End,
    and `j`/`k` a row, `g`/`G` the first and last row."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g,home", "first_row", "First row", show=False),
        Binding("G,end", "last_row", "Last row", show=False),
    ]

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)


class DiffProgress(Message):
    """How far the core is: a stage (branchdiff.py) and its count."""

    def __init__(self, stage: str, done: int, total: int) -> None:
        super().__init__()
        self.stage, self.done, self.total = stage, done, total


class DiffReady(Message):
    """The core computed the branch diff with its impact context."""

    def __init__(self, diff: BranchDiff) -> None:
        super().__init__()
        self.diff = diff


class ImpactLabelled(Message):
    def __init__(self, row: int) -> None:
        super().__init__()
        self.row = row


class BundleWritten(Message):
    def __init__(self, summary: str) -> None:
        super().__init__()
        self.summary = summary


class DiffScreen(Screen[None]):
    CSS_PATH = "../diff.tcss"
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", key_display="/"),
        Binding("f", "next_kind", "Kind"),
        Binding("u", "label('use')", "Use", show=False),
        Binding("r", "label('reference-only')", "Ref", show=False),
        Binding("x", "label('exclude')", "Excl", show=False),
        Binding("e", "export", "Export"),
        Binding("tab", "switch", "Impact", priority=True),
        Binding("escape", "back", "Back", show=False),
        Binding("q", "leave", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]
    #: (key, what it does): the help screen of this mode; keys of 5 characters at most and
    #: descriptions that fit half an 80-column screen
    KEYS = [("↑ ↓", "move through the list"),
            ("j k", "move a row, as ↑ ↓ do"),
            ("PgUp", "a page up"),
            ("PgDn", "a page down"),
            ("Home", "first row (also g)"),
            ("End", "last row (also G)"),
            ("Enter", "open the change (narrow)"),
            ("Tab", "changes / impact context"),
            ("/", "filter the changes by text"),
            ("f", "filter by kind (cycles)"),
            ("Esc", "clear the filter, go back"),
            ("u r x", "label impact: use/ref/excl"),
            ("e", "export the review bundle"),
            ("q", "quit")]

    def __init__(self, branch: str, base: str | None) -> None:
        super().__init__()
        self.branch = branch
        self.base = base
        self.diff: BranchDiff | None = None
        self.shown_changes: list[SymbolChange] = []  # the changes the filters let through, in order
        self.text_filter = ""
        self.kind_filter: str | None = None
        self.path_width = 40

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Computing the symbol diff of {self.branch} …", id="diff-summary")
        yield Input(placeholder="filter the changes: words of the symbol or path (Esc clears)", id="change-filter")
        with Horizontal(id="diff-main"):
            yield ChangeTable(id="changes", cursor_type="row", zebra_stripes=True)
            with Vertical(id="diff-detail"):
                yield Static(id="change-header")
                with VerticalScroll(id="change-scroll"):
                    yield Static(id="change-code")
                yield Static("Impact context on the base", id="impact-title")
                yield ChangeTable(id="impact", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_resize(self) -> None:
        self.set_class(self.size.width < SIDE_BY_SIDE_WIDTH, "-narrow")  # side by side only where it fits

    def on_mount(self) -> None:
        changes = self.query_one("#changes", DataTable)
        # the symbol and its file share what the kind and callers leave (80 columns: 31 and 30)
        width = self.app.size.width
        listed = width if width < SIDE_BY_SIDE_WIDTH else width // 2
        share = max(20, (listed - 8 - 8 - 12) // 2)
        self.path_width = share
        changes.add_column("Kind", width=7)
        changes.add_column("Callers", width=7)
        changes.add_column("Symbol", width=share)
        changes.add_column("File", width=share)
        impact = self.query_one("#impact", DataTable)
        detail = self.app.size.width if self.app.size.width < SIDE_BY_SIDE_WIDTH else self.app.size.width // 2
        rest = max(16, (detail - 8 - 10 - 9 - 14) // 2)
        for title, width in (("As", 7), ("How", 10), ("Verdict", 9), ("Symbol", rest), ("Where", rest)):
            impact.add_column(title, width=width)
        self.query_one("#changes", DataTable).loading = True
        self.compute()

    @work(thread=True, exclusive=True, name="diff", exit_on_error=False)
    def compute(self) -> None:
        session = app_session(self.app)

        def progress(stage: str, done: int, total: int) -> None:
            self.post_message(DiffProgress(stage, done, total))

        self.post_message(DiffReady(session.call(session.workspace.diff, self.branch, self.base,
                                                 progress=progress)))

    def on_diff_progress(self, message: DiffProgress) -> None:
        if self.diff is not None:
            return
        count = f" ({message.done}/{message.total})" if message.total else ""
        self.query_one("#diff-summary", Static).update(
            f"Computing the symbol diff of {self.branch}: {STAGES.get(message.stage, message.stage)}{count} …")

    def on_diff_ready(self, message: DiffReady) -> None:
        self.diff = diff = message.diff
        self.sub_title = f"{diff.repository}: {diff.branch} against {diff.base}"
        table = self.query_one("#changes", DataTable)
        table.loading = False
        self.refill()
        table.focus()
        if diff.hint:
            self.query_one("#change-header", Static).update(diff.hint)

    # the list and its filters ---------------------------------------------------------------

    def refill(self) -> None:
        """Show the changes the text and kind filters let through, and say how many."""
        diff = self.diff
        if diff is None:
            return
        words = self.text_filter.casefold().split()
        self.shown_changes = [c for c in diff.changes
                        if (self.kind_filter is None or c.kind == self.kind_filter)
                        and all(w in f"{c.path} {c.qualified_name} {c.group}".casefold() for w in words)]
        table = self.query_one("#changes", DataTable)
        table.clear()
        for change in self.shown_changes:
            table.add_row(Text(change.kind, style=KIND_STYLES[change.kind]), _callers_cell(change),
                          change.qualified_name, _tail(change.path, self.path_width))
        counts = ", ".join(f"{n} {kind}" for kind, n in diff.counts().items() if n) or "no symbol changes"
        shown = ""
        if self.kind_filter or words:
            what = " ".join(filter(None, [self.kind_filter, f"“{self.text_filter}”" if words else ""]))
            shown = f" · showing {len(self.shown_changes)} ({what})"
        apart = f"; {len(diff.apart)} set apart" if diff.apart else ""
        self.query_one("#diff-summary", Static).update(
            f"{diff.branch} against {diff.base} (merge-base {diff.merge_base[:7]}): {counts}{apart}{shown}")
        if self.shown_changes:
            self.show_change(self.shown_changes[0])
        else:
            self.query_one("#change-header", Static).update(
                "No change matches the filter." if diff.changes else "No symbol changes against the merge-base.")
            self.query_one("#change-code", Static).update("")
            self.query_one("#impact", DataTable).clear()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "change-filter":
            self.text_filter = event.value
            self.refill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "change-filter":
            self.query_one("#changes", DataTable).focus()

    def action_focus_filter(self) -> None:
        self.add_class("-filtering")
        self.query_one("#change-filter", Input).focus()

    def action_next_kind(self) -> None:
        self.kind_filter = KIND_FILTERS[(KIND_FILTERS.index(self.kind_filter) + 1) % len(KIND_FILTERS)]
        self.refill()

    def action_back(self) -> None:
        """Esc: out of the filter box (clearing it), else back from a change to the list."""
        field = self.query_one("#change-filter", Input)
        if field.has_focus:
            field.value = ""
            self.remove_class("-filtering")
            self.query_one("#changes", DataTable).focus()
        elif self.has_class("-detail"):
            self.remove_class("-detail")
            self.query_one("#changes", DataTable).focus()
        elif self.kind_filter or self.text_filter:
            self.kind_filter = None
            field.value = ""
            self.text_filter = ""
            self.remove_class("-filtering")
            self.refill()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a change: at 80 columns, the change takes the screen (Esc: back)."""
        if event.data_table.id == "changes" and self.has_class("-narrow") and self.change is not None:
            self.add_class("-detail")
            impact = self.query_one("#impact", DataTable)
            (impact if impact.row_count else self.query_one("#change-scroll")).focus()

    # showing ------------------------------------------------------------------------------

    @property
    def change(self) -> SymbolChange | None:
        table = self.query_one("#changes", DataTable)
        if self.diff is None or not self.shown_changes:
            return None
        return self.shown_changes[min(table.cursor_row, len(self.shown_changes) - 1)]

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.diff is None:
            return
        if event.data_table.id == "changes" and self.change is not None:
            self.show_change(self.change)
        elif event.data_table.id == "impact" and event.data_table.has_focus:
            self.show_impact(event.cursor_row)

    def show_change(self, change: SymbolChange) -> None:
        diff = self.diff
        if diff is None:
            return
        old, new = change.old, change.new
        lines = [Text.assemble((change.kind, KIND_STYLES[change.kind]), f"  {change.qualified_name}  "
                               f"({change.symbol.identity.symbol_type}, {change.symbol.identity.language})")]
        before = f"merge-base {diff.merge_base[:7]}"
        after = f"{diff.branch} @ {diff.branch_commit[:7]}"
        if old is not None and new is not None and old.path == new.path:
            renamed = f" (was {old.qualified_name})" if old.qualified_name != new.qualified_name else ""
            lines.append(Text(f"{new.path}: L{old.start_line}-L{old.end_line} at {before} -> "
                              f"L{new.start_line}-L{new.end_line} on {after}{renamed}"))
        else:
            if old is not None:
                lines.append(Text(f"before: {old.path}#L{old.start_line}-L{old.end_line} ({old.qualified_name}) at {before}"))
            if new is not None:
                lines.append(Text(f"after:  {new.path}#L{new.start_line}-L{new.end_line} ({new.qualified_name}) on {after}"))
        if change.base_status in ("changed", "deleted"):
            lines.append(Text(f"{diff.base} has {change.base_status} it since the merge-base", style="bold"))
        self.query_one("#change-header", Static).update(Text("\n").join(lines))
        self.query_one("#change-code", Static).update(
            numbered_diff(old.text if old else None, old.start_line if old else None,
                          new.text if new else None, new.start_line if new else None))
        table = self.query_one("#impact", DataTable)
        table.clear()
        for hit in change.impact:
            table.add_row(*self._impact_cells(hit))
        similar = sum(h.kind == "similar" for h in change.impact)
        self.query_one("#impact-title", Static).update(
            f"On {diff.impact_branch}: {_callers_phrase(change)}, {similar} similar"
            if diff.impact_branch else "Impact context not looked up (the base is not a branch)")

    def _impact_cells(self, hit) -> tuple:
        r = hit.result
        line = hit.line if hit.line is not None else r.start_line
        how = "" if hit.how is None else f"{hit.how}{'' if hit.certain else '?'}"
        return (hit.kind, how, verdict_badge(r.verdict, r.label), r.identity.qualified_name,
                _tail(f"{r.path}:{line}", self.path_width))

    def show_impact(self, row: int) -> None:
        change, diff = self.change, self.diff
        if change is None or diff is None or not 0 <= row < len(change.impact):
            return
        result = change.impact[row].result
        header = Text(f"{change.impact[row].kind} of {change.qualified_name} on {diff.impact_branch}: "
                      f"{result.path}#L{result.start_line}-L{result.end_line} ({result.identity.qualified_name})\n"
                      f"{result.verdict.value if result.verdict else 'unverified'}: {result.reason}")
        self.query_one("#change-header", Static).update(header)
        self.query_one("#change-code", Static).update(
            Syntax(result.text.rstrip("\n"), result.identity.language, theme="monokai", line_numbers=True,
                   start_line=result.start_line, word_wrap=False))

    # actions --------------------------------------------------------------------------------

    def action_switch(self) -> None:
        changes, impact = self.query_one("#changes", DataTable), self.query_one("#impact", DataTable)
        to_impact = not impact.has_focus and impact.row_count > 0
        self.set_class(to_impact and self.has_class("-narrow"), "-detail")
        (impact if to_impact else changes).focus()

    def on_descendant_focus(self, event) -> None:
        """Tab moves between the changes and their impact; the right pane follows the focus."""
        if self.diff is None or self.change is None:
            return
        if event.widget.id == "impact":
            self.show_impact(self.query_one("#impact", DataTable).cursor_row)
        elif event.widget.id == "changes":
            self.show_change(self.change)

    def action_label(self, value: str) -> None:
        impact = self.query_one("#impact", DataTable)
        change = self.change
        if change is None or not impact.has_focus or not change.impact:
            self.notify("Labels apply to impact context: press Tab to reach it.", severity="warning")
            return
        row = impact.cursor_row
        result = change.impact[row].result
        label = Label(value)
        self.save_label(result, None if result.label is label else label, row)

    @work(thread=True, name="label", exit_on_error=False)
    def save_label(self, result, label, row: int) -> None:
        session = app_session(self.app)
        session.call(session.workspace.review.set_label, result, label)
        self.post_message(ImpactLabelled(row))

    def on_impact_labelled(self, message: ImpactLabelled) -> None:
        change = self.change
        if change is None or message.row >= len(change.impact):
            return
        table = self.query_one("#impact", DataTable)
        for column, cell in enumerate(self._impact_cells(change.impact[message.row])):
            table.update_cell_at(Coordinate(message.row, column), cell)

    def action_export(self) -> None:
        if self.diff is None:
            return
        summary = f"{len(self.diff.changes)} changes of {self.diff.branch} and their impact context"
        self.app.push_screen(ExportScreen(DEFAULT_REVIEW_BUNDLE, summary), self._export_to)

    def _export_to(self, path: Path | None) -> None:
        if path is not None:
            self.write_bundle(path)

    @work(thread=True, exclusive=True, name="export", exit_on_error=False)
    def write_bundle(self, path: Path) -> None:
        from branchwise.review.diffbundle import diff_bundle

        if self.diff is None:
            return
        session = app_session(self.app)
        bundle = session.call(diff_bundle, session.workspace, self.diff)
        manifest = bundle.write(path)
        self.post_message(BundleWritten(f"wrote {path} ({len(bundle.sections)} chunks) and {manifest}"))

    def on_bundle_written(self, message: BundleWritten) -> None:
        self.notify(message.summary, title="Review bundle written", timeout=8)

    def action_help(self) -> None:
        from branchwise_tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.KEYS))

    def action_leave(self) -> None:
        self.app.exit()


def _callers_cell(change: SymbolChange) -> str:
    """`3`, or `3+40` when 40 more may call it (a method called on an object of unknown type)."""
    possible = change.callers_total - change.callers_certain
    return f"{change.callers_certain}+{possible}" if possible else str(change.callers_total)


def _callers_phrase(change: SymbolChange) -> str:
    n, possible = change.callers_certain, change.callers_total - change.callers_certain
    phrase = f"{n} caller{'s' if n != 1 else ''}"
    return f"{phrase} ({possible} possible)" if possible else phrase


def _tail(path: str, width: int = 40) -> str:
    """A long path by its end, where the file name is: `…/click/shell_completion.py`."""
    return path if len(path) <= width else "…" + path[-(width - 1):]
