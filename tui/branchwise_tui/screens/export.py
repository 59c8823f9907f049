"""The export dialog of the diff review and the tour player: where to write their bundle.

(The main screen exports from the bundle preview, `bundle.py`.)
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class ExportScreen(ModalScreen[Path | None]):
    """Dismisses with the chosen path, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#export-path"

    def __init__(self, default: Path, summary: str) -> None:
        super().__init__()
        self.default = default
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static("Export the bundle", id="export-title")
            yield Static(self.summary, id="export-summary")
            yield Input(str(self.default), placeholder="bundle path (.md)", id="export-path")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-ok")
                yield Button("Cancel", id="export-cancel")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export-ok":
            self._submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _submit(self) -> None:
        value = self.query_one("#export-path", Input).value.strip()
        if value:
            self.dismiss(Path(value).expanduser())
        else:
            self.notify("Give a path for the bundle.", severity="warning")
