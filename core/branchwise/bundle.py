"""Export: verified, labelled results as one Markdown bundle for a model, plus a manifest.

This is the last step before code enters a model's context: drop
duplicates, restore the class line a method was cut from, put a citation header on every chunk,
mark history as reference-only, keep excluded code out, and record what was used from which
commit. The manifest (`<stem>.manifest.json` beside the bundle) lists every result, included or
not, with its verdict, label and reason, so the export can be audited and fed to `stats`.

Both files are written atomically to exactly the path given, and the bundle is refused when it
would carry something that looks like a credential (see `branchwise.secrets`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from git.exc import BadName

from branchwise.citation import Shown, header_lines, short, version_string
from branchwise.errors import BranchwiseError
from branchwise.gitrepo import GitRepo
from branchwise.labels import effective_label, write_atomically
from branchwise.models import Identity, Label, Result, Verdict
from branchwise.secrets import scan


@dataclass
class BundleContext:
    """Everything about the export that is not in the results themselves."""

    query: str
    repository: str
    branch: str  # the queried branch
    target_commit: str  # the verification target (Verifier.target_commit)
    target: str  # its description (Verifier.target), e.g. "the work tree of main (HEAD 9f3c1ab)"
    target_is_work_tree: bool = False
    repo: GitRepo | None = None  # for commit dates; without it the Version lines carry no date
    index_commit: str | None = None
    index_age_seconds: float | None = None
    #: signature line of the enclosing symbol (e.g. "class OrderService:"), wired to the store
    parent_signature: Callable[[Result], str | None] | None = None
    #: version ids of `changed` results for which the reviewer chose the indexed text
    use_indexed_text: frozenset[str] = frozenset()
    #: reviewer notes by version id; for reference-only chunks the note names the topic
    notes: dict[str, str] = field(default_factory=dict)
    allow_secrets: bool = False


@dataclass
class BundleReport:
    path: Path
    manifest_path: Path
    included: int
    reference_only: int
    left_out: int
    entries: list[dict]  # the manifest's "results"

    def summary_line(self) -> str:
        return (
            f"wrote {self.path} ({self.included} chunks, {self.reference_only} reference-only, "
            f"{self.left_out} left out) and {self.manifest_path}"
        )


def manifest_path_for(out: Path) -> Path:
    return out.with_name(f"{out.stem}.manifest.json")


def write_bundle(results: list[Result], out: Path, context: BundleContext) -> BundleReport:
    """Write the Markdown bundle to `out` and its manifest beside it; see the module docstring."""
    out = Path(out)
    for result in results:
        if result.verdict is None:
            raise BranchwiseError(f"result {result.rank} ({result.path}) was not verified; verify before export")
    kept, duplicates = _dedup(results)
    dates = CommitDates(context.repo)
    sections, entries = [], []
    for result in sorted(results, key=lambda r: r.rank):
        shown = shown_for(result, context)
        included = id(result) in kept and shown.label is not Label.EXCLUDE
        why_out = _left_out_reason(result, shown, duplicates)
        entries.append(_entry(result, shown, included, why_out))
        if included:
            sections.append((result, shown))
    _refuse_secrets(sections, out, context)
    markdown = _render(sections, context, dates)
    commits = sorted({r.commit for r, _ in sections if r.commit})
    manifest = _manifest(context, out, entries, commits)
    manifest_path = manifest_path_for(out)
    write_atomically(out, markdown.encode("utf-8"))
    write_atomically(manifest_path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return BundleReport(
        path=out,
        manifest_path=manifest_path,
        included=len(sections),
        reference_only=sum(shown.label is Label.REFERENCE_ONLY for _, shown in sections),
        left_out=len(results) - len(sections),
        entries=entries,
    )


# choosing what to show -----------------------------------------------------------------------


def _dedup(results: list[Result]) -> tuple[set[int], dict[int, int]]:
    """One result per identity: the best-ranked usable one, the most complete on ties.

    Results are unhashable dataclasses, so they are tracked by `id()`: returns the ids of the
    kept results and, for each dropped one, the rank of the result kept instead.
    """
    best: dict[Identity, Result] = {}
    for result in results:
        kept = best.get(result.identity)
        if kept is None or _preference(result) < _preference(kept):
            best[result.identity] = result
    kept_ids = {id(r) for r in best.values()}
    duplicates = {id(r): best[r.identity].rank for r in results if id(r) not in kept_ids}
    return kept_ids, duplicates


def _preference(result: Result) -> tuple:
    return (effective_label(result) is Label.EXCLUDE, result.rank, -len(result.text))


def shown_for(result: Result, context: BundleContext) -> Shown:
    """What the bundle shows for a result: current or indexed text, where from, which label."""
    label = effective_label(result)
    note = context.notes.get(result.version_id, "")
    current_text = result.current_text
    if (result.verdict is Verdict.CHANGED and current_text is not None
            and result.version_id not in context.use_indexed_text):
        return Shown(result.current_path or result.path, result.current_start_line, result.current_end_line,
                     current_text, True, label, note)
    if result.verdict in (Verdict.CURRENT, Verdict.UNCHANGED_OLDER) and result.current_start_line is not None:
        return Shown(result.current_path or result.path, result.current_start_line, result.current_end_line,
                     result.current_text or result.text, False, label, note)
    return Shown(result.path, result.start_line, result.end_line, result.text, False, label, note)




def _left_out_reason(result: Result, shown: Shown, duplicates: dict[int, int]) -> str | None:
    if id(result) in duplicates:
        return f"duplicate of rank {duplicates[id(result)]} (same symbol)"
    if result.verdict is Verdict.EXCLUDED:
        return f"excluded: {result.reason}"
    if shown.label is Label.EXCLUDE:
        note = f": {shown.note}" if shown.note else ""
        return f"excluded by reviewer{note}"
    return None


def _refuse_secrets(sections: list[tuple[Result, Shown]], out: Path, context: BundleContext) -> None:
    if context.allow_secrets:
        return
    found = [
        f"{finding.kind} at {shown.path}:L{(shown.start_line or 1) + finding.line - 1}"
        for _, shown in sections
        for finding in scan(shown.text)
    ]
    if found:
        listed = "; ".join(found[:5]) + (f"; and {len(found) - 5} more" if len(found) > 5 else "")
        raise BranchwiseError(f"refusing to write {out}: possible secrets: {listed} (allow secrets to override)")


# rendering -----------------------------------------------------------------------------------


class CommitDates:
    """Commit dates (YYYY-MM-DD, UTC) looked up once each; None without a repository."""

    def __init__(self, repo: GitRepo | None):
        self.repo = repo
        self._dates: dict[str, str | None] = {}

    def __call__(self, commit: str) -> str | None:
        if commit not in self._dates:
            self._dates[commit] = self._lookup(commit)
        return self._dates[commit]

    def _lookup(self, commit: str) -> str | None:
        if self.repo is None or not commit:
            return None
        try:
            return self.repo.commit_time(commit).date().isoformat()
        except (ValueError, BadName):  # the commit is not in this repository any more
            return None


def header_for(result: Result, context: BundleContext, dates: Callable[[str], str | None] | None = None) -> list[str]:
    """The citation header `write_bundle` gives this result (for previews such as the review app).

    `dates` maps a commit to its date string; by default it is looked up in `context.repo`.
    """
    dates = dates or CommitDates(context.repo)
    target_version = version_string(context.branch, context.target_commit, dates(context.target_commit))
    if context.target_is_work_tree:
        target_version += ", work tree"
    return header_lines(
        result, shown_for(result, context), branch=context.branch, target=context.target,
        target_version=target_version, indexed_version=version_string(result.branch, result.commit, dates(result.commit)),
    )


def _render(sections: list[tuple[Result, Shown]], context: BundleContext, dates: CommitDates) -> str:
    parts = [_title(context, len(sections))]
    for number, (result, shown) in enumerate(sections, start=1):
        header = header_for(result, context, dates)
        code = _with_parent_line(result, shown, context)
        parts.append(
            f"## {number}. {result.identity.qualified_name}\n\n"
            f"{_fenced('text', chr(10).join(header))}\n\n{_fenced(result.identity.language, code)}\n"
        )
    return "\n".join(parts)


def _title(context: BundleContext, count: int) -> str:
    lines = [
        f"# Code for: {context.query}",
        "",
        f"- Repository: {context.repository}",
        f"- Branch: {context.branch}",
        f"- Target: {context.target}, commit {context.target_commit}",
    ]
    if context.index_commit:
        lines.append(f"- Index: {short(context.index_commit)}{_age(context.index_age_seconds)}")
    lines.append(f"- Chunks: {count}; each starts with its citation header")
    return "\n".join(lines) + "\n"


def _age(seconds: float | None) -> str:
    if seconds is None:
        return ""
    days = seconds / 86400
    return f", {days:.1f} days old" if days >= 1 else f", {seconds / 3600:.1f} hours old"


def _with_parent_line(result: Result, shown: Shown, context: BundleContext) -> str:
    """A method cut from its class gets the class's signature line above it, for context."""
    text = shown.text.rstrip("\n")
    if not result.parent or context.parent_signature is None:
        return text
    signature = (context.parent_signature(result) or "").strip("\n")
    if not signature or text.lstrip().startswith(signature.strip()):
        return text
    return f"{signature}\n{text}"


