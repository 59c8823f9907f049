"""What a branch changed, symbol by symbol, against its merge-base with a base branch.

Line diffs say which lines moved; a reviewer wants to know that `optimizer_thresholds`
changed, that `round_half_up` only moved to another file and that `legacy_search` is gone.
The branch side is the branch's live set in the index; the merge-base side is the same files
cut by the same chunker at the merge-base. Only files that differ between the two commits are
looked at, so the cost follows the size of the change, not of the repository.

Kinds: `added`, `changed`, `deleted`, `moved` (same text, other file), `renamed` (same file,
same text once the name is blanked, other name). Generated, vendored, backup and fixture code
is reported apart, never mixed with the changes a reviewer reads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from branchwise.errors import UsageError
from branchwise.models import Identity, PathClass
from branchwise.review.diffsummary import Summary, order_changes, summarise
from branchwise.review.impact import ImpactHit, Progress, diff_impact
from branchwise.verify.symbols import Symbol, with_module_hashes

KINDS = ("added", "changed", "deleted", "moved", "renamed")


@dataclass
class SymbolChange:
    kind: str
    old: Symbol | None  # at the merge-base
    new: Symbol | None  # at the branch's indexed commit
    #: the same identity on the base branch's tip: "unchanged", "changed" or "deleted" since the
    #: merge-base (None when the base has no tip to compare, or for added symbols)
    base_status: str | None = None
    impact: list[ImpactHit] = field(default_factory=list)
    #: every base symbol found using it (impact lists at most MAX_CALLERS of them)
    callers_total: int = 0
    #: of those, the ones whose owner is known to fit (not a call on an object of unknown type)
    callers_certain: int = 0
    group: str = "source"  # source, test, docs, example, config or ci (diffsummary.py)
    public: bool = True

    @property
    def symbol(self) -> Symbol:
        return self.new or self.old  # type: ignore[return-value]

    @property
    def path(self) -> str:
        return self.symbol.path

    @property
    def qualified_name(self) -> str:
        return self.symbol.qualified_name

    @property
    def set_apart(self) -> bool:
        return self.symbol.set_apart

    def to_json(self) -> dict:
        identity = self.symbol.identity
        data: dict = {
            "kind": self.kind,
            "path": identity.path,
            "qualified_name": identity.qualified_name,
            "symbol_type": identity.symbol_type,
            "language": identity.language,
            "path_class": self.symbol.path_class.value,
        }
        if self.symbol.class_reason:
            data["class_reason"] = self.symbol.class_reason
        if self.old is not None:
            data.update(
                old_path=self.old.path,
                old_qualified_name=self.old.qualified_name,
                old_start_line=self.old.start_line,
                old_end_line=self.old.end_line,
                old_content_hash=self.old.content_hash,
            )
        if self.new is not None:
            data.update(
                start_line=self.new.start_line,
                end_line=self.new.end_line,
                content_hash=self.new.content_hash,
            )
        if self.base_status is not None:
            data["base_status"] = self.base_status
        data["group"] = self.group
        data["public"] = self.public
        data["callers_total"] = self.callers_total
        data["callers_certain"] = self.callers_certain
        data["impact_hits"] = len(self.impact)
        data["impact"] = [hit.to_json() for hit in self.impact]
        return data


@dataclass
class BranchDiff:
    repository: str
    branch: str
    base: str
    merge_base: str
    branch_commit: str
    base_commit: str
    changes: list[SymbolChange]  # reviewed changes, in reading order (diffsummary.py)
    apart: list[SymbolChange]  # generated, vendored, backup and fixture code
    files: int  # files that differ between the merge-base and the branch
    impact_branch: str | None = None  # where impact context was looked up (None: not looked up)
    summary: Summary = field(default_factory=Summary)
    #: the branch's commit is the merge-base: it is an ancestor of the base, or the same commit
    branch_is_ancestor: bool = False

    @property
    def hint(self) -> str | None:
        """What to say when there is nothing to review because the arguments look swapped."""
        if not self.branch_is_ancestor:
            return None
        how = ("is the same commit as" if self.branch_commit == self.base_commit
               else "is an ancestor of")
        return (f"{self.branch} {how} {self.base}: it has no changes of its own against it. "
                f"To see what {self.base} changed since {self.branch}, run: "
                f"branchwise diff {self.base} --base {self.branch}")

    def counts(self) -> dict[str, int]:
        return {kind: sum(c.kind == kind for c in self.changes) for kind in KINDS}

    def to_json(self) -> dict:
        return {
            "repository": self.repository,
            "branch": self.branch,
            "base": self.base,
            "merge_base": self.merge_base,
            "branch_commit": self.branch_commit,
            "base_commit": self.base_commit,
            "files": self.files,
            "counts": self.counts(),
            "impact_branch": self.impact_branch,
            "branch_is_ancestor": self.branch_is_ancestor,
            "hint": self.hint,
            "summary": self.summary.to_json(),
            "changes": [change.to_json() for change in self.changes],
            "set_apart": [change.to_json() for change in self.apart],
        }


def match_symbols(old: list[Symbol], new: list[Symbol]) -> list[SymbolChange]:
    """Pair the symbols of two commits' versions of the same files into changes.

    Same identity: `changed` when the text differs (shifted lines are no change). Of the rest,
    equal text in another file is `moved` and equal shape under another name is `moved` (other
    file) or `renamed` (same file); the exact text is paired first, each symbol at most once.
    """
    old = with_module_hashes(old)
    new = with_module_hashes(new)
    new_by_identity = {s.identity: s for s in new}
    old_by_identity = {s.identity: s for s in old}
    changes: list[SymbolChange] = []
    for identity, before in old_by_identity.items():
        after = new_by_identity.get(identity)
        if after is not None and after.compare_hash != before.compare_hash:
            changes.append(SymbolChange("changed", before, after))
    gone = [s for s in old if s.identity not in new_by_identity]
    came = [s for s in new if s.identity not in old_by_identity]
    paired_new: set[Identity] = set()
    for key in (lambda s: s.content_hash, lambda s: s.shape_hash):
        by_key: dict[tuple, list[Symbol]] = {}
        for symbol in came:
            by_key.setdefault((key(symbol), symbol.identity.symbol_type), []).append(symbol)
        for before in list(gone):
            candidates = [s for s in by_key.get((key(before), before.identity.symbol_type), ())
                          if s.identity not in paired_new]
            if not candidates:
                continue
            # the same name first, then the same file, then the nearest lines
            after = min(candidates, key=lambda s: (s.qualified_name != before.qualified_name,
                                                   s.path != before.path, abs(s.start_line - before.start_line)))
            paired_new.add(after.identity)
            gone.remove(before)
            changes.append(SymbolChange("moved" if after.path != before.path else "renamed", before, after))
    changes += [SymbolChange("deleted", s, None) for s in gone]
    changes += [SymbolChange("added", None, s) for s in came if s.identity not in paired_new]
    return sorted(changes, key=lambda c: (c.path, c.symbol.start_line, c.qualified_name))


def symbols_from_rows(repository: str, rows: list[tuple]) -> list[Symbol]:
    """Symbols from `Store.live_symbols` rows."""
    return [
        Symbol(
            identity=Identity(repository, path, language, symbol_type, qualified_name),
            start_line=start, end_line=end, content_hash=content_hash, text=text,
            path_class=PathClass(path_class), class_reason=class_reason,
        )
        for (path, language, symbol_type, qualified_name, start, end, content_hash, text,
             path_class, class_reason) in rows
    ]


def base_status(change: SymbolChange, tip: dict[Identity, Symbol]) -> str | None:
    """How the base branch's tip holds the merge-base version of this symbol."""
    if change.old is None:
        return None
    now = tip.get(change.old.identity)
    if now is None:
        return "deleted"
    return "unchanged" if now.compare_hash == change.old.compare_hash else "changed"


