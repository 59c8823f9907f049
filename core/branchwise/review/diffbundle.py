"""The review bundle of a branch diff: the changes first, then their impact context.

For a model (or a reviewer) judging a branch: each changed symbol's new text, with the old
text beside it for `changed` ones (and the last text for `deleted` ones), then the code on the
base that the changes touch or resemble, labelled by the reviewer and headed like any bundle
chunk; impact results labelled `exclude` stay out, and each is included once.
"""

from __future__ import annotations

from datetime import datetime, timezone

from branchwise.models import Label
from branchwise.review import labels
from branchwise.review.branchdiff import BranchDiff, SymbolChange
from branchwise.review.bundle import BundleContext, header_for, shown_for
from branchwise.review.reviewbundle import ReviewBundle, Section
from branchwise.verify.citation import short


def diff_bundle(workspace, diff: BranchDiff) -> ReviewBundle:
    facts = [f"- Repository: {diff.repository}",
             f"- Branch: {diff.branch} @ {diff.branch_commit}",
             f"- Base: {diff.base} @ {diff.base_commit} (merge-base {diff.merge_base})",
             "- Changes: " + ", ".join(f"{n} {kind}" for kind, n in diff.counts().items() if n)]
    bundle = ReviewBundle(
        title=f"Review of {diff.branch} against {diff.base}", facts=facts,
        manifest={"kind": "diff", "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                  **{k: v for k, v in diff.to_json().items() if k not in ("changes", "set_apart")}},
    )
    for change in diff.changes:
        bundle.sections += _change_sections(diff, change)
    if diff.impact_branch is None:
        return bundle
    verifier = workspace.verifier(diff.impact_branch)
    hits = [hit for change in diff.changes for hit in change.impact]
    context = BundleContext(
        query=f"impact of {diff.branch}", repository=diff.repository, branch=diff.impact_branch,
        target_commit=verifier.target_commit, target=verifier.target, target_is_work_tree=verifier.uses_work_tree,
        repo=workspace.repo,
        notes=labels.notes_for(workspace.store.conn, diff.repository, [h.result.version_id for h in hits]),
    )
    seen: set[str] = set()
    for change in diff.changes:
        for hit in change.impact:
            result = hit.result
            shown = shown_for(result, context)
            if shown.label is Label.EXCLUDE or result.version_id in seen:
                continue
            seen.add(result.version_id)
            bundle.sections.append(Section(
                heading=f"Impact ({hit.kind} of {change.qualified_name}): {result.identity.qualified_name}",
                header=header_for(result, context), language=result.identity.language, text=shown.text,
                entry={"impact": hit.kind, "of": change.qualified_name, "path": shown.path,
                       "qualified_name": result.identity.qualified_name, "lines": [shown.start_line, shown.end_line],
                       "verdict": result.verdict.value if result.verdict else None, "label": shown.label.value,
                       "version_id": result.version_id},
            ))
    return bundle


def _change_sections(diff: BranchDiff, change: SymbolChange) -> list[Section]:
    old, new = change.old, change.new
    entry = {k: v for k, v in change.to_json().items() if k != "impact"}
    sections = []
    if new is not None:
        was = ""
        if old is not None and (old.path, old.qualified_name) != (new.path, new.qualified_name):
            was = f"; was {old.path} ({old.qualified_name})"
        sections.append(Section(
            heading=f"{change.kind}: {new.qualified_name}",
            header=[f"Source: {new.path}#L{new.start_line}-L{new.end_line} ({new.qualified_name})",
                    f"Version: {diff.branch} @ {short(diff.branch_commit)}",
                    f"Change: {change.kind} against the merge-base {short(diff.merge_base)}{was}"
                    + _base_note(change)],
            language=new.identity.language, text=new.text, entry={**entry, "side": "branch"},
        ))
    if old is not None and change.kind in ("changed", "deleted"):
        sections.append(Section(
            heading=f"{change.kind}: {old.qualified_name} (before)",
            header=[f"Source: {old.path}#L{old.start_line}-L{old.end_line} ({old.qualified_name})",
                    f"Version: merge-base {short(diff.merge_base)}",
                    "Purpose: the text before the change; do not copy it as current code"],
            language=old.identity.language, text=old.text, entry={**entry, "side": "merge-base"},
        ))
    return sections


def _base_note(change: SymbolChange) -> str:
    if change.base_status in ("changed", "deleted"):
        return f"; also {change.base_status} on the base since then"
    return ""
