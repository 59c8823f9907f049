"""`branchwise diff`: what a branch changed, symbol by symbol, with impact context on the base.

Text output groups the changes by file with counts and lists each change's impact; `--json`
prints the contract's object (and `impact_hits` per change, for a CI summary).
"""

from __future__ import annotations

from branchwise.branchdiff import BranchDiff, SymbolChange
from branchwise_cli.common import EXIT_OK, as_user, backend, echo, index_option, json_option, print_json, workspace

NAME = "diff"
HELP = "what a branch changed, symbol by symbol, with impact context"


def add_arguments(p) -> None:
    p.add_argument("diff_branch", metavar="BRANCH", help="the branch whose changes to list")
    p.add_argument("--base", help="base branch or revision (default: main, else master)")
    p.add_argument("--repo", default=".", metavar="REPO", help="path to the git repository")
    index_option(p)
    p.add_argument("--no-impact", action="store_true", help="skip the impact context (faster)")
    backend(p)
    as_user(p)
    json_option(p)


def run(args) -> int:
    diff = workspace(args).diff(args.diff_branch, args.base, impact=not args.no_impact)
    if args.json:
        print_json(diff.to_json())
    else:
        echo(*render(diff).split("\n"))
    return EXIT_OK


def render(diff: BranchDiff) -> str:
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
            lines += ["", f"{current}  ({sum(c.path == current for c in changes)})"]
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
