"""How `branchwise index` shows its progress: a live display on a terminal, plain lines elsewhere.

The indexer reports (stage, done, total) for parsing files and embedding symbols, and the
workspace announces each branch as `branch:NAME` with its position. On a terminal that becomes
a rich progress display (files and symbols of the current branch, with rate and ETA); when
stderr is a file or a pipe, one plain line per branch and per finished stage, so logs stay
readable; `--quiet` shows nothing.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, TextIO

from branchwise.display import escape_controls

if TYPE_CHECKING:
    from rich.progress import TaskID

UNITS = {"parse": "files", "embed": "symbols"}


class PlainProgress:
    """One line when a branch starts and when each of its stages finishes, with its rate."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.branch = ""
        self.mark = time.perf_counter()  # when the branch or its previous stage ended: the stage's start

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if stage.startswith("branch:"):
            self.branch = escape_controls(stage.split(":", 1)[1])
            self.mark = now
            print(f"indexing {self.branch} (branch {done + 1} of {total})", file=self.out, flush=True)
            return
        if total and done >= total:
            seconds = now - self.mark
            unit = UNITS.get(stage, "items")
            rate = f" ({done / seconds:,.0f} {unit}/s)" if seconds >= 0.001 else ""
            print(f"  {self.branch}: {stage} {done} {unit} in {seconds:.1f}s{rate}", file=self.out, flush=True)
            self.mark = now

    def close(self) -> None:
        pass


class RichProgress:
    """A rich live display: one bar per stage of the current branch, with rate and ETA."""

    def __init__(self, out: TextIO) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=Console(file=out), transient=False,
        )
        self.progress.start()
        self.branch = ""
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage.startswith("branch:"):
            self.branch = f"{escape_controls(stage.split(':', 1)[1])} ({done + 1}/{total})"
            self.tasks.clear()
            return
        unit = UNITS.get(stage, "items")
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(f"{self.branch} {unit}", total=total, rate="")
        task_id = self.tasks[stage]
        self.progress.update(task_id, completed=done, total=total)
        speed = next((t.speed for t in self.progress.tasks if t.id == task_id), None)
        self.progress.update(task_id, rate=f"{speed:,.0f} {unit}/s" if speed else "")

    def close(self) -> None:
        self.progress.stop()


def make_progress(quiet: bool, out: TextIO | None = None) -> PlainProgress | RichProgress | None:
    """The display for `index`: None when quiet, rich on a terminal, plain lines otherwise."""
    if quiet:
        return None
    out = out or sys.stderr
    return RichProgress(out) if out.isatty() else PlainProgress(out)
