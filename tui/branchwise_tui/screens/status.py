"""The index status screen: what the index covers of this repository, and how current it is.

It draws the core's status (`branchwise.review.status.repository_status`, the same structure that
`branchwise status --json` prints): each indexed branch against its tip, uncommitted edits of
the checked-out branch ("commit, then index"), the files the index left out and why, and the
records that failed verification and wait for a re-parse. It computes nothing itself.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from branchwise.display import escape_controls, escape_text
from branchwise.review.status import hooks_line, tip_line
from branchwise_tui.screens.stats import _table
from branchwise_tui.widgets.lists import KeyScroll, KeyTable


class StatusLoaded(Message):
    """The core's index status, ready for the status screen (posted by a worker thread)."""

    def __init__(self, status: dict[str, Any]) -> None:
        super().__init__()
        self.status = status


class StatusScreen(Screen[None]):
    BINDINGS = [Binding("escape,q,I", "app.pop_screen", "Back")]
    AUTO_FOCUS = "#status-body"  # the arrows, PageUp/PageDown, Home/End and j k g G scroll it

    def __init__(self, status: dict) -> None:
        super().__init__()
        self.status = status

    def compose(self) -> ComposeResult:
        status = self.status
        branches = status["branches"]
        behind = [b for b in branches if b["reindex_recommended"]]
        yield Header()
        with KeyScroll(id="status-body"):
            yield Static(escape_controls(_advice(behind)), id="status-advice", classes="reindex" if behind else "fine")
            work_tree = _work_tree(branches)
            if work_tree:
                yield Static(escape_text(work_tree), id="status-work-tree", markup=False)
            embedding = status["embedding"]
            yield Static(escape_controls(f"{status['repository']}: model {embedding['model']}, path weight "
                         f"{embedding['path_weight']}" + (f"; hooks {hooks_line(status['hooks'])}" if status.get("hooks") else "")),
                         classes="status-heading")
            yield _table("status-branches", ("Branch", "Tip", "Stale", "Skipped", "Files", "Symbols", "Indexed"), [
                (b["branch"], tip_line(b, short=True), b["stale_records"], len(b["skipped_files"]), b["files"], b["symbols"],
                 f"{b['indexed_commit'][:7]} {b['indexed_at'][:16].replace('T', ' ')}")
                for b in branches
            ])
            yield Static("Left out of the index", classes="status-heading")
            yield _table_or_none("status-skipped", ("Branch", "Path", "Reason"), [
                (b["branch"], s["path"], s["reason"]) for b in branches for s in b["skipped_files"]
            ])
            yield Static("Stale records (the next index run re-parses their files)", classes="status-heading")
            yield _table_or_none("status-stale", ("Branch", "Path", "Symbol", "Verdict", "When"), [
                (f["branch"], f["path"], f.get("qualified_name") or "", f["verdict"], str(f["time"])[:16].replace("T", " "))
                for f in status["stale_records"]
            ])
        yield Footer()


def _table_or_none(table_id: str, columns: tuple[str, ...], rows: list[tuple]) -> KeyTable | Static:
    """The table, or one dim "none" under its heading: a header row over nothing reads as a
    table that failed to load."""
    return _table(table_id, columns, rows) if rows else Static("none", id=f"{table_id}-none", classes="status-none")


def _work_tree(branches: list[dict]) -> str:
    """The checked-out branch's uncommitted edits, as `branchwise status` words them: a re-index
    cannot help them (the index holds commits), so they are no part of the advice above."""
    lines = []
    for b in branches:
        if b.get("work_tree"):
            lines.append(f"{b['branch']}: {b['work_tree']}")
            lines += [f"  {path}" for path in b.get("work_tree_changed_files", [])[:20]]
    return "\n".join(lines)


def _advice(behind: list[dict]) -> str:
    if not behind:
        return "Every indexed branch is up to date"
    return "Re-index recommended (i): " + "; ".join(f"{b['branch']}: {b['why']}" for b in behind)
