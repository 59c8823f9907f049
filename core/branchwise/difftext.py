"""The text report of a branch diff: changes grouped by file, with counts and impact."""

from __future__ import annotations

from branchwise.branchdiff import BranchDiff, SymbolChange


def render_diff(diff: BranchDiff) -> str:
    counts = ", ".join(f"{n} {kind}" for kind, n in diff.counts().items() if n) or "no symbol changes"
    lines = [
        f"# {diff.branch} @ {diff.branch_commit[:7]} against {diff.base} @ {diff.base_commit[:7]} "
        f"(merge-base {diff.merge_base[:7]})",
        f"{len(diff.changes)} changed symbols in {len({c.path for c in diff.changes})} files: {counts}",
    ]
    lines += _by_file(diff.changes, impact=True)
    if diff.apart:
        lines += ["", f"## set apart ({len(diff.apart)}: generated, vendored, backup or fixture code)"]
        lines += _by_file(diff.apart, impact=False)
    if diff.impact_branch is None:
        lines += ["", "(impact context not looked up)"]
    return "\n".join(lines)


def _by_file(changes: list[SymbolChange], impact: bool) -> list[str]:
    lines: list[str] = []
    current = None
    for change in changes:
        if change.path != current:
            current = change.path
            count = sum(c.path == current for c in changes)
            lines += ["", f"{current}  ({count})"]
        lines.append(f"  {change.kind:<8} {change.qualified_name}  {_where(change)}")
        if impact:
            for hit in change.impact:
                r = hit.result
                lines.append(f"      {hit.kind:<7} {r.path}#L{r.start_line}-L{r.end_line} "
                             f"{r.identity.qualified_name}  [{r.verdict.value if r.verdict else '?'}]")
    return lines


def _where(change: SymbolChange) -> str:
    old, new = change.old, change.new
    parts = []
    if old is not None:
        name = f" {old.qualified_name}" if new is None or old.qualified_name != new.qualified_name else ""
        place = f"{old.path}#" if new is None or old.path != new.path else ""
        parts.append(f"was {place}L{old.start_line}-L{old.end_line}{name}")
    if new is not None:
        parts.append(f"now L{new.start_line}-L{new.end_line}")
    if change.base_status in ("changed", "deleted"):
        parts.append(f"also {change.base_status} on the base since the merge-base")
    return "; ".join(parts)