def default_base(branches: dict[str, str], current: str | None) -> str | None:
    """The repository's default branch: `main`, else `master`, else the checked-out branch."""
    for name in ("main", "master"):
        if name in branches:
            return name
    return current


def build_diff(workspace, branch: str, base: str | None = None, impact: bool = True,
               refresh: bool = True, progress: Progress | None = None) -> BranchDiff:
    """The symbol diff of `branch` against its merge-base with `base`, with impact context.

    A branch (or base branch) that is not indexed at its tip is indexed first when `refresh`
    is set; otherwise that is an error naming the command to run. `progress(stage, done,
    total)` hears of each stage: indexing, reading, impact's callers, similar and verifying.
    """
    report: Callable[[str, int, int], None] = progress or (lambda stage, done, total: None)
    from branchwise.verify.container_text import symbol_texts
    from branchwise.verify.symbols import parse_symbols

    repo, store = workspace.repo, workspace.store
    branches = repo.branches()
    if branch not in branches:
        raise UsageError(f"unknown branch {branch!r} in {repo.name}")
    base = base or default_base(branches, repo.current_branch())
    if base is None:
        raise UsageError("no default branch (main or master) and HEAD is detached: name a --base")
    base_commit = repo.resolve(base)
    base_is_branch = base in branches
    report("indexing", 0, 0)
    _ensure_indexed(workspace, [branch] + ([base] if base_is_branch and base != branch else []), refresh)
    repo_id = store.repo_id(repo.name)
    branch_row = store.branch(repo_id, branch)
    branch_commit = branch_row.commit_sha
    merge_base = repo.merge_base(branch_commit, base_commit)
    if merge_base is None:
        raise UsageError(f"{branch} and {base} have no common ancestor")
    paths = sorted(c.path for c in repo.changed_files(merge_base, branch_commit))
    restriction = workspace.restriction
    if restriction is not None:
        paths = [p for p in paths if restriction.allows(p)]
    rules = workspace.config.chunking_rules()
    report("reading", 0, len(paths))
    new = symbol_texts(repo, branch_commit, symbols_from_rows(repo.name, store.live_symbols(branch_row.id, paths)))
    old = parse_symbols(repo, merge_base, paths, rules)
    changes = match_symbols(old, new)
    report("reading", len(paths), len(paths))
    if base_is_branch:
        tip_rows = store.live_symbols(store.branch(repo_id, base).id, paths)
        tip_symbols = with_module_hashes(symbols_from_rows(repo.name, tip_rows))
    else:
        tip_symbols = parse_symbols(repo, base_commit, paths, rules)
    tip = {s.identity: s for s in tip_symbols}
    for change in changes:
        change.base_status = base_status(change, tip)
    source = [c for c in changes if not c.set_apart]
    if impact and base_is_branch:
        diff_impact(workspace, source, base, report)
    source = order_changes(source)
    return BranchDiff(
        repository=repo.name, branch=branch, base=base, merge_base=merge_base,
        branch_commit=branch_commit, base_commit=base_commit, changes=source,
        apart=[c for c in changes if c.set_apart], files=len(paths),
        impact_branch=base if impact and base_is_branch else None,
        summary=summarise(source), branch_is_ancestor=merge_base == branch_commit,
    )


def _ensure_indexed(workspace, names: list[str], refresh: bool) -> None:
    repo, store = workspace.repo, workspace.store
    tips = repo.branches()
    repo_id = store.repo_id(repo.name)
    stale = []
    for name in names:
        row = store.branch(repo_id, name) if repo_id is not None else None
        if row is None or row.commit_sha != tips[name]:
            stale.append(name)
    if not stale:
        return
    if not refresh:
        raise UsageError(f"branch {stale[0]!r} is not indexed at its tip: run `branchwise index "
                         f"{repo.path} --branch {stale[0]}`")
    workspace.index(stale)
