"""The bottom bar: what the app is doing (loading the model, searching) and the keys that fit.

Textual's footer drops keys from the end when the terminal is narrow; this bar drops the least
essential ones first (by their priority in `keys.py`), so `/`, `?` and `q` are always there.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from branchwise_tui.keys import Key

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar { height: 1; dock: bottom; background: $panel; }
    """

    def __init__(self, keys: tuple[Key, ...], **kwargs) -> None:
        super().__init__(**kwargs)
        self.keys = [k for k in keys if k.priority]
        self.status = ""
        self.busy = False
        self._frame = 0

    def on_mount(self) -> None:
        self.set_interval(0.1, self._spin)

    def _spin(self) -> None:
        if self.busy:
            self._frame = (self._frame + 1) % len(SPINNER)
            self.refresh()

    def set_status(self, status: str, busy: bool = False) -> None:
        self.status, self.busy = status, busy
        self.refresh()

    def render(self) -> Text:
        return self.line(self.size.width or 80)

    def line(self, width: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.status:
            mark = SPINNER[self._frame] + " " if self.busy else ""
            essential = _width(self.keys, {i for i, k in enumerate(self.keys) if k.priority == 1})
            status = f"{mark}{self.status}"
            most = max(8, width - essential - 3)
            if len(status) > most:  # a long status (a label change) never pushes out / ? q
                status = status[:most - 1] + "…"
            text.append(f" {status} ", style="bold reverse" if self.busy else "bold")
            text.append(" ")
        room = width - len(text)
        chosen: set[int] = set()
        for index in sorted(range(len(self.keys)), key=lambda i: (self.keys[i].priority, i)):
            trial = chosen | {index}
            if _width(self.keys, trial) <= room:
                chosen = trial
        for index in sorted(chosen):
            key = self.keys[index]
            text.append(f" {key.shown} ", style="bold reverse")
            text.append(f" {key.title} ")
        return text


def _width(keys: list[Key], chosen: set[int]) -> int:
    return sum(len(keys[i].shown) + len(keys[i].title) + 4 for i in chosen)
