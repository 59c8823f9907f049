"""Export as one operation: search (or take reviewed results), verify, write, log.

The CLI's `export` and the review app's `e` both come here, so a bundle written from either
carries the same headers, the same manifest and the same failure-statistics record.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from branchwise import labels, stats
from branchwise.bundle import BundleContext, BundleReport, write_bundle
from branchwise.models import Result
from branchwise.search import SearchRequest
from branchwise.workspace import Workspace


def export_bundle(
    workspace: Workspace,
    request: SearchRequest,
    out: Path,
    against: str | None = None,
    allow_secrets: bool = False,
    results: list[Result] | None = None,
    use_indexed_text: frozenset[str] = frozenset(),
) -> BundleReport:
    """Write the bundle for `request` (or for already reviewed `results`) and log the session."""
    verifier = workspace.verifier(request.branch, against)
    if results is None:
        results = workspace.search(request, against)
    branch = workspace.searcher.branch(request.branch)
    age = _age_seconds(branch.indexed_at)
    conn = workspace.store.conn
    context = BundleContext(
        query=request.query,
        repository=workspace.repo.name,
        branch=request.branch,
        target_commit=verifier.target_commit,
        target=verifier.target,
        target_is_work_tree=verifier.uses_work_tree,
        repo=workspace.repo,
        index_commit=branch.commit,
        index_age_seconds=age,
        parent_signature=workspace.searcher.parent_signature,
        use_indexed_text=use_indexed_text,
        notes=labels.notes_for(conn, workspace.repo.name, [r.version_id for r in results]),
        allow_secrets=allow_secrets,
    )
    report = write_bundle(results, Path(out), context)
    stats.record_session(
        workspace.index_dir, "export", workspace.repo.name, request.branch, branch.commit, age, results
    )
    return report


def _age_seconds(indexed_at: str) -> float:
    return (datetime.now(timezone.utc) - datetime.fromisoformat(indexed_at)).total_seconds()