def _fenced(language: str, text: str) -> str:
    """A fenced block whose fence is longer than any backtick run inside the text."""
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


# the manifest --------------------------------------------------------------------------------


def _entry(result: Result, shown: Shown, included: bool, why_out: str | None) -> dict:
    entry = {
        "rank": result.rank,
        "path": result.path,
        "qualified_name": result.identity.qualified_name,
        "symbol_type": result.identity.symbol_type,
        "language": result.identity.language,
        "branch": result.branch,
        "commit": result.commit,
        "content_hash": result.content_hash,
        "version_id": result.version_id,
        "verdict": result.verdict.value if result.verdict else None,
        "reason": result.reason,
        "label": shown.label.value,
        "reviewer_label": result.label.value if result.label else None,
        "included": included,
        "left_out": None if included else why_out,
    }
    if included:
        entry.update(text="current" if shown.current else "indexed", lines=[shown.start_line, shown.end_line],
                     shown_path=shown.path)
    return entry


def _manifest(context: BundleContext, out: Path, entries: list[dict], commits: list[str]) -> dict:
    return {
        "bundle": out.name,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "query": context.query,
        "repository": context.repository,
        "branch": context.branch,
        "target": context.target,
        "target_commit": context.target_commit,
        "index_commit": context.index_commit,
        "index_age_seconds": context.index_age_seconds,
        "commits": commits,
        "results": entries,
    }
