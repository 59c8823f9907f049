"""One review session: the workspace, the current search, the reviewer's choices.

The app's widgets show what this object holds, and its blocking methods are what the app's
thread workers call, so every read and write of the index goes through the core from here and
the widgets stay free of core logic. It holds no widgets and imports nothing from Textual.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from branchwise import labels, stats
from branchwise.bundle import BundleContext, plan_bundle, shown_for
from branchwise.citation import header_lines, version_string
from branchwise.models import Label, Result
from branchwise.search import BranchInfo, SearchRequest
from branchwise.workspace import Workspace

DEFAULT_BUNDLE = Path("branchwise-bundle.md")

#: Characters per token for the bundle preview's estimate: the usual figure for code and
#: English with byte-pair tokenizers; a model's own tokenizer can differ by a fifth or so.
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Target:
    """What a search was verified against, named as the citation headers name it."""

    description: str  # e.g. "the work tree of main (HEAD 9f3c1ab)"
    commit: str
    version: str  # e.g. "main @ 9f3c1ab (2026-09-29)"
    indexed_versions: dict[str, str]  # result commit -> "<branch> @ <short> (<date>)"
    commit_dates: dict[str, str]  # result commit -> its commit date, YYYY-MM-DD


@dataclass(frozen=True)
class BundleItem:
    """One row of the bundle preview: a result, whether it goes in, and its estimated size."""

    result: Result
    included: bool
    handling: str  # "use", "reference-only", or why it stays out
    location: str  # path#Lstart-Lend of the text the bundle takes
    tokens: int


class ReviewSession:
    """The core is not thread-safe, so every blocking call holds one lock: workers take turns."""

    def __init__(self, workspace: Workspace, branch: str, against: str | None = None) -> None:
        self.workspace = workspace
        self.branch = branch
        self.against = against
        self.request: SearchRequest | None = None
        self.results: list[Result] = []
        self.target: Target | None = None
        #: every result reviewed in this session, by version id (the latest state wins)
        self.reviewed: dict[str, Result] = {}
        #: version ids of `changed` results whose indexed text, not the current one, goes in the bundle
        self.use_indexed_text: set[str] = set()
        #: the reviewers' notes on the results under review, by version id
        self.notes: dict[str, str] = {}
        #: the indexed branches as last listed (read without the lock, e.g. while quitting)
        self.branch_infos: list[BranchInfo] = []
        self.model_ready = False
        self._lock = threading.Lock()

    @property
    def repository(self) -> str:
        return self.workspace.repo.name

    # blocking core calls: run these from thread workers ------------------------------------

    def branches(self) -> list[BranchInfo]:
        with self._lock:
            self.branch_infos = self.workspace.indexed_branches()
            return self.branch_infos

    def warm(self) -> None:
        """Load the embedding model and open the vector index, so the first search need not."""
        with self._lock:
            self.workspace.searcher
            self.workspace.embedder.embed(["warm up"])
            self.model_ready = True

    def search(self, request: SearchRequest) -> tuple[list[Result], Target, dict[str, str]]:
        """The verified, labelled results, their target, and the reviewers' notes on them."""
        with self._lock:
            results = self.workspace.search(request, self.against)
            self.model_ready = True
            notes = labels.notes_for(self.workspace.store.conn, self.repository, [r.version_id for r in results])
            return results, self._target(results), notes

    def set_labels(self, results: list[Result], label: Label | None) -> None:
        """Label (or clear) each of `results`; a note already written stays with its label."""
        with self._lock:
            notes = labels.notes_for(self.workspace.store.conn, self.repository, [r.version_id for r in results])
            for result in results:
                self.workspace.set_label(result, label, notes.get(result.version_id, ""))

    def set_note(self, result: Result, note: str) -> None:
        """Store `note` with the result's label; an unlabelled result gets its default label."""
        with self._lock:
            self.workspace.set_label(result, result.label or labels.effective_label(result), note.strip())

    def bundle_plan(self) -> list[BundleItem]:
        """What an export would write now, in bundle order, with estimated token counts."""
        items = []
        for planned in plan_bundle(self.results, self._context()):
            shown = planned.shown
            header = self.header(planned.result)
            tokens = -(-(len("\n".join(header)) + len(shown.text)) // CHARS_PER_TOKEN) if planned.included else 0
            handling = shown.label.value if planned.included else (planned.why_out or "left out")
            items.append(BundleItem(planned.result, planned.included, handling,
                                    f"{shown.path}#L{shown.start_line}-L{shown.end_line}", tokens))
        return items

    def export(self, out: Path):
        from branchwise.exporting import export_bundle

        with self._lock:
            return export_bundle(self.workspace, self.request, out, against=self.against,
                                 results=self.results, use_indexed_text=frozenset(self.use_indexed_text))

    def refresh_index(self) -> str:
        """Bring every indexed branch up to its tip; returns what changed, in one line."""
        names = [b.name for b in self.branches()] or [self.branch]
        with self._lock:
            summaries = self.workspace.index(names)
        return "; ".join(f"{s.branch} @ {s.commit[:7]}: {s.versions_added} new versions" for s in summaries)

    def statistics(self) -> dict:
        with self._lock:
            return stats.summarize(self.workspace.index_dir, self.repository, self.workspace.config)

    def record(self) -> dict | None:
        """Append this session's record to the stats log; None when no search ran."""
        if not self.reviewed:
            return None
        # no lock: a worker may still hold it (loading the model), and quitting must not wait
        info = next((b for b in self.branch_infos if b.name == self.branch), None)
        return stats.record_session(
            self.workspace.index_dir, "review", self.repository, self.branch,
            info.commit if info else None, _age_seconds(info.indexed_at) if info else None,
            list(self.reviewed.values()),
        )

    def _target(self, results: list[Result]) -> Target:
        repo = self.workspace.repo
        verifier = self.workspace.verifier(self.branch, self.against)
        dates: dict[str, str | None] = {}

        def version(branch: str, commit: str) -> str:
            if commit not in dates:
                dates[commit] = repo.commit_time(commit).date().isoformat()
            return version_string(branch, commit, dates[commit])

        target_version = version(self.branch, verifier.target_commit)
        if verifier.uses_work_tree:
            target_version += ", work tree"
        indexed = {r.commit: version(r.branch, r.commit) for r in results if r.commit}
        return Target(verifier.target, verifier.target_commit, target_version, indexed,
                      {commit: dates[commit] for commit in indexed})

    # state kept for the screen (UI thread) ----------------------------------------------------

    def accept(self, request: SearchRequest, results: list[Result], target: Target, notes: dict[str, str]) -> None:
        """Take a finished search's results, in ranking order, as the ones under review."""
        self.notes = dict(notes)
        self.request = request
        self.results = sorted(results, key=lambda r: r.rank)
        self.target = target
        self.reviewed.update((r.version_id, r) for r in self.results)

    def takes_current_text(self, result: Result) -> bool:
        """Whether the bundle gets the current text of a `changed` result (the core's default)."""
        return result.current_text is not None and result.version_id not in self.use_indexed_text

    def toggle_current_text(self, result: Result) -> bool:
        self.use_indexed_text.symmetric_difference_update({result.version_id})
        return self.takes_current_text(result)

    def commit_date(self, result: Result) -> str:
        return self.target.commit_dates.get(result.commit, "") if self.target else ""

    def _context(self) -> BundleContext:
        return BundleContext(
            query=self.request.query, repository=self.repository, branch=self.branch,
            target_commit=self.target.commit, target=self.target.description,
            use_indexed_text=frozenset(self.use_indexed_text), notes=self.notes,
        )

    def header(self, result: Result) -> list[str]:
        """The citation header this result would carry in the bundle, as the bundle builds it."""
        target = self.target
        context = self._context()
        return header_lines(
            result, shown_for(result, context), branch=self.branch, target=target.description,
            target_version=target.version,
            indexed_version=target.indexed_versions.get(result.commit, version_string(result.branch, result.commit, None)),
        )


def _age_seconds(indexed_at: str) -> float | None:
    try:
        then = datetime.fromisoformat(indexed_at)
    except ValueError:
        return None
    return (datetime.now(timezone.utc) - then).total_seconds()
