"""The results table: one row per result, in the core's ranking order.

It owns the mapping from rows to results, so the app can ask which result is selected and
tell it to redraw one row after a label changed; it reports the highlighted result upward
with a message instead of reaching into the preview.
"""

from __future__ import annotations

from textual.message import Message
from textual.widgets import DataTable

from branchwise.display import escape_controls
from branchwise.models import Result
from branchwise_tui.widgets.badges import verdict_badge

COLUMNS = (("#", "rank"), ("Verdict", "verdict"), ("Path", "path"), ("Symbol", "symbol"),
           ("Branch", "branch"), ("Commit", "commit"), ("Indexed", "indexed"))


class ResultsTable(DataTable):
    class Highlighted(Message):
        """The cursor is on `result` (None when the table is empty)."""

        def __init__(self, result: Result | None) -> None:
            super().__init__()
            self.result = result

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._results: list[Result] = []

    def on_mount(self) -> None:
        for title, key in COLUMNS:
            self.add_column(title, key=key)

    @property
    def selected(self) -> Result | None:
        if not self._results or self.cursor_row < 0:
            return None
        return self._results[min(self.cursor_row, len(self._results) - 1)]

    def show(self, results: list[Result]) -> None:
        """Replace the rows with `results`, kept in the order given (the ranking)."""
        self.clear()
        self._results = list(results)
        for row, result in enumerate(self._results):
            self.add_row(
                str(result.rank),
                verdict_badge(result.verdict, result.label),
                escape_controls(result.path),
                escape_controls(result.identity.qualified_name),
                result.branch,
                result.commit[:7],
                result.indexed_at[:10],
                key=str(row),
            )
        if self._results:
            self.move_cursor(row=0)
        self.post_message(self.Highlighted(self.selected))

    def refresh_result(self, result: Result) -> None:
        """Redraw the verdict cell of `result` after its label changed."""
        row = next(i for i, r in enumerate(self._results) if r is result)
        self.update_cell(str(row), "verdict", verdict_badge(result.verdict, result.label), update_width=True)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.Highlighted(self.selected))
