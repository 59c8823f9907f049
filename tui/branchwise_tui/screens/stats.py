"""The statistics screen: is the index falling behind the code?

It draws the core's summary of the session log (`branchwise.stats.summarize`): the failure
ratio of each recorded session as a chart, which reasons and directories the failures came
from, and whether the core recommends re-indexing. It computes nothing itself.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Sparkline, Static


class StatsScreen(Screen[None]):
    BINDINGS = [Binding("escape,q,s", "app.pop_screen", "Back")]

    def __init__(self, summary: dict) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        summary = self.summary
        trend = summary["trend"]
        ratios = [t["failure_ratio"] for t in trend]
        yield Header()
        with VerticalScroll(id="stats-body"):
            yield Static(_advice(summary["recommendation"]), id="stats-advice",
                         classes="reindex" if summary["recommendation"]["reindex"] else "fine")
            yield Static(
                f"Failure ratio per session, oldest first: {summary['sessions']} sessions; "
                "failures / results neither excluded nor history", classes="stats-heading")
            yield Sparkline([r if r is not None else 0.0 for r in ratios] or [0.0], id="stats-trend")
            yield _table("stats-sessions", ("When", "Kind", "Branch", "Failures", "Ratio"), [
                (str(t["time"] or "")[:16].replace("T", " "), t["kind"] or "", t["branch"] or "",
                 f"{t['failures']}/{t['considered']}", _pct(t["failure_ratio"]))
                for t in reversed(trend)
            ])
            with Horizontal(id="stats-breakdowns"):
                with Vertical():
                    yield Static("Failures by reason", classes="stats-heading")
                    yield _table("stats-reasons", ("Reason", "Count"), summary["by_reason"].items())
                with Vertical():
                    yield Static("Failures by directory", classes="stats-heading")
                    yield _table("stats-directories", ("Directory", "Count"), summary["by_directory"].items())
        yield Footer()


def _table(table_id: str, columns: tuple[str, ...], rows) -> DataTable:
    table: DataTable = DataTable(id=table_id, cursor_type="none", zebra_stripes=True)
    table.add_columns(*columns)
    table.add_rows([tuple(str(cell) for cell in row) for row in rows])
    return table


def _advice(recommendation: dict) -> str:
    verdict = "Re-index recommended" if recommendation["reindex"] else "No re-index needed"
    return f"{verdict}: {recommendation['why']}"


def _pct(ratio: float | None) -> str:
    return "n/a" if ratio is None else f"{ratio * 100:.0f}%"
