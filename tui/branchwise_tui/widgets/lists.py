"""A table and a scrolling pane that take the vim keys as well as the arrows.

Every list and every scrollable screen of the app is one of these, so `j k g G` (with the
arrows, PageUp/PageDown, Home/End) move the same way everywhere, as the help says.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable


class KeyTable(DataTable):
    """A DataTable where `j`/`k` move a row, `g`/Home go to the first and `G`/End to the last.

    Without a cursor (`cursor_type="none"`) the same keys scroll it.
    """

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g,home", "first_row", "First row", show=False),
        Binding("G,end", "last_row", "Last row", show=False),
    ]

    def action_first_row(self) -> None:
        if self.cursor_type == "none" or not self.row_count:
            self.scroll_home(animate=False)
        else:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.cursor_type == "none" or not self.row_count:
            self.scroll_end(animate=False)
        else:
            self.move_cursor(row=self.row_count - 1)


class KeyScroll(VerticalScroll):
    """A scrolling pane where `j`/`k` scroll a line and `g`/`G` go to the top and bottom."""

    BINDINGS = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
    ]
