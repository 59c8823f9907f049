"""Diff review mode: what a branch changed, symbol by symbol, and what each change touches.

`branchwise review --diff BRANCH [--base REF]` opens this screen over the review app. On the
left, the changed symbols (kind, impact count, symbol, file); on the right, the selected
change's old and new text with the files' real line numbers, and below it the impact context
on the base: callers and similar code, verified, which the reviewer labels as usual. The
export writes the review bundle: the changes, then the labelled impact context.
"""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.coordinate import Coordinate
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from branchwise.branchdiff import BranchDiff, SymbolChange
from branchwise.models import Label
from branchwise_tui.screens.export import ExportScreen
from branchwise_tui.screens.hosted import app_session
from branchwise_tui.widgets.badges import verdict_badge
from branchwise_tui.widgets.symboldiff import numbered_diff

KIND_STYLES = {"added": "bold green", "changed": "bold yellow", "deleted": "bold red",
               "moved": "bold cyan", "renamed": "bold magenta"}
DEFAULT_REVIEW_BUNDLE = Path("branchwise-review.md")


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
    BINDINGS = [
        Binding("u", "label('use')", "Use"),
        Binding("r", "label('reference-only')", "Reference"),
        Binding("x", "label('exclude')", "Exclude"),
        Binding("e", "export", "Export"),
        Binding("tab", "switch", "Changes/impact", priority=True),
        Binding("q", "leave", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]
    #: (key, what it does): the help screen of this mode
    KEYS = [("↑/↓", "move through the changes (or the impact results)"),
            ("Tab", "switch between the changes and their impact context"),
            ("u / r / x", "label the selected impact result use / reference-only / exclude (again: clear)"),
            ("e", "export the review bundle: the changes, then the labelled impact context"),
            ("q", "quit")]

    def __init__(self, branch: str, base: str | None) -> None:
        super().__init__()
        self.branch = branch
        self.base = base
        self.diff: BranchDiff | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Computing the symbol diff of {self.branch} …", id="diff-summary")
        with Horizontal(id="diff-main"):
            yield DataTable(id="changes", cursor_type="row", zebra_stripes=True)
            with Vertical(id="diff-detail"):
                yield Static(id="change-header")
                with VerticalScroll(id="change-scroll"):
                    yield Static(id="change-code")
                yield Static("Impact context on the base", id="impact-title")
                yield DataTable(id="impact", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_resize(self) -> None:
        self.set_class(self.size.width < 120, "-narrow")  # side by side only where it fits

    def on_mount(self) -> None:
        self.query_one("#changes", DataTable).add_columns("Kind", "Hits", "Symbol", "File")
        self.query_one("#impact", DataTable).add_columns("As", "Verdict", "Symbol", "Where")
        self.query_one("#changes", DataTable).loading = True
        self.compute()

    @work(thread=True, exclusive=True, name="diff", exit_on_error=False)
    def compute(self) -> None:
        session = app_session(self.app)
        self.post_message(DiffReady(session.call(session.workspace.diff, self.branch, self.base)))

    def on_diff_ready(self, message: DiffReady) -> None:
        self.diff = diff = message.diff
        counts = ", ".join(f"{n} {kind}" for kind, n in diff.counts().items() if n) or "no symbol changes"
        apart = f"; {len(diff.apart)} generated/vendored set apart" if diff.apart else ""
        self.query_one("#diff-summary", Static).update(
            f"{diff.branch} @ {diff.branch_commit[:7]} against {diff.base} @ {diff.base_commit[:7]} "
            f"(merge-base {diff.merge_base[:7]}): {counts}{apart}")
        self.sub_title = f"{diff.repository}: {diff.branch} against {diff.base}"
        table = self.query_one("#changes", DataTable)
        table.loading = False
        for change in diff.changes:
            table.add_row(Text(change.kind, style=KIND_STYLES[change.kind]), str(len(change.impact)),
                          change.qualified_name, change.path)
        table.focus()
        if diff.changes:
            self.show_change(diff.changes[0])
        else:
            self.query_one("#change-header", Static).update("No symbol changes against the merge-base.")

    # showing ------------------------------------------------------------------------------

    @property
    def change(self) -> SymbolChange | None:
        table = self.query_one("#changes", DataTable)
        if self.diff is None or not self.diff.changes:
            return None
        return self.diff.changes[min(table.cursor_row, len(self.diff.changes) - 1)]

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
        self.query_one("#impact-title", Static).update(
            f"Impact context on {diff.impact_branch}: {len(change.impact)} "
            f"({sum(h.kind == 'caller' for h in change.impact)} callers)"
            if diff.impact_branch else "Impact context not looked up (the base is not a branch)")

    def _impact_cells(self, hit) -> tuple:
        r = hit.result
        return (hit.kind, verdict_badge(r.verdict, r.label), r.identity.qualified_name,
                f"{r.path}#L{r.start_line}-L{r.end_line}")

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
        (changes if impact.has_focus or not impact.row_count else impact).focus()

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
        session.call(session.workspace.set_label, result, label)
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
        from branchwise.diffbundle import diff_bundle

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
