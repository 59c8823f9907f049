"""The preview pane: what the selected result is, where it stands, and its code.

It shows the citation header the bundle would give the chunk, the highlighted code the bundle
takes numbered from the line that header cites (long lines wrap), and, by verdict, what a
reviewer needs to decide: for `changed` the diff from the indexed to
the current text and which of the two the bundle takes; for `deleted` where the code was last
seen and, when verification found it, where it moved.
"""

from __future__ import annotations

import difflib
import re

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from branchwise.display import escape_controls
from branchwise.models import Result, Verdict
from branchwise.verify.citation import Shown, cited_location
from branchwise_tui.widgets.lists import KeyScroll

THEME = "monokai"


class Preview(KeyScroll):
    def on_mount(self) -> None:
        self.border_subtitle = "Tab: scroll here"

    def on_focus(self) -> None:
        self.border_subtitle = "↑↓ PgUp PgDn scroll · Esc: results"

    def on_blur(self) -> None:
        self.border_subtitle = "Tab: scroll here"

    def compose(self) -> ComposeResult:
        yield Static(id="citation")
        yield Static(id="status")
        yield Static(id="diff")
        yield Static(id="code")

    def clear(self, message: str = "") -> None:
        self.query_one("#citation", Static).update(message)
        for part in ("#status", "#diff", "#code"):
            self.query_one(part, Static).update("")
        self.set_class(False, "-changed", "-deleted")

    def show(self, result: Result, header: list[str], takes_current: bool, shown: Shown) -> None:
        """`shown`: the text the bundle takes and the lines `header` cites for it."""
        self.query_one("#citation", Static).update(Text("\n".join(header)))
        self.query_one("#status", Static).update(_status(result, takes_current))
        diff = self.query_one("#diff", Static)
        diff.update(_diff(result) if result.verdict is Verdict.CHANGED else "")
        diff.display = result.verdict is Verdict.CHANGED and result.current_text is not None
        start = shown.start_line if shown.start_line is not None else result.start_line
        self.query_one("#code", Static).update(
            Syntax(shown.text.rstrip("\n"), result.identity.language, theme=THEME,
                   line_numbers=True, start_line=start, word_wrap=True)
        )
        self.set_class(result.verdict is Verdict.CHANGED, "-changed")
        self.set_class(result.verdict is Verdict.DELETED, "-deleted")
        self.scroll_home(animate=False)


def _status(result: Result, takes_current: bool) -> Text:
    """One or two lines on the verdict: the reason, and what the reviewer can do about it."""
    verdict = result.verdict.value if result.verdict else "unverified"
    lines = [f"{verdict}: {result.reason}" if result.reason else verdict]
    if result.verdict is Verdict.CHANGED and result.current_text is not None:
        which = "the CURRENT text" if takes_current else "the INDEXED text"
        lines.append(f"The bundle takes {which} (press t to switch).")
    elif result.moved_unchanged and not result.history:
        lines.append(f"Now at: {cited_location(result)} (indexed at {result.path}#L{result.start_line}-L{result.end_line})")
    elif result.verdict is Verdict.DELETED:
        lines.append(f"Last seen: {result.branch}@{result.commit[:7]} "
                     f"{result.path}#L{result.start_line}-L{result.end_line}")
        if result.history_note:
            lines.append(f"History: {result.history_note}")
        if result.current_path is not None:
            lines.append(f"Moved to: {result.current_path}"
                         + (f"#L{result.current_start_line}-L{result.current_end_line}"
                            if result.current_start_line is not None else ""))
    return Text("\n".join(escape_controls(line) for line in lines))


def _diff(result: Result) -> Syntax | str:
    """Unified diff from the indexed text to the current text of a `changed` result."""
    if result.current_text is None:
        return ""
    current_path = result.current_path or result.path
    lines = difflib.unified_diff(
        result.text.splitlines(), result.current_text.splitlines(),
        fromfile=escape_controls(f"{result.path} (indexed, {result.commit[:7]})"),
        tofile=escape_controls(f"{current_path} (current)"),
        lineterm="",
    )
    new_start = result.current_start_line or result.start_line
    shown = [file_lines_hunk(line, result.start_line, new_start) for line in lines]
    return Syntax("\n".join(shown), "diff", theme=THEME, word_wrap=False)


HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def file_lines_hunk(line: str, old_start: int, new_start: int) -> str:
    """A hunk header with the file's line numbers instead of the chunk's (others unchanged).

    difflib numbers the lines of the two texts from 1; the chunk starts at `old_start` in the
    indexed file and at `new_start` in the current one.
    """
    match = HUNK.match(line)
    if match is None:
        return line
    old = int(match[1]) + old_start - 1
    new = int(match[3]) + new_start - 1
    return f"@@ -{old}{match[2] or ''} +{new}{match[4] or ''} @@{line[match.end():]}"
