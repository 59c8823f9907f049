"""The statistics screen: is the index falling behind the code?

It draws the core's summary of the session log (`branchwise.review.stats.summarize`): the failure
ratio of each recorded session as a chart, which reasons and directories the failures came
from, and whether the core recommends re-indexing. It computes nothing itself. The chart and
the table both run oldest first; with no sessions there is a sentence, not an empty chart.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from branchwise.display import escape_controls
from branchwise.review.stats import advice_line
from branchwise.wording import plural
from branchwise_tui.widgets.lists import KeyScroll, KeyTable

#: below this width the two breakdown tables are stacked instead of side by side
STACK_BELOW = 90
CHART_HEIGHT = 4
EIGHTHS = " ▁▂▃▄▅▆▇█"


class StatsScreen(Screen[None]):
    BINDINGS = [Binding("escape,s", "app.pop_screen", "Back"), Binding("q", "app.quit", "Quit")]
    AUTO_FOCUS = "#stats-body"  # the arrows, PageUp/PageDown, Home/End and j k g G scroll it

    def __init__(self, summary: dict) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        summary = self.summary
        trend = summary["trend"]
        ratios = [t["failure_ratio"] for t in trend]
        yield Header()
        with KeyScroll(id="stats-body"):
            yield Static(advice_line(summary["recommendation"]), id="stats-advice",
                         classes="reindex" if summary["recommendation"]["reindex"] else "fine")
            yield Static(
                f"Failure ratio per session, oldest first: {plural(summary['sessions'], 'session')}; "
                "failures / results neither excluded nor history", classes="stats-heading")
            if trend:
                yield Static(trend_chart(ratios), id="stats-trend")
                yield _table("stats-sessions", ("When", "Kind", "Branch", "Failures", "Ratio"), [
                    (str(t["time"] or "")[:16].replace("T", " "), t["kind"] or "", t["branch"] or "",
                     f"{t['failures']}/{t['considered']}", _pct(t["failure_ratio"]))
                    for t in trend
                ])
            else:
                yield Static("No sessions recorded yet: searches, reviews and exports each add one.",
                             id="stats-empty")
            with Horizontal(id="stats-breakdowns"):
                with Vertical():
                    yield Static("Failures by reason", classes="stats-heading")
                    yield _table_or_none("stats-reasons", ("Reason", "Count"), summary["by_reason"].items())
                with Vertical():
                    yield Static("Failures by directory", classes="stats-heading")
                    yield _table_or_none("stats-directories", ("Directory", "Count"), summary["by_directory"].items())
        yield Footer()

    def on_resize(self) -> None:
        self.set_class(self.size.width < STACK_BELOW, "-stacked")


def _table(table_id: str, columns: tuple[str, ...], rows) -> KeyTable:
    """A table drawn whole inside its screen's scrolling body, which the keys scroll: it
    takes no focus itself (a focused table with nothing to scroll would swallow the keys)."""
    table = KeyTable(id=table_id, cursor_type="none", zebra_stripes=True)
    table.can_focus = False
    table.add_columns(*columns)
    table.add_rows([tuple(escape_controls(cell) for cell in row) for row in rows])  # names from the repository
    return table


def trend_chart(ratios: list[float | None], height: int = CHART_HEIGHT) -> Text:
    """One bar per session, oldest on the left, on a fixed 0-100% scale (a half is half high).

    Green below a third, yellow below two thirds, red above; '·' marks a session with no ratio.
    """
    rows = []
    for level in range(height, 0, -1):
        row = Text("100% │" if level == height else "     │", style="dim")
        for ratio in ratios:
            if ratio is None:
                row.append("·  " if level == 1 else "   ")
                continue
            eighths = round(ratio * height * 8) - (level - 1) * 8
            block = EIGHTHS[max(0, min(8, eighths))]
            if ratio > 0 and level == 1 and block == " ":
                block = EIGHTHS[1]  # a failure never looks like none at all
            colour = "green" if ratio < 1 / 3 else "yellow" if ratio < 2 / 3 else "red"
            row.append(block * 2 + " ", style=colour)
        rows.append(row)
    rows.append(Text("  0% └" + "─" * (3 * len(ratios)), style="dim"))
    return Text("\n").join(rows)


def _table_or_none(table_id: str, columns: tuple[str, ...], rows) -> KeyTable | Static:
    rows = list(rows)
    return _table(table_id, columns, rows) if rows else Static("none recorded", classes="stats-none")


def _pct(ratio: float | None) -> str:
    return "n/a" if ratio is None else f"{ratio * 100:.0f}%"
