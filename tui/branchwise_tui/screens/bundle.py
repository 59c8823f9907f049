"""The bundle preview: what an export would write, in order, with its size, before writing it.

One row per result in bundle order: whether it goes in (and as what: use or reference-only) or
why it stays out, the location of the text it takes and its estimated tokens, with the total.
The core's bundler builds it exactly as the export will, so the order and the token counts
(with the tokenizer that made them) are the bundle's own. The path box below writes the
bundle; an error (a refused credential, a path that cannot be
written) is shown here and the screen stays open, so nothing has to be typed again.
"""

from __future__ import annotations

from pathlib import Path

from branchwise.wording import plural
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Static
from textual.worker import Worker, WorkerState

from branchwise_tui.session import BundlePlan, ReviewSession
from branchwise_tui.widgets.columns import elide_middle, elide_path, elide_symbol
from branchwise_tui.widgets.lists import KeyTable

PADDING = 2


class BundleScreen(Screen[str | None]):
    """Dismisses with the core's summary line once the bundle is written, None when left."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Back"),
        # from the path box (which keeps Home/End) the rows still scroll; Tab reaches the table
        Binding("up", "rows('cursor_up')", show=False),
        Binding("down", "rows('cursor_down')", show=False),
        Binding("pageup", "rows('page_up')", show=False),
        Binding("pagedown", "rows('page_down')", show=False),
    ]
    AUTO_FOCUS = "#bundle-path"

    class Written(Message):
        def __init__(self, summary: str) -> None:
            super().__init__()
            self.summary = summary

    def __init__(self, session: ReviewSession, plan: BundlePlan, default: Path) -> None:
        super().__init__()
        self.session = session
        self.plan = plan
        self.items = plan.items
        self.default = default

    def compose(self) -> ComposeResult:
        included = [i for i in self.items if i.included]
        counted = f" ({self.plan.tokenizer})" if self.plan.tokenizer else ""
        yield Static(
            f"Bundle for “{self.session.request.query if self.session.request else ''}” on {self.session.branch}: {len(included)} chunks "
            f"for {plural(len(self.items), 'result')}, {self.plan.total_tokens:,} tokens{counted}", id="bundle-summary")
        yield KeyTable(id="bundle-items", cursor_type="row", zebra_stripes=True)
        yield Static("", id="bundle-error")
        with Horizontal(id="bundle-write"):
            yield Input(str(self.default), placeholder="bundle path (.md)", id="bundle-path")
            yield Button("Write", variant="primary", id="bundle-ok")
        yield Static("Enter writes the bundle and its manifest · ↑↓ PgUp PgDn scroll the rows · Tab: next field · "
                     "Esc goes back to the results", id="bundle-keys")

    def on_mount(self) -> None:
        self.fill()

    def on_resize(self) -> None:
        self.fill()

    def fill(self) -> None:
        """Lay the rows out for the width: the location takes whatever the other columns leave."""
        table = self.query_one("#bundle-items", KeyTable)
        width = max(40, (table.content_region.width or self.size.width) - 2)
        narrow = width < 100
        handling = max((len(i.handling) for i in self.items), default=12)
        fixed = {"order": 3, "rank": 4, "handling": max(12, min(handling, 20 if narrow else 48)), "tokens": 7}
        if not narrow:
            longest = max((len(i.result.identity.qualified_name) for i in self.items), default=6)
            fixed["symbol"] = min(max(longest, 6), 40)
        location = max(12, width - sum(fixed.values()) - PADDING * (len(fixed) + 1))
        longest_location = max((len(i.location) for i in self.items), default=12)
        if location > longest_location and not narrow:  # room to spare: the symbol takes it first
            spare = location - longest_location
            grow = min(spare, max(0, max((len(i.result.identity.qualified_name) for i in self.items), default=0)
                                  - fixed["symbol"]))
            fixed["symbol"] += grow
            location -= grow
        table.clear(columns=True)
        columns = [("order", "#"), ("rank", "Rank"), ("handling", "In bundle as"), ("location", "Location")]
        columns += [] if narrow else [("symbol", "Symbol")]
        columns += [("tokens", "Tokens")]
        widths = {**fixed, "location": location}
        for key, title in columns:
            table.add_column(title, key=key, width=widths[key])
        order = 0
        for item in self.items:
            order += item.included
            style = "" if item.included else "grey50"
            cells = {
                "order": str(order) if item.included else "–",
                "rank": str(item.result.rank),
                "handling": elide_middle(item.handling, widths["handling"]),
                "location": elide_path(item.location, location),
                "symbol": elide_symbol(item.result.identity.qualified_name, widths.get("symbol", 0)),
                "tokens": f"{item.tokens:,}" if item.included else "",
            }
            table.add_row(*(Text(cells[key], style=style) for key, _ in columns))

    def action_rows(self, action: str) -> None:
        getattr(self.query_one("#bundle-items", KeyTable), f"action_{action}")()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.submit()

    def submit(self) -> None:
        value = self.query_one("#bundle-path", Input).value.strip()
        if not value:
            self.show_error("Give a path for the bundle.")
            return
        self.show_error("Writing …")
        self.write(Path(value).expanduser())

    def show_error(self, text: str) -> None:
        self.query_one("#bundle-error", Static).update(text)

    @work(thread=True, exclusive=True, name="export", exit_on_error=False)
    def write(self, path: Path) -> None:
        report = self.session.export(path)
        self.post_message(self.Written(report.summary_line()))

    def on_bundle_screen_written(self, message: Written) -> None:
        self.dismiss(message.summary)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            event.stop()
            self.show_error(f"Not written: {event.worker.error}")
            self.query_one("#bundle-path", Input).focus()
