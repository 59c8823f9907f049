"""One review session: the workspace, the current search, the reviewer's choices.

The app's widgets show what this object holds, and its blocking methods are what the app's
thread workers call, so every read and write of the index goes through the core from here and
the widgets stay free of core logic. It holds no widgets and imports nothing from Textual.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from pathlib import Path

from branchwise.display import escape_controls
from branchwise.errors import BranchwiseError
from branchwise.models import Label, Result
from branchwise.review.bundle import BundleContext, shown_for
from branchwise.review.bundle.overlap import REFERENCE
from branchwise.review.labels import LabelRecord
from branchwise.search.coverage import Coverage
from branchwise.search.hybrid import BranchInfo, SearchRequest
from branchwise.verify.citation import Shown
from branchwise.wording import plural
from branchwise.workspace import Workspace

DEFAULT_BUNDLE = Path("branchwise-bundle.md")


@dataclass(frozen=True)
class Target:
    """What a search was verified against, as the bundle's citation headers name it, with the
    dates of the commits they cite looked up beforehand (headers are drawn on the UI thread)."""

    context: BundleContext
    dates: dict[str, str | None]

    @property
    def description(self) -> str:  # e.g. "the work tree of main (HEAD 9f3c1ab)"
        return self.context.target


@dataclass(frozen=True)
class LabelChange:
    """One label or note change, undoable: each result's stored label (None: none) before it."""

    kind: str  # "label" or "note"
    before: tuple[tuple[Result, LabelRecord | None], ...]
    summary: str  # what the status line says, e.g. "Option.get_default → reference-only"


@dataclass(frozen=True)
class BundleItem:
    """One row of the bundle preview: a result, whether it goes in, and its size in tokens."""

    result: Result
    included: bool
    handling: str  # "use", "reference-only", or why it stays out
    location: str  # path#Lstart-Lend of the text the bundle takes
    tokens: int


