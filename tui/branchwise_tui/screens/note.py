"""The note dialog: the reviewer's note on a result (for reference-only: the topic it is for).
A note stands alone: writing one leaves the label as it is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class NoteScreen(ModalScreen[str | None]):
    """Dismisses with the note (possibly empty), or None when cancelled."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]
    AUTO_FOCUS = "#note-input"

    def __init__(self, what: str, label: str, note: str) -> None:
        super().__init__()
        self.what, self.label, self.note = what, label, note

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box", classes="dialog"):
            yield Static(f"Note on {self.what}", classes="dialog-title")
            yield Static(f"The label stays as it is ({self.label}); a reference-only note names the topic, "
                         "e.g. “the idempotency design”. Enter saves, Esc cancels.", classes="dialog-help")
            yield Input(self.note, placeholder="note", id="note-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)
