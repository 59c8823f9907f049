"""The review jobs of one workspace: labels, pins, bundles and the statistics log.

`Workspace.review` is one of these. Each method opens nothing itself: the workspace (`ws`)
hands over its repository, store, searcher, verifier and access rule, and every write to
the index database happens under the workspace's write lock.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from branchwise.config import Config
from branchwise.errors import AccessDeniedError, UsageError
from branchwise.models import Label, Result
from branchwise.review import labels, stats, usage
from branchwise.review.advice import repository_advice, results_note
from branchwise.search import pins
from branchwise.search.access import Restriction, restriction_for
from branchwise.search.hybrid import BranchInfo, SearchRequest
from branchwise.search.pins import Pin, PinKey
from branchwise.store import require_index, resolve_index_dir

if TYPE_CHECKING:  # the bundle's formats, overlap rules and token counts load when a bundle is made
    from branchwise.review.bundle import Bundle, BundleContext, BundleReport


class Review:
    """What a reviewer does with one workspace's results (see the module docstring)."""

    def __init__(self, ws):
        self.ws = ws

    @cached_property
    def _dates(self):
        from branchwise.review.bundle import CommitDates

        return CommitDates(self.ws.repo)

    @property
    def _conn(self):
        return self.ws.store.conn

    @property
    def _repository(self) -> str:
        return self.ws.repo.name

    def _refuse_unreadable(self, path: str) -> None:
        if self.ws.access.allows is not None and not self.ws.access.allows(path):
            raise UsageError(f"{path} is outside what you may read")

    # bundles and citation headers ---------------------------------------------------------

    def bundle_context(self, request: SearchRequest, results: list[Result], against: str | None = None,
                       use_indexed_text: frozenset[str] = frozenset(), allow_secrets: bool = False,
                       verifier=None, **options) -> BundleContext:
        """What a bundle of these results says about where they come from and were checked.
        `verifier`: the one that checked them, when the caller has it; `options` are further
        BundleContext fields: format, max_tokens, reference_as."""
        from branchwise.review.bundle import BundleContext, LabelledMember
        from branchwise.verify.container_text import text_in_file

        ws, conn, repository = self.ws, self._conn, self._repository
        verifier = verifier or ws.verifier(request.branch, against)
        branch = ws.searcher.branch(request.branch)

        def member_labels(result: Result) -> list[LabelledMember]:
            return [LabelledMember(name, label, text_in_file(ws.repo, result, name, text) or text)
                    for name, label, text in
                    labels.member_labels(conn, repository, result.path, result.identity.qualified_name)]

        return BundleContext(
            query=request.query, repository=repository, branch=request.branch,
            target_commit=verifier.target_commit, target=verifier.target,
            target_is_work_tree=verifier.uses_work_tree, target_ref=verifier.target_ref, repo=ws.repo,
            index_commit=branch.commit, index_age_seconds=age_seconds(branch.indexed_at),
            parent_signature=ws.searcher.parent_signature, parent_text=self._parent_text,
            member_labels=member_labels, use_indexed_text=use_indexed_text,
            notes=labels.notes_for(conn, repository, [r.version_id for r in results]),
            allow_secrets=allow_secrets, **options,
        )

    def _parent_text(self, result: Result) -> str | None:
        """A result's enclosing symbol's whole text (a class around a lone method)."""
        from branchwise.verify.container_text import text_in_file

        if not result.parent:
            return None
        return text_in_file(self.ws.repo, result, result.parent, self.ws.searcher.parent_text(result),
                            same_outline=False)

    def context_bundle(self, query: str, branch: str, max_tokens: int | None = None, format: str = "markdown", *,
                       top_k: int = 10, scope: str = "branch", reference_as: str = "code",
                       class_outline: bool = False, against: str | None = None,
                       allow_secrets: bool = False) -> Bundle:
        """The verified context bundle for a question on a branch, for a tool to hand to a model:
        `Bundle.text` (markdown, xml or json) and `Bundle.manifest`; nothing is written or logged."""
        request = SearchRequest(query=query, branch=branch, top_k=top_k, scope=scope)
        return self.build_bundle(request, against=against, allow_secrets=allow_secrets, format=format,
                                 max_tokens=max_tokens, reference_as=reference_as, class_outline=class_outline)

    def build_bundle(self, request: SearchRequest, results: list[Result] | None = None, against: str | None = None,
                     use_indexed_text: frozenset[str] = frozenset(), allow_secrets: bool = False,
                     **options) -> Bundle:
        """The bundle for `request` (or for already reviewed `results`), built but not written:
        e.g. the review app's running token count."""
        if results is None:
            results = self.ws.search(request, against)
        from branchwise.review.bundle import build_bundle

        context = self.bundle_context(request, results, against, use_indexed_text, allow_secrets, **options)
        return build_bundle(results, context)

    def commit_date(self, commit: str) -> str | None:
        """A commit's date as citation headers show it (YYYY-MM-DD), looked up once."""
        return self._dates(commit)

    def citation_header(self, result: Result, context: BundleContext, dates=None) -> list[str]:
        """The citation header this result carries in a bundle written with `context`.
        `dates` maps a commit to its date (default: looked up in the repository)."""
        from branchwise.review.bundle import header_for

        return header_for(result, context, dates or self._dates)

    def export(self, request: SearchRequest, out: Path, against: str | None = None, allow_secrets: bool = False,
               results: list[Result] | None = None, use_indexed_text: frozenset[str] = frozenset(),
               force: bool = False, record_stats: bool = True, **options) -> BundleReport:
        """Write the bundle for `request` (or for already reviewed `results`), and append the
        session to the failure-statistics log (an append-only file, outside the write lock)
        unless not `record_stats`.
        An existing file is kept unless `force`; nothing is written inside the index directory.
        `options` are further BundleContext fields: format, max_tokens, reference_as."""
        from branchwise.review.bundle import write_bundle

        ws = self.ws
        if results is None:
            results = ws.search(request, against)
        context = self.bundle_context(request, results, against, use_indexed_text, allow_secrets, **options)
        report = write_bundle(results, Path(out), context, force=force, index_dir=ws.index_dir)
        if record_stats:
            stats.record_session(ws.index_dir, "export", ws.repo.name, request.branch, context.index_commit,
                                 context.index_age_seconds, results, target_commit=context.target_commit,
                                 used=usage.bundle_uses(results, report.entries))
        return report

    # labels -------------------------------------------------------------------------------

    def set_label(self, result: Result, label: Label | None, note: str = "") -> None:
        """Persist a reviewer's label and note for this result's version: a note with label
        None stands alone (the default handling stays); neither clears what it had."""
        with self.ws.writing():
            if label is None and not note:
                labels.clear_label(self._conn, self._repository, result.version_id)
            else:
                labels.set_label(self._conn, self._repository, result, label, note)
        result.label = label

    def clear_labels(self, path: str, qualified_name: str) -> int:
        """Remove the labels and notes of every version of one symbol (`labels clear PATH::NAME`);
        returns how many there were."""
        self._refuse_unreadable(path)
        with self.ws.writing():
            found = [r.version_id for r in labels.list_labels(self._conn, self._repository)
                     if r.path == path and r.qualified_name == qualified_name]
            return sum(labels.clear_label(self._conn, self._repository, vid) for vid in found)

    def label_record(self, result: Result) -> labels.LabelRecord | None:
        """The stored label of this result's version, whole, or None (what an undo restores)."""
        return labels.label_record(self._conn, self._repository, result.version_id)

    def restore_label(self, result: Result, record: labels.LabelRecord | None) -> None:
        """Put back the label `label_record` read for this result (None: no label)."""
        with self.ws.writing():
            labels.restore_label(self._conn, self._repository, result.version_id, record)
        result.label = None if record is None else record.label

    def import_labels(self, path: Path) -> int:
        """Read a labels file (TOML) into this repository's labels, all or none; returns how
        many. Labels for paths the user may not read are refused."""
        allows = self.ws.access.allows
        with self.ws.writing():
            return labels.import_labels(self._conn, self._repository, Path(path), allows=allows)

    def export_labels(self, path: Path, force: bool = False) -> int:
        """Write this repository's labels (those the user may read) as TOML; returns how many.
        An existing file is kept unless `force` (outfiles.py)."""
        from branchwise.review.outfiles import refuse_overwrite

        return labels.export_labels(self._conn, self._repository, refuse_overwrite(Path(path), force),
                                    allows=self.ws.access.allows)

    def labels(self) -> list[dict]:
        """This repository's labels and notes (those the user may read), by path and name;
        a note alone has `label` None."""
        allows = self.ws.access.allows
        return [{"path": r.path, "qualified_name": r.qualified_name, "symbol_type": r.symbol_type,
                 "language": r.language, "content_hash": r.content_hash, "version_id": r.version_id,
                 "label": r.label and r.label.value, "note": r.note, "reviewer": r.reviewer, "labelled_at": r.labelled_at}
                for r in labels.list_labels(self._conn, self._repository) if allows is None or allows(r.path)]

    # pins ---------------------------------------------------------------------------------

    def pin(self, result: Result, branch: str, note: str = "") -> None:
        """Pin the result's symbol on `branch`: later searches there put it first whenever
        they find it (see pins.py)."""
        self._refuse_unreadable(result.path)
        with self.ws.writing():
            pins.pin(self._conn, self._repository, branch, result, note, labels.default_reviewer())
        result.pinned = not result.history

    def unpin(self, result: Result, branch: str) -> bool:
        """Remove the pin of the result's symbol on `branch`; True if there was one."""
        with self.ws.writing():
            found = pins.unpin(self._conn, self._repository, branch, result)
        result.pinned = False
        return found

    def pins(self, branch: str | None = None) -> list[Pin]:
        """The pins of this repository (of one branch), those the user may read."""
        allows = self.ws.access.allows
        return [p for p in pins.list_pins(self._conn, self._repository, branch) if allows is None or allows(p.path)]

    def pinned_keys(self, branch: str) -> frozenset[PinKey]:
        return pins.pinned_keys(self._conn, self._repository, branch)

    # statistics ---------------------------------------------------------------------------

    def statistics(self) -> dict:
        """This repository's failure statistics (as the user may see them): trend, breakdowns
        and a recommendation."""
        ws = self.ws
        if not ws.create:
            require_index(ws.index_dir)
        restriction = ws.restriction
        summary = stats.summarize(ws.index_dir, ws.repo.name, ws.config,
                                  view=lambda record: stats.restrict_record(record, restriction))
        summary["recommendation"] = repository_advice(ws.status()["branches"], summary["recommendation"])
        return summary

    def results_note(self, branch: str) -> str | None:
        """What an output of `branch`'s results says about its index, when anything: behind
        the tip ("index behind main tip by 2 commits: run `branchwise index` (...)") or
        uncommitted edits (advice.py; the words `status` and `stats` use)."""
        from branchwise.review.status import branch_entry

        info = next((b for b in self.ws.indexed_branches() if b.name == branch), None)
        return None if info is None else results_note(branch_entry(self.ws, info))

    @staticmethod
    def index_statistics(index: str | os.PathLike[str] | None, user: str | None = None) -> dict:
        """The failure statistics of every repository of an index that the user may read,
        without a repository at hand."""
        index_dir = resolve_index_dir(index, None)
        require_index(index_dir)
        config = Config.resolve(index_dir, {"user": user})
        restrictions: dict[str, Restriction | None] = {}

        def view(record: dict) -> dict | None:
            repository = record.get("repository") or ""
            if repository not in restrictions:
                try:
                    restrictions[repository] = restriction_for(index_dir, repository, config.user)
                except AccessDeniedError:
                    return None
            return stats.restrict_record(record, restrictions[repository])

        return stats.summarize(index_dir, None, config, view=view)

    def record_session(self, kind: str, branch: str, results: list[Result], target_commit: str | None = None,
                       info: BranchInfo | None = None, used: list[Result] | None = None) -> dict | None:
        """Append a session's record (a search's, a review's results) to the failure-statistics
        log; `target_commit`, what the results were verified against, lets the statistics tell
        failures that re-indexing would remove from uncommitted edits. `info`: the branch's
        record when the caller has it (the review app, quitting while a worker uses the index).
        `used`: the results taken as `use` (default: for a review, those the reviewer labelled
        `use`; otherwise none)."""
        ws = self.ws
        info = info or next((b for b in ws.indexed_branches() if b.name == branch), None)
        if used is None:
            used = usage.review_uses(results) if kind == "review" else []
        return stats.record_session(ws.index_dir, kind, ws.repo.name, branch, info.commit if info else None,
                                    age_seconds(info.indexed_at) if info else None, results,
                                    target_commit=target_commit, used=used)

    def used_versions(self, branch: str | None = None, limit: int = 20) -> dict:
        """The versions most often taken as `use` in the logged sessions of this repository (of
        one branch), each verified now against its branch (see usage.py)."""
        ws = self.ws
        if not ws.create:
            require_index(ws.index_dir)
        restriction = ws.restriction
        records, _bad = stats.load_records(ws.index_dir, ws.repo.name)
        records = [stats.restrict_record(r, restriction) for r in records]
        rows = usage.most_used(records, branch)[:limit]
        verifiers: dict[str, Any] = {}
        for row in rows:
            usage.verify_row(row, self._verifier_for(row["branch"], verifiers), ws.repo.name)
            row["pinned"] = usage.pin_key(row) in self.pinned_keys(row["branch"])
        return {"repository": ws.repo.name, "branch": branch, "sessions": len(records),
                "limit": limit, "used": rows}

    def _verifier_for(self, branch: str, verifiers: dict[str, Any]):
        """One verifier per branch (None when the branch no longer exists in the repository)."""
        if branch not in verifiers:
            verifiers[branch] = self.ws.verifier(branch) if branch in self.ws.repo.branches() else None
        return verifiers[branch]


def age_seconds(indexed_at: str) -> float | None:
    try:
        then = datetime.fromisoformat(indexed_at)
    except ValueError:
        return None
    return (datetime.now(timezone.utc) - then).total_seconds()
