"""Bundles as one operation: search (or take reviewed results), verify, build, write, log.

The CLI's `export`, the review app's `e` and its token count, and any tool that hands a bundle
to a model come here, so a bundle from each carries the same headers, the same overlap
resolution, the same manifest and (when written) the same failure-statistics record.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from branchwise import labels, stats
from branchwise.bundle import Bundle, BundleContext, BundleReport, LabelledMember, build_bundle, write_bundle
from branchwise.models import Result
from branchwise.search import SearchRequest
from branchwise.workspace import Workspace


def bundle_context(
    workspace: Workspace,
    request: SearchRequest,
    results: list[Result],
    against: str | None = None,
    **options,
) -> BundleContext:
    """The context a bundle of `results` needs; `options` are BundleContext fields
    (format, max_tokens, reference_as, allow_secrets, use_indexed_text)."""
    verifier = workspace.verifier(request.branch, against)
    branch = workspace.searcher.branch(request.branch)
    conn, repository = workspace.store.conn, workspace.repo.name

    def member_labels(result: Result) -> list[LabelledMember]:
        return [LabelledMember(name, label, text) for name, label, text in
                labels.member_labels(conn, repository, result.path, result.identity.qualified_name)]

    return BundleContext(
        query=request.query,
        repository=repository,
        branch=request.branch,
        target_commit=verifier.target_commit,
        target=verifier.target,
        target_is_work_tree=verifier.uses_work_tree,
        repo=workspace.repo,
        index_commit=branch.commit,
        index_age_seconds=age_seconds(branch.indexed_at),
        parent_signature=workspace.searcher.parent_signature,
        member_labels=member_labels,
        notes=labels.notes_for(conn, repository, [r.version_id for r in results]),
        **options,
    )


def context_bundle(
    workspace: Workspace,
    request: SearchRequest,
    against: str | None = None,
    results: list[Result] | None = None,
    **options,
) -> Bundle:
    """The bundle for `request` (or for reviewed `results`) as text + manifest; writes nothing."""
    if results is None:
        results = workspace.search(request, against)
    return build_bundle(results, bundle_context(workspace, request, results, against, **options))


def export_bundle(
    workspace: Workspace,
    request: SearchRequest,
    out: Path,
    against: str | None = None,
    results: list[Result] | None = None,
    force: bool = False,
    **options,
) -> BundleReport:
    """Write the bundle for `request` (or for reviewed `results`) and log the session."""
    if results is None:
        results = workspace.search(request, against)
    context = bundle_context(workspace, request, results, against, **options)
    report = write_bundle(results, Path(out), context, force=force, index_dir=workspace.index_dir)
    stats.record_session(
        workspace.index_dir, "export", workspace.repo.name, request.branch, context.index_commit,
        context.index_age_seconds, results, target_commit=context.target_commit,
    )
    return report


def age_seconds(indexed_at: str) -> float | None:
    try:
        then = datetime.fromisoformat(indexed_at)
    except ValueError:
        return None
    return (datetime.now(timezone.utc) - then).total_seconds()
