"""The context bundle: verified, labelled results cleaned into what a model should read.

This is the last step before code enters a model's context, so it is
the product's output: overlaps resolved (`overlap`), boundaries completed (a lone method gets
its class's signature line and the imports it uses, marked as context), a citation header on
every chunk, code to use first in rank order, then history and references, then what was left
out and why. Sizes are counted in real tokens (`tokens`); `max_tokens` keeps the best chunks
that fit. `build_bundle` returns the text (`formats`: Markdown, XML or JSON) and its manifest
without writing anything, for callers that hand the bundle on (an MCP tool, the review app's
token count); `write_bundle` writes both files, refusing to overwrite without `force`, to write
inside the index directory, or to carry something that looks like a credential.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from git.exc import BadName

from branchwise.chunking.vocabulary import CONTAINER_KINDS
from branchwise.display import safe_json
from branchwise.errors import BranchwiseError, UsageError
from branchwise.git.repo import GitRepo
from branchwise.models import Result, Verdict
from branchwise.review.bundle import budget as budgeting
from branchwise.review.bundle.formats import FORMATS, Facts, LeftOut, render
from branchwise.review.bundle.overlap import REFERENCE, LabelledMember, Piece, cut, inside, resolve
from branchwise.review.bundle.tokens import TokenCounter, token_counter
from branchwise.review.labels import effective_label, write_atomically
from branchwise.review.outfiles import refuse_overwrite
from branchwise.secrets import scan
from branchwise.verify.citation import Shown, header_lines, short, version_string
from branchwise.verify.outline import outline
from branchwise.verify.views import FULL, OUTLINE, delivered
from branchwise.wording import plural

REFERENCE_AS = ("code", "outline")
BUDGET = budgeting.BUDGET
OUTLINE_SHOWN = "Shown: outline (signatures, docstrings, comments); the body is left out"
CONTAINER_OUTLINE_SHOWN = ("Shown: outline (signature, docstring, fields, member signatures); "
                           "the members' bodies are left out")

__all__ = [
    "FORMATS", "REFERENCE_AS", "Bundle", "BundleContext", "BundleReport", "CommitDates", "LabelledMember",
    "build_bundle", "header_for", "manifest_path_for", "shown_for", "write_bundle",
]


@dataclass
class BundleContext:
    """Everything about the export that is not in the results themselves."""

    query: str
    repository: str
    branch: str  # the queried branch
    target_commit: str  # the verification target (Verifier.target_commit)
    target: str  # its description (Verifier.target), e.g. "the work tree of main (HEAD 9f3c1ab)"
    target_is_work_tree: bool = False
    #: the ref verified against when it is not `branch` (`--against REV`): the Version line of a
    #: text taken from the target names it, not the queried branch
    target_ref: str | None = None
    repo: GitRepo | None = None  # for commit dates; without it the Version lines carry no date
    index_commit: str | None = None
    index_age_seconds: float | None = None
    #: signature line of the enclosing symbol (e.g. "class OrderService:"), wired to the store
    parent_signature: Callable[[Result], str | None] | None = None
    #: text of the enclosing symbol, for `class_outline`
    parent_text: Callable[[Result], str | None] | None = None
    #: a lone method carries its class's outline (signatures, docstrings), not only its first line
    class_outline: bool = False
    #: reviewer labels on symbols inside a result that the search did not return
    member_labels: Callable[[Result], list[LabelledMember]] | None = None
    #: version ids of `changed` results for which the reviewer chose the indexed text
    use_indexed_text: frozenset[str] = frozenset()
    #: reviewer notes by version id; for reference-only chunks the note names the topic
    notes: dict[str, str] = field(default_factory=dict)
    allow_secrets: bool = False
    format: str = "markdown"
    max_tokens: int | None = None
    reference_as: str = "code"  # "outline": reference-only chunks without their bodies
    tokens: TokenCounter | None = None  # default: the best offline tokenizer installed


@dataclass
class Bundle:
    """A built bundle: its text and manifest, and the pieces that went into it."""

    text: str
    manifest: dict
    pieces: list[Piece]

    @property
    def total_tokens(self) -> int:
        return self.manifest["total_tokens"]


@dataclass
class BundleReport:
    path: Path
    manifest_path: Path
    included: int
    reference_only: int
    left_out: int
    entries: list[dict]  # the manifest's "results"
    total_tokens: int = 0

    def summary_line(self) -> str:
        return (
            f"wrote {self.path} ({plural(self.included, 'chunk')}, {self.reference_only} reference-only, "
            f"{self.left_out} left out; {plural(self.total_tokens, 'token')}) and {self.manifest_path}"
        )


def manifest_path_for(out: Path) -> Path:
    """`env.xml` -> `env.xml.manifest.json`: the whole name, so bundles of two formats that share
    a stem (`env.md`, `env.xml`) never share a manifest."""
    return out.with_name(f"{out.name}.manifest.json")


# building ------------------------------------------------------------------------------------


def build_bundle(results: list[Result], context: BundleContext, destination: str = "the bundle") -> Bundle:
    """The bundle's text and manifest for verified `results`; writes nothing.

    Raises when a chunk looks like it carries a credential, unless `context.allow_secrets`.
    """
    if context.format not in FORMATS:
        raise UsageError(f"unknown bundle format {context.format!r} (choose {', '.join(FORMATS)})")
    if context.reference_as not in REFERENCE_AS:
        raise UsageError(f"unknown --reference-as {context.reference_as!r} (choose code or outline)")
    if context.max_tokens is not None and context.max_tokens < 1:
        raise UsageError("--max-tokens must be at least 1")
    for result in results:
        if result.verdict is None:
            raise BranchwiseError(f"result {result.rank} ({result.path}) was not verified; verify before export")
    counter = context.tokens or token_counter()
    dates = CommitDates(context.repo)
    # the bundle chooses each result's unit itself (full text, else outline): start from full
    results = [r if r.text_kind == FULL or not r.views else delivered(r, FULL) for r in results]
    pieces, left_out = resolve(results, lambda r: shown_for(r, context), context.member_labels,
                               nest=context.max_tokens is None)
    for piece in pieces:
        _complete(piece, context, dates, counter)
    pieces.sort(key=lambda p: (p.role == REFERENCE, p.order))  # code to use first, then history
    facts = Facts(
        query=context.query, repository=context.repository, branch=context.branch, target=context.target,
        target_commit=context.target_commit, tokenizer=counter.name, total_tokens=None,
        index=f"{short(context.index_commit)}{_age(context.index_age_seconds)}" if context.index_commit else None,
    )
    pieces, text, tried = _fit(pieces, left_out, results, facts, context, counter, dates)
    entries = [_entry(r, shown_for(r, context), _piece_of(pieces, r), left_out.get(id(r)), tried.get(id(r)))
               for r in sorted(results, key=lambda r: r.rank)]
    _refuse_secrets(pieces, destination, context)
    manifest = _manifest(context, facts, entries, pieces)
    return Bundle(text, manifest, pieces)


def _complete(piece: Piece, context: BundleContext, dates, counter: TokenCounter) -> None:
    """Context lines, outline, header and token count of one piece."""
    result = piece.result
    if piece.role == REFERENCE and context.reference_as == "outline" and piece.text_kind == FULL:
        piece.code = outline(piece.code, piece.shown.path, result.identity.language)
        piece.text_kind = OUTLINE
    piece.context = _context_lines(piece, context)
    piece.header = header_for(result, context, dates)
    if piece.text_kind == OUTLINE:
        container = result.text_kind == OUTLINE and result.identity.symbol_type in CONTAINER_KINDS
        piece.header.append(CONTAINER_OUTLINE_SHOWN if container else OUTLINE_SHOWN)
        if piece.role == REFERENCE and piece.shown.note:
            piece.header.append(f"Note: {piece.shown.note}")
    piece.tokens = counter("\n".join([*piece.header, *piece.context, piece.code]))


def _units(piece: Piece, kept: list[Piece], context: BundleContext, dates, counter: TokenCounter) -> list[Piece]:
    """The units that can show a piece under a budget, largest first: its full text (members
    already in the bundle cut out, each leaving a marker line), then its outline."""
    members = [k for k in kept if k.text_kind == FULL and k.role == piece.role and inside(k, piece)]
    full = piece
    if members and piece.text_kind == FULL:
        full = dataclasses.replace(piece, cut=list(piece.cut), header=list(piece.header))
        for member in members:
            cut(full, member.result.identity.qualified_name, member.code, f"shown as rank {member.result.rank}")
        full.tokens = counter("\n".join([*full.header, *full.context, full.code]))
    units = [full]
    smaller = _outline_unit(piece, context, dates, counter)
    if smaller is not None:
        units.append(smaller)
    return units


def _outline_unit(piece: Piece, context: BundleContext, dates, counter: TokenCounter) -> Piece | None:
    """The piece as an outline: a container's verified outline view, else the signatures,
    docstrings and comments of its code; None when that is no smaller."""
    if piece.text_kind != FULL:
        return None
    result = piece.result
    if OUTLINE in result.views:
        carrier = delivered(result, OUTLINE)
        shown = shown_for(carrier, context)
        code = shown.text.rstrip("\n")
    else:
        carrier, shown = result, piece.shown
        code = outline(piece.code, piece.shown.path, result.identity.language)
    if len(code) >= len(piece.code):
        return None
    unit = Piece(carrier, shown, piece.role, code, order=piece.order, text_kind=OUTLINE, source=piece.source)
    _complete(unit, context, dates, counter)
    return unit


def _context_lines(piece: Piece, context: BundleContext) -> list[str]:
    """A lone method's enclosing signature line (or its class's outline, on request) and, for
    code to use, the imports it uses."""
    result = piece.result
    lines = list(result.imports) if piece.role != REFERENCE else []
    if result.parent and context.class_outline and context.parent_text is not None:
        parent = context.parent_text(result)
        if parent:
            return lines + outline(parent, piece.shown.path, result.identity.language).split("\n")
    if result.parent and context.parent_signature is not None:
        signature = (context.parent_signature(result) or "").strip("\n")
        if signature and not piece.code.lstrip().startswith(signature.strip()):
            lines.append(signature)
    return lines


def _fit(pieces, left_out, results, facts: Facts, context: BundleContext, counter: TokenCounter, dates):
    """Render; within `max_tokens`, the lists shrink first (grouped by reason, then a count),
    and code is chosen in rank order by units that fit (bundle/budget.py). Returns the pieces
    kept, the text, and what each result left out for the budget would have cost."""
    budget = context.max_tokens
    if budget is None:
        text, _total = _measured(facts, pieces, left_out, results, context.format, counter)
        return pieces, text, {}
    for level in ("groups", "count"):
        def measure(kept, reasons, level=level):
            return _measured(facts, kept, reasons, results, context.format, counter, level)

        kept, tried = budgeting.fit(pieces, left_out, budget, measure,
                                    lambda piece, kept: _units(piece, kept, context, dates, counter))
        kept.sort(key=lambda p: (p.role == REFERENCE, p.order))
        while True:  # the final lists differ from the ones measured while choosing: settle
            text, total = measure(kept, left_out)
            if total <= budget or not kept:
                break
            dropped = max(kept, key=lambda p: p.result.rank)
            kept.remove(dropped)
            left_out[id(dropped.source)] = BUDGET
        if total <= budget and (kept or level == "count"):
            return kept, text, tried
        for piece in pieces:
            left_out.pop(id(piece.source), None)
    raise budgeting.BudgetTooSmall(budget, total, budgeting.smallest_budget(tried))


def _measured(facts: Facts, pieces, left_out, results, fmt: str, counter: TokenCounter,
              level: str = "items") -> tuple[str, int]:
    """The text and its token count, with the count it states equal to the count it has."""
    facts.total_tokens = None
    total = counter(_render(facts, pieces, left_out, results, fmt, level))
    for _ in range(5):  # stating the size changes the size by a token or two; settles at once
        facts.total_tokens = total
        text = _render(facts, pieces, left_out, results, fmt, level)
        if counter(text) == total:
            break
        total = counter(text)
    return text, total


def _render(facts: Facts, pieces: list[Piece], left_out: dict[int, str], results: list[Result], fmt: str,
            level: str = "items") -> str:
    listed = [
        LeftOut(r.rank, r.identity.qualified_name, r.path, left_out[id(r)])
        for r in sorted(results, key=lambda r: r.rank)
        if id(r) in left_out
    ]
    return render(fmt, facts, pieces, listed, level)


def _piece_of(pieces: list[Piece], result: Result) -> Piece | None:
    return next((p for p in pieces if p.source is result), None)


def shown_for(result: Result, context: BundleContext) -> Shown:
    """What the bundle shows for a result: current or indexed text, where from, which label."""
    label = effective_label(result)
    note = context.notes.get(result.version_id, "")
    wants_current = (
        result.verdict is Verdict.CHANGED
        and result.current_text is not None
        and result.version_id not in context.use_indexed_text
    )
    if wants_current or result.moved_unchanged:
        current_text = result.current_text if result.current_text is not None else result.text
        return Shown(result.current_path or result.path, result.current_start_line, result.current_end_line,
                     current_text, True, label, note)
    if result.verdict in (Verdict.CURRENT, Verdict.UNCHANGED_OLDER) and result.current_start_line is not None:
        return Shown(result.current_path or result.path, result.current_start_line, result.current_end_line,
                     result.current_text or result.text, False, label, note)
    return Shown(result.path, result.start_line, result.end_line, result.text, False, label, note)


def header_for(result: Result, context: BundleContext, dates: Callable[[str], str | None] | None = None) -> list[str]:
    """The citation header the bundle gives this result (for previews such as the review app).

    `dates` maps a commit to its date string; by default it is looked up in `context.repo`.
    """
    dates = dates or CommitDates(context.repo)
    ref = context.target_ref or context.branch
    target_version = version_string(ref, context.target_commit, dates(context.target_commit))
    if context.target_is_work_tree:
        target_version += ", work tree"
    return header_lines(
        result, shown_for(result, context), branch=ref, target=context.target,
        target_version=target_version, indexed_version=version_string(result.branch, result.commit, dates(result.commit)),
        elsewhere=ref != context.branch,
    )


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


def _age(seconds: float | None) -> str:
    if seconds is None:
        return ""
    days = seconds / 86400
    return f", {days:.1f} days old" if days >= 1 else f", {seconds / 3600:.1f} hours old"


# the manifest --------------------------------------------------------------------------------


def _entry(result: Result, shown: Shown, piece: Piece | None, why_out: str | None, tried: dict | None = None) -> dict:
    if piece is not None:  # what the bundle carries: the verdict of the unit shown
        result, shown = piece.result, piece.shown
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
        "included": piece is not None,
        "left_out": None if piece is not None else why_out,
    }
    if result.changed_members:
        entry["changed_members"] = list(result.changed_members)
    if tried is not None:  # left out for the budget: the smallest unit tried, and the size it needed
        entry.update(tried)
    if piece is not None:
        entry.update(text="current" if shown.current else "indexed", text_kind=piece.text_kind,
                     lines=[shown.start_line, shown.end_line],
                     shown_path=shown.path, section="use" if piece.role != REFERENCE else "history-and-references",
                     tokens=piece.tokens, cut_out=piece.cut, context_lines=len(piece.context))
    return entry


def _manifest(context: BundleContext, facts: Facts, entries: list[dict], pieces: list[Piece]) -> dict:
    return {
        "bundle": None,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "query": context.query,
        "repository": context.repository,
        "branch": context.branch,
        "target": context.target,
        "target_commit": context.target_commit,
        "index_commit": context.index_commit,
        "index_age_seconds": context.index_age_seconds,
        "commits": sorted({p.result.commit for p in pieces if p.result.commit}),
        "format": context.format,
        "reference_as": context.reference_as,
        "max_tokens": context.max_tokens,
        "tokenizer": facts.tokenizer,
        "total_tokens": facts.total_tokens,
        "results": entries,
    }


# writing -------------------------------------------------------------------------------------


def write_bundle(
    results: list[Result], out: Path, context: BundleContext, *, force: bool = True, index_dir: Path | None = None,
) -> BundleReport:
    """Build the bundle and write it to `out`, its manifest beside it (see the module docstring).

    Without `force`, an existing bundle or manifest is refused; nothing is ever written inside
    `index_dir`.
    """
    out = Path(out)
    manifest_path = manifest_path_for(out)
    _check_destination(out, manifest_path, force, index_dir)
    bundle = build_bundle(results, context, destination=str(out))
    bundle.manifest["bundle"] = out.name
    # a bundle let through with --allow-secrets may hold one: owner-only, whatever the umask
    write_atomically(out, bundle.text.encode("utf-8"), private=context.allow_secrets)
    write_atomically(manifest_path, (safe_json(bundle.manifest, indent=2) + "\n").encode("utf-8"),
                     private=context.allow_secrets)
    return BundleReport(
        path=out,
        manifest_path=manifest_path,
        included=len(bundle.pieces),
        reference_only=sum(p.role == REFERENCE for p in bundle.pieces),
        left_out=len(results) - len(bundle.pieces),
        entries=bundle.manifest["results"],
        total_tokens=bundle.total_tokens,
    )


def _check_destination(out: Path, manifest_path: Path, force: bool, index_dir: Path | None) -> None:
    if index_dir is not None:
        index = Path(index_dir).resolve()
        for path in (out, manifest_path):
            resolved = path.resolve()
            if resolved == index or index in resolved.parents:
                raise UsageError(f"refusing to write {path} inside the index directory {index_dir}")
    for path in (out, manifest_path):
        refuse_overwrite(path, force)


def _refuse_secrets(pieces: list[Piece], destination: str, context: BundleContext) -> None:
    if context.allow_secrets:
        return
    found = [
        f"{finding.kind} at {piece.shown.path}:L{(piece.shown.start_line or 1) + finding.line - 1}"
        for piece in pieces
        for finding in scan(piece.code)
    ]
    if found:
        listed = "; ".join(found[:5]) + (f"; and {len(found) - 5} more" if len(found) > 5 else "")
        raise BranchwiseError(f"refusing to write {destination}: possible secrets: {listed} "
                              "(pass --allow-secrets to write it anyway)")
