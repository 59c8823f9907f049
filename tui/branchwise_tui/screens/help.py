"""The help screen: every key of the review app and what it does.

It lists the keys it is given (the app passes its own bindings), so the help can never
disagree with what the keys actually do.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

INTRO = (
    "Type a question, press Enter: results come back verified against the branch's code.\n"
    "Move through them, label each one, then export the bundle for your model."
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static("branchwise review: keys", id="help-title")
            yield Static(INTRO, id="help-intro")
            table: DataTable = DataTable(id="help-keys", cursor_type="none", show_header=False)
            table.add_columns("key", "action")
            table.add_rows(self.keys)
            yield table
            yield Static("Press Esc to close.", id="help-footer")