@dataclass(frozen=True)
class BundlePlan:
    """What an export would write now: the chunks in bundle order, then what stays out."""

    items: list[BundleItem]
    total_tokens: int  # the whole bundle: title, headers, chunks and the left-out list
    tokenizer: str


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
        #: the dense coverage of the branch at the last search (None: the backend cannot tell)
        self.coverage: Coverage | None = None
        #: what the last search's branch says about its index (behind the tip, uncommitted
        #: edits): the CLI's and status's words (advice.py), shown in the app's header
        self.index_note: str | None = None
        self._lock = threading.Lock()

    @property
    def repository(self) -> str:
        return self.workspace.repo.name

    # blocking core calls: run these from thread workers ------------------------------------

    def call(self, function, *args, **kwargs):
        """Run any other core call under the session's lock (the diff and tour screens' work)."""
        with self._lock:
            return function(*args, **kwargs)

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

    def search(self, request: SearchRequest) -> tuple[list[Result], Target]:
        with self._lock:
            results = self.workspace.search(request, self.against)
            self.model_ready = True
            self.coverage = self.workspace.dense_coverage(request.branch)
            self.index_note = self.workspace.review.results_note(request.branch)
            return results, self._target(request, results)

    def subtitle(self, tokens: int | None = None) -> str:
        """The header's second part: repository @ branch, the bundle's tokens once counted, and
        the index's staleness line when there is one (escaped: names come from the repository)."""
        parts = [f"{self.repository} @ {self.branch}"]
        if tokens is not None:
            parts.append(f"bundle: {tokens:,} tokens")
        if self.index_note:
            parts.append(self.index_note)
        return escape_controls(" · ".join(parts))

    def results_status(self, count: int) -> str:
        """The status line after a search: the result count, the dense coverage while the
        model is still embedding the branch (embedstage.py) with the static stage's beside it,
        as `search` and `status` say it (coverage.py), and the index's staleness line."""
        coverage = self.coverage
        status = plural(count, "result")
        if coverage is not None and not coverage.complete:
            static = coverage.static  # kept short: an 80-column status line has about 48 cells
            stage = "embedding" if static is None else f"static {'complete' if static.complete else f'{static.percent}%'}"
            status += f" · dense coverage {coverage.percent}% ({stage})"
        if self.index_note:  # also in the header, which a short terminal does not show
            status += f" · {self.index_note}"
        return status

    def set_labels(self, results: list[Result], label: Label | None, notes: dict[str, str]) -> LabelChange:
        """Label (or clear the label of) each of `results`, keeping the note each already has
        (`notes`): a cleared label leaves the note standing alone."""
        with self._lock:
            before = tuple((r, self.workspace.review.label_record(r)) for r in results)
            for result in results:
                self.workspace.review.set_label(result, label, notes.get(result.version_id, ""))
        what = results[0].identity.qualified_name if len(results) == 1 else f"{len(results)} results"
        return LabelChange("label", before, f"{what} → {label.value if label else 'no label'}")

    def set_pins(self, results: list[Result], pinned: bool) -> None:
        """Pin (or unpin) the symbol of each of `results` on the session's branch."""
        with self._lock:
            for result in results:
                if pinned:
                    self.workspace.review.pin(result, self.branch)
                else:
                    self.workspace.review.unpin(result, self.branch)

    def set_note(self, result: Result, note: str) -> LabelChange:
        """Store `note` on the result's version and leave its label as stored: an unlabelled
        result's note stands alone and the result keeps its default handling."""
        with self._lock:
            record = self.workspace.review.label_record(result)
            before = ((result, record),)
            self.workspace.review.set_label(result, None if record is None else record.label, note.strip())
        return LabelChange("note", before, f"note on {result.identity.qualified_name}")

    def undo(self, change: LabelChange) -> None:
        """Put every label `change` touched back as it was stored before it."""
        with self._lock:
            for result, record in change.before:
                self.workspace.review.restore_label(result, record)

    def export(self, out: Path):
        if self.request is None:
            raise BranchwiseError("nothing to export: search first")
        with self._lock:
            return self.workspace.review.export(self.request, out, against=self.against, results=self.results,
                                         use_indexed_text=frozenset(self.use_indexed_text), force=True)

    def bundle_tokens(self, request: SearchRequest, results: list[Result], use_indexed_text: frozenset[str]) -> int:
        """Tokens of the bundle these reviewed results make now (after overlaps and labels)."""
        with self._lock:
            bundle = self.workspace.review.build_bundle(request, results, self.against, use_indexed_text, allow_secrets=True)
        return bundle.total_tokens

    def bundle_plan(self) -> BundlePlan:
        """What an export would write now, built by the core's bundler (nothing is written)."""
        if self.request is None:
            raise BranchwiseError("nothing to bundle: search first")
        with self._lock:
            bundle = self.workspace.review.build_bundle(self.request, self.results, self.against,
                                                 frozenset(self.use_indexed_text), allow_secrets=True)
        items = [BundleItem(p.result, True, "reference-only" if p.role == REFERENCE else "use",
                            f"{p.shown.path}#L{p.shown.start_line}-L{p.shown.end_line}", p.tokens)
                 for p in bundle.pieces]
        shown = {id(p.result) for p in bundle.pieces}
        by_version = {r.version_id: r for r in self.results}
        for entry in bundle.manifest["results"]:
            result = by_version.get(entry["version_id"])
            if result is None or id(result) in shown:
                continue
            why = "inside another chunk" if entry["included"] else (entry["left_out"] or "left out")
            items.append(BundleItem(result, False, why, f"{result.path}#L{result.start_line}-L{result.end_line}", 0))
        return BundlePlan(items, bundle.total_tokens, bundle.manifest.get("tokenizer") or "")

    def refresh_index(self) -> str:
        """Bring every indexed branch up to its tip; returns what changed, in one line."""
        names = [b.name for b in self.branches()] or [self.branch]
        with self._lock:
            summaries = self.workspace.index(names)
        return "; ".join(f"{s.branch} @ {s.commit[:7]}: {s.versions_added} new versions" for s in summaries)

    def statistics(self) -> dict:
        with self._lock:
            return self.workspace.review.statistics()

    def record(self) -> dict | None:
        """Append this session's record to the stats log; None when no search ran.

        No lock: a worker may still hold it (loading the model), and quitting must not wait.
        """
        if not self.reviewed:
            return None
        info = next((b for b in self.branch_infos if b.name == self.branch), None)
        target = self.target.context.target_commit if self.target else None
        return self.workspace.review.record_session("review", self.branch, list(self.reviewed.values()),
                                             target_commit=target, info=info)

    def _target(self, request: SearchRequest, results: list[Result]) -> Target:
        context = self.workspace.review.bundle_context(request, results, self.against)
        commits = {context.target_commit, *(r.commit for r in results if r.commit)}
        return Target(context, {commit: self.workspace.review.commit_date(commit) for commit in commits})

    # state kept for the screen (UI thread) ----------------------------------------------------

    def accept(self, request: SearchRequest, results: list[Result], target: Target) -> None:
        """Take a finished search's results, in ranking order, as the ones under review."""
        self.request = request
        self.results = sorted(results, key=lambda r: r.rank)
        self.target = target
        self.notes = dict(target.context.notes)
        self.reviewed.update((r.version_id, r) for r in self.results)

    def commit_dates(self) -> dict[str, str]:
        return {commit: date for commit, date in self.target.dates.items() if date} if self.target else {}

    def takes_current_text(self, result: Result) -> bool:
        """Whether the bundle gets the current text of a `changed` result (the core's default)."""
        return result.current_text is not None and result.version_id not in self.use_indexed_text

    def toggle_current_text(self, result: Result) -> bool:
        self.use_indexed_text.symmetric_difference_update({result.version_id})
        return self.takes_current_text(result)

    def _searched(self) -> Target:
        """The last search's target; the results that ask for it exist only after one."""
        if self.target is None:
            raise BranchwiseError("no search yet")
        return self.target

    def _context(self) -> BundleContext:
        """The search's bundle context with the reviewer's current choices and notes."""
        return dataclasses.replace(self._searched().context, use_indexed_text=frozenset(self.use_indexed_text),
                                   notes=dict(self.notes))

    def shown(self, result: Result) -> Shown:
        """The text the bundle takes for this result and the lines its header cites."""
        return shown_for(result, self._context())

    def header(self, result: Result) -> list[str]:
        """The citation header this result would carry in the bundle, as the bundle builds it."""
        lines = self.workspace.review.citation_header(result, self._context(), dates=self._searched().dates.get)
        return [escape_controls(line) for line in lines]
