"""The filter dialog: show only the results whose path or symbol matches a text (fuzzily, as
fzf does), of one verdict, label or path class.

Every field is reached with Tab and Shift+Tab; Enter in the text box or on Apply applies (on a
list, Enter opens it), Esc cancels.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Select, Static

from branchwise.models import Label, PathClass, Verdict
from branchwise_tui.widgets.results import Filter


class FilterScreen(ModalScreen[Filter | None]):
    """Dismisses with the new filter, or None when cancelled."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]
    AUTO_FOCUS = "#filter-text"

    def __init__(self, current: Filter) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        current = self.current
        with Vertical(id="filter-box", classes="dialog"):
            yield Static("Filter the results", classes="dialog-title")
            yield Static("Tab/⇧Tab: field · Enter: apply (on a list: open it) · Esc: cancel",
                         classes="dialog-help")
            yield Input(current.text, placeholder="path or symbol, fuzzy (e.g. optres)", id="filter-text")
            yield Select([(v.value, v.value) for v in Verdict], prompt="any verdict", id="filter-verdict",
                         value=current.verdict.value if current.verdict else Select.NULL)
            yield Select([(v.value, v.value) for v in Label] + [("no label", "none")], prompt="any label",
                         id="filter-label", value=current.label or Select.NULL)
            yield Select([(c.value, c.value) for c in PathClass], prompt="any path class", id="filter-class",
                         value=current.path_class.value if current.path_class else Select.NULL)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", variant="primary", id="filter-apply")
                yield Button("Clear", id="filter-clear")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(self.chosen())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(self.chosen() if event.button.id == "filter-apply" else Filter())

    def chosen(self) -> Filter:
        def value(selector: str) -> str | None:
            picked = self.query_one(selector, Select).value
            return None if picked is Select.NULL else str(picked)

        verdict, label, path_class = value("#filter-verdict"), value("#filter-label"), value("#filter-class")
        return Filter(Verdict(verdict) if verdict else None, label, PathClass(path_class) if path_class else None,
                      self.query_one("#filter-text", Input).value.strip())
