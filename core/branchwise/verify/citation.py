"""The citation header: which version a chunk is, whether it was checked, and what it is for.

A chunk without a header is, to the model that reads it, simply "the code". The three lines
below turn it into a fact with a source, a version and a check result, and a history chunk into an explicitly labelled reference that must not be copied.

    Source: src/orders/services/order_service.py#L41-L58 (OrderService.cancel_order)
    Version: main @ 9f3c1ab (2026-09-29)
    Check: current; content hash matches

    Source: src/orders/handlers/cancel_handler.py (deleted on main)
    Version: feature/old-arch @ 8d0a1f2 (2026-03-11)
    Purpose: reference for the idempotency design only; do not copy the implementation
"""

from __future__ import annotations

from dataclasses import dataclass

from branchwise.models import Label, Result, Verdict
from branchwise.verify.views import REDACTION_CLAUSE, redaction_note


@dataclass(frozen=True)
class Shown:
    """What a bundle shows for one result: which text, from where, and how it is labelled."""

    path: str
    start_line: int | None  # None: a current text whose lines are not known
    end_line: int | None
    text: str
    current: bool  # the text comes from the verification target, not from the index
    label: Label
    note: str = ""  # the reviewer's note: for reference-only, the topic ("the idempotency design")


def short(commit: str) -> str:
    return commit[:7]


def header_lines(result: Result, shown: Shown, *, branch: str, target: str, target_version: str, indexed_version: str,
                 elsewhere: bool = False) -> list[str]:
    """The citation header of one chunk.

    `branch` is the ref the results were verified against: the queried branch, or the revision
    named instead (`--against`); `target` names the verification target ("the work tree of
    main (HEAD 9f3c1ab)"); the two *_version strings are "<ref> @ <short> (<date>)". With
    `elsewhere` (verified against another ref than the queried branch) a Check line that
    finds the text identical names where it was found so.
    """
    lines = [source_line(result, shown, branch), f"Version: {target_version if shown.current else indexed_version}",
             check_line(result, shown, target, elsewhere)]
    purpose = purpose_line(shown, result)
    if purpose:
        lines.append(purpose)
    return lines


def source_line(result: Result, shown: Shown, branch: str) -> str:
    if result.verdict is Verdict.DELETED:
        where = f"deleted on {branch}"
        if result.current_path is not None:
            where += f"; moved unchanged to {_location(result.current_path, result.current_start_line, result.current_end_line)}"
        return f"Source: {result.path} ({where})"
    location = _location(shown.path, shown.start_line, shown.end_line)
    return f"Source: {location} ({result.identity.qualified_name})"


def check_line(result: Result, shown: Shown, target: str, elsewhere: bool = False) -> str:
    """What the check found about the text shown (its full text, or its outline), and whether
    that text has secrets redacted."""
    line = _check(result, shown, target, elsewhere)
    if REDACTION_CLAUSE in line:
        return line
    return line + redaction_note(shown.text, None)


def _check(result: Result, shown: Shown, target: str, elsewhere: bool) -> str:
    verdict = result.verdict
    members = ", ".join(result.changed_members)
    at = f" at {target}" if elsewhere else ""
    if result.moved_unchanged and verdict in (Verdict.CURRENT, Verdict.UNCHANGED_OLDER):
        return f"Check: {verdict.value} at its new place; moved unchanged to {shown.path}, content hash matches{at}"
    if result.text_kind == "outline" and verdict in (Verdict.CURRENT, Verdict.UNCHANGED_OLDER):
        older = "older commit, " if verdict is Verdict.UNCHANGED_OLDER else ""
        since = f"; members {members} changed since (each is verified on its own)" if members else ""
        return f"Check: {verdict.value}; {older}outline identical{at}{since}"
    if verdict is Verdict.CURRENT:
        return f"Check: current; content hash matches{at}"
    if verdict is Verdict.UNCHANGED_OLDER:
        return f"Check: unchanged-older; older commit, content identical{at}"
    if verdict is Verdict.CHANGED:
        kind = "outline" if result.text_kind == "outline" else "text"
        if shown.current:
            since = f"; indexed version older, members {members} changed since" if members else ""
            return f"Check: changed; showing the current {kind} at {target}{since}"
        since = f" (members {members} changed since)" if members else ""
        return f"Check: changed; showing the indexed {kind}, which differs from {target}{since}"
    if result.moved_unchanged:  # a history copy: deleted where it was, its text current elsewhere
        return f"Check: deleted here; its text is unchanged at {shown.path}"
    if verdict is Verdict.UNVERIFIABLE:
        return "Check: unverifiable; no version metadata, a lead only"
    return f"Check: {verdict.value if verdict else 'unverified'}; {result.reason}".rstrip("; ")


def purpose_line(shown: Shown, result: Result | None = None) -> str | None:
    """The instruction to the model that a chunk is history: derived from the label and its note.

    History whose text was found unchanged at a new place is reference-only like all history
    (`--scope all` adds references, never code to use), but "do not copy" would misstate it:
    without a reviewer's topic, the line says where that text is the branch's current code."""
    if shown.label is not Label.REFERENCE_ONLY:
        return None
    topic = shown.note.strip().rstrip(".")
    if not topic and result is not None and result.history and result.moved_unchanged:
        place = _location(result.current_path or shown.path, result.current_start_line, result.current_end_line)
        return f"Purpose: history, for reference; its text is current code at {place} (cite that place, not this one)"
    return f"Purpose: reference for {topic or 'the idea'} only; do not copy the implementation"


def cited_location(result: Result) -> str:
    """Where a result is cited in every front end: the branch's own code that moved unchanged
    at its new place (its verdict is about that place), anything else where it was indexed."""
    if _cited_where_it_moved(result):
        return _location(cited_path(result), result.current_start_line, result.current_end_line)
    return _location(result.path, result.start_line, result.end_line)


def cited_path(result: Result) -> str:
    """The file of `cited_location` (the review app's Path column)."""
    return (result.current_path or result.path) if _cited_where_it_moved(result) else result.path


def _cited_where_it_moved(result: Result) -> bool:
    return result.moved_unchanged and not result.history


def version_string(branch: str, commit: str, date: str | None) -> str:
    return f"{branch} @ {short(commit)} ({date})" if date else f"{branch} @ {short(commit)}"


def _location(path: str, start: int | None, end: int | None) -> str:
    return f"{path}#L{start}-L{end}" if start is not None and end is not None else path
