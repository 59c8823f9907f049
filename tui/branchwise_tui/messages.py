"""Messages that carry the core's answers from worker threads up to the app.

Workers run in threads and must never touch widgets; they post one of these instead, and the
app's handlers (on the UI thread) update the screen. "Attributes down, messages up."
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.message import Message

from branchwise.models import Result
from branchwise.search.hybrid import BranchInfo, SearchRequest
from branchwise_tui.session import LabelChange, Target


class SearchCompleted(Message):
    """A search ran and its results were verified and labelled by the core."""

    def __init__(self, request: SearchRequest, results: list[Result], target: Target) -> None:
        super().__init__()
        self.request = request
        self.results = results
        self.target = target


class ModelLoaded(Message):
    """The embedding model is loaded (or failed to load: `error`), ahead of the first search."""

    def __init__(self, error: str | None = None) -> None:
        super().__init__()
        self.error = error


class NoteSaved(Message):
    """The reviewer's note on `result` was stored (the label as it was) (`change` undoes it)."""

    def __init__(self, result: Result, note: str, change: LabelChange) -> None:
        super().__init__()
        self.result = result
        self.note = note
        self.change = change


class LabelSaved(Message):
    """The core stored (or cleared) the reviewer's label of each of `results` (`change` undoes it)."""

    def __init__(self, results: list[Result], change: LabelChange) -> None:
        super().__init__()
        self.results = results
        self.change = change


class LabelsRestored(Message):
    """An undo put the labels (and notes) `change` touched back as they were stored before it."""

    def __init__(self, change: LabelChange) -> None:
        super().__init__()
        self.change = change


class PinsSaved(Message):
    """The core pinned (or unpinned) the symbol of each of `results` on the session's branch."""

    def __init__(self, results: list[Result], pinned: bool) -> None:
        super().__init__()
        self.results = results
        self.pinned = pinned


class ExportCompleted(Message):
    """The bundle and its manifest were written; `summary` is the core's one-line report."""

    def __init__(self, summary: str, bundle_path: Path) -> None:
        super().__init__()
        self.summary = summary
        self.bundle_path = bundle_path


class IndexRefreshed(Message):
    """The indexed branches were brought up to date; `branches` is the new list."""

    def __init__(self, branches: list[BranchInfo], summary: str) -> None:
        super().__init__()
        self.branches = branches
        self.summary = summary


class StatsLoaded(Message):
    """The core's statistics summary, ready for the statistics screen."""

    def __init__(self, summary: dict[str, Any]) -> None:
        super().__init__()
        self.summary = summary


class BundleMeasured(Message):
    """The bundle that the reviewed results would make now holds `tokens` tokens (the
    `number`th count the app asked for: an earlier one finishing late is stale)."""

    def __init__(self, tokens: int, number: int = 0) -> None:
        super().__init__()
        self.tokens = tokens
        self.number = number


class BundlePlanned(Message):
    """The core built the bundle the reviewed results make now: the preview's rows."""

    def __init__(self, plan) -> None:
        super().__init__()
        self.plan = plan
