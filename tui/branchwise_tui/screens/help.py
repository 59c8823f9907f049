"""The help screen: every key of the review app and what it does.

It lists the keys it is given (the app's key table), in two columns of groups so that all of
them fit an 80x24 terminal; in a smaller one the list scrolls. `q` quits here as everywhere.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from branchwise_tui.keys import Key
from branchwise_tui.widgets.lists import KeyScroll


#: the most lines the key list takes before it scrolls (all of it fits 80x24)
HELP_LINES = 22


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark", "dismiss", "Close"),
        Binding("q", "app.quit", "Quit"),
    ]
    AUTO_FOCUS = "#help-scroll"  # the arrows, PageUp/PageDown, Home/End and j k g G scroll it

    def __init__(self, keys) -> None:
        """`keys`: the app's key table, or (key, what it does) pairs (the diff and tour modes)."""
        super().__init__()
        self.keys = keys
        self.rows = tuple(k if isinstance(k, Key) else Key("", k[0], "", "", k[1], "Keys", 0) for k in keys)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static("branchwise review · keys", id="help-title")
            with KeyScroll(id="help-scroll"):
                yield Static(key_table(tuple(k for k in self.rows if k.bound)), id="help-keys")
                moves = tuple(k for k in self.rows if not k.bound)
                if moves:
                    yield Static(move_line(moves), id="help-moves")
            yield Static("Esc or ? closes this help · q quits · Ctrl+P finds any action by name",
                         id="help-footer")

    def on_resize(self) -> None:
        """On a short terminal the key list scrolls inside the box (border, title and footer
        take 4 lines) instead of the box running off the screen."""
        self.query_one("#help-scroll", KeyScroll).styles.max_height = max(3, min(HELP_LINES, self.size.height - 4))


def move_line(keys: tuple[Key, ...]) -> Text:
    """The keys that move and scroll (every list and pane has them), as one wrapped paragraph."""
    line = Text("Move  ", style="bold underline")
    for index, key in enumerate(keys):
        if index:
            line.append(" · ", style="dim")
        line.append(key.shown, style="bold cyan")
        line.append(f" {key.description}")
    return line


def key_rows(keys: tuple[Key, ...]) -> list[tuple[Text, Text]]:
    """(key, description) rows with a heading row before each group."""
    rows: list[tuple[Text, Text]] = []
    group = None
    for key in keys:
        if key.group != group:
            group = key.group
            rows.append((Text(""), Text(group, style="bold underline")))
        rows.append((Text(key.shown, style="bold cyan"), Text(key.description)))
    return rows


def key_table(keys: tuple[Key, ...]) -> Table:
    """The key rows in two side-by-side columns, split between groups near the middle."""
    rows = key_rows(keys)
    headings = [i for i, (_, text) in enumerate(rows) if text.style == "bold underline"]
    split = min(headings, key=lambda i: abs(i - len(rows) / 2))
    if split == 0:  # one group: split its rows in the middle instead
        split = (len(rows) + 1) // 2
    left, right = rows[:split], rows[split:]
    table = Table.grid(padding=(0, 1), expand=True)
    for half in (left, right):
        table.add_column(justify="right", no_wrap=True, width=max([5, *(len(key.plain) for key, _ in half)]))
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    empty = (Text(""), Text(""))
    for index in range(max(len(left), len(right))):
        a = left[index] if index < len(left) else empty
        b = right[index] if index < len(right) else empty
        table.add_row(*a, *b)
    return table
