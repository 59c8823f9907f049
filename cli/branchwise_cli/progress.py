"""How `branchwise index` shows its progress: a live display on a terminal, plain lines elsewhere.

The indexer reports (stage, done, total) for parsing files, and the workspace announces each
branch as `branch:NAME` with its position; the embedding stage that follows announces each
group of texts as `embedding:NAME` (a branch, or history) and reports `embed` counts. On a
terminal that becomes a rich progress display (files and symbols of each branch, with rate
and ETA); when stderr is a file or a pipe, one plain line per branch and per finished stage,
and at least one line every `HEARTBEAT_SECONDS` meanwhile (with rate and ETA where there is
a count), so a log never goes silent during the model's minutes; `--quiet` shows nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

from branchwise.display import escape_controls

if TYPE_CHECKING:
    from rich.progress import TaskID

#: what each stage counts: the summary printed after the run uses the same words
UNITS = {"parse": "files changed", "embed": "symbols"}
RATE_UNITS = {"parse": "files", "embed": "symbols"}
#: a plain log gets a line at least this often while an index run works
HEARTBEAT_SECONDS = 10.0
#: how often the terminal display redraws (rich's own default)
REFRESHES_PER_SECOND = 10


def eta_text(seconds: float) -> str:
    """"3m 40s", "12s": a remaining time as a person reads it."""
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def ticker(tick, lock: threading.Lock) -> threading.Thread:
    """A display's thread, started, that writes only while it holds `lock`: the parse pool may
    fork beside it (index/parsing.py takes the lock while it forks)."""
    from branchwise.index.parsing import allow_fork_beside

    thread = threading.Thread(target=tick, name="index-progress", daemon=True)
    allow_fork_beside(thread, lock)
    thread.start()
    return thread


class PlainProgress:
    """One line when a branch starts and when each of its stages finishes, with its rate; in
    between, a line with the count, rate and ETA whenever `heartbeat` seconds passed silently."""

    def __init__(self, out: TextIO, heartbeat: float = HEARTBEAT_SECONDS) -> None:
        self.out = out
        self.branch = ""
        self.mark = time.perf_counter()  # when the branch or its previous stage ended: the stage's start
        self.heartbeat = heartbeat
        self.last_line = self.mark
        self.state: tuple[str, int, int] | None = None  # the stage in progress and its counts
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._ticker = ticker(self._tick, self._lock)

    def __call__(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            self._report(stage, done, total)

    def _report(self, stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if stage.startswith("branch:"):
            self.branch = escape_controls(stage.split(":", 1)[1])
            self.mark, self.state = now, None
            self._print(f"indexing {self.branch} (branch {done + 1} of {total})")
            return
        if stage.startswith("embedding:"):
            self.branch = escape_controls(stage.split(":", 1)[1])
            self.mark, self.state = now, ("embed", 0, 0)
            return
        if total and done >= total:
            seconds = now - self.mark
            unit = UNITS.get(stage, "items")
            rate = f" ({done / seconds:,.0f} {RATE_UNITS.get(stage, unit)}/s)" if seconds >= 0.001 else ""
            self._print(f"  {self.branch}: {stage} {done} {unit} in {seconds:.1f}s{rate}")
            self.mark, self.state = now, None
            return
        self.state = (stage, done, total)
        if now - self.last_line >= self.heartbeat:
            self._print(self._progress_line(now))

    def _progress_line(self, now: float) -> str:
        stage, done, total = self.state or ("working", 0, 0)
        seconds = now - self.mark
        unit = UNITS.get(stage, "items")
        if not done:
            waiting = "first batch under way" if stage == "embed" else "working"
            return f"  {self.branch}: {stage}: {waiting} ({seconds:.0f}s)"
        rate = done / seconds if seconds > 0 else 0.0
        eta = f", ETA {eta_text((total - done) / rate)}" if rate > 0 and total > done else ""
        return f"  {self.branch}: {stage} {done:,} of {total:,} {unit} ({rate:,.0f} {RATE_UNITS.get(stage, unit)}/s{eta})"

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)
        self.last_line = time.perf_counter()

    def _tick(self) -> None:
        while not self._closed.wait(1.0):
            with self._lock:
                now = time.perf_counter()
                if now - self.last_line >= self.heartbeat and not self._closed.is_set():
                    self._print(self._progress_line(now))

    def close(self, interrupted: bool = False) -> None:
        self._closed.set()


class RichProgress:
    """A rich live display: one bar per stage of the current branch, with rate and ETA."""

    def __init__(self, out: TextIO) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=Console(file=out), transient=False, auto_refresh=False,
        )
        self.progress.start()
        # refreshed by a thread of ours rather than rich's, under a lock the parse pool can hold
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._ticker = ticker(self._tick, self._lock)
        self.overall: TaskID | None = None  # one row for the whole run: branches, then embedding
        self.branch_count = 0
        self.stopped = False
        self.branch = ""
        self.tasks: dict[str, TaskID] = {}
        self.names: dict[str, str] = {}  # branch -> how its rows are labelled ("main (1/4)")

    def _tick(self) -> None:
        while not self._closed.wait(1 / REFRESHES_PER_SECOND):
            with self._lock:
                if not self.stopped:
                    self.progress.refresh()

    def __call__(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            self._report(stage, done, total)

    def _report(self, stage: str, done: int, total: int) -> None:
        if stage.startswith("branch:"):
            name = stage.split(":", 1)[1]
            self.branch = self.names[name] = f"{escape_controls(name)} ({done + 1}/{total})"
            self.tasks.clear()
            if self.overall is None:
                self.branch_count = total
                self.overall = self.progress.add_task("all branches", total=total, rate="")
            self.progress.update(self.overall, completed=done)
            return
        if stage.startswith("embedding:"):
            name = stage.split(":", 1)[1]
            self.branch = self.names.get(name, escape_controls(name))
            self.tasks.pop("embed", None)
            if self.overall is not None:  # every branch is stored: the run goes on embedding
                self.progress.update(self.overall, completed=self.branch_count,
                                     description="all branches stored; embedding")
            return
        unit = UNITS.get(stage, "items")
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(f"{self.branch} {unit}", total=total, rate="")
        task_id = self.tasks[stage]
        self.progress.update(task_id, completed=done, total=total)
        speed = next((t.speed for t in self.progress.tasks if t.id == task_id), None)
        self.progress.update(task_id, rate=f"{speed:,.0f} {RATE_UNITS.get(stage, unit)}/s" if speed else "")

    def close(self, interrupted: bool = False) -> None:
        """Stop the display (once); an interrupted run's bars are erased, so that the one
        line saying what was kept follows the command line."""
        self._closed.set()
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
            if interrupted:
                self.progress.live.transient = True
            elif self.overall is not None:  # every branch stored (with nothing left to embed, no stage said so)
                self.progress.update(self.overall, completed=self.branch_count)
            self.progress.stop()


class BranchWatch:
    """Passes an index run's progress on to the display, and remembers which branches it
    has stored, for the line an interrupted run prints (`kept`)."""

    def __init__(self, display: PlainProgress | RichProgress | None) -> None:
        self.display = display
        self.branches: list[str] = []
        self.embedding = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage.startswith("branch:"):
            self.branches.append(stage.split(":", 1)[1])
        elif stage.startswith("embedding:") or stage == "embed":
            self.embedding = True
        if self.display is not None:
            self.display(stage, done, total)

    def kept(self) -> str:
        """What an interrupted run kept, and how to carry on."""
        resume = "run `branchwise index` again: it parses and embeds only what is missing"
        stored = self.branches if self.embedding else self.branches[:-1]
        names = ", ".join(escape_controls(name) for name in stored)
        if self.embedding:
            return (f"kept: {names or 'every branch'} stored and searchable, and the vectors embedded so far "
                    f"(searches are by name and words until the rest are embedded); {resume}")
        lost = f"{escape_controls(self.branches[-1])} was not stored (its changes were rolled back)" if self.branches else ""
        if not stored:
            return f"nothing new was stored{'; ' + lost if lost else ''}; {resume}"
        return f"kept: {names} stored and searchable; {lost}; {resume}"


def make_progress(quiet: bool, out: TextIO | None = None) -> PlainProgress | RichProgress | None:
    """The display for `index`: None when quiet, rich on a terminal, plain lines otherwise."""
    if quiet:
        return None
    out = out or sys.stderr
    return RichProgress(out) if out.isatty() else PlainProgress(out)
