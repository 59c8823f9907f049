"""What a result carries: its full text, its outline or its signature, each verified on its own.

A class with thirty methods costs thousands of tokens and answers few questions by itself: its
methods do the recall as results of their own, and the class supplies context. So a large
container result carries its **outline** (signature, docstring, fields, and each member's
decorators and signature with the body elided), and its full text is one request away. What a
result carries is its `text_kind`.

The rule that keeps this honest: **the verdict describes the text delivered with it**. The
Verifier compares each kind of text on its own and keeps one `View` per kind: the full text of a
class whose method changed is `changed` (naming the members that changed), while its outline,
identical at the target, is `unchanged-older` and says so as an outline. `deliver` switches a
result to one of its views, text, verdict, reason and current text together, so no caller can
pair one kind's text with another kind's verdict.

A verdict compares the original lines (the content hash is the original's), while the text
shown has its secrets redacted (secrets.py): so a result whose text carries `<redacted>` says
so in its reason, in every front end, and no redaction makes a shown text differ from the file
silently.
"""

from __future__ import annotations

import re
from copy import copy
from dataclasses import dataclass

from branchwise.chunking.outline_key import MARK
from branchwise.models import Chunk, Result, Verdict
from branchwise.secrets import REDACTED

FULL, OUTLINE, SIGNATURE = "full", "outline", "signature"
DETAILS = (OUTLINE, FULL, SIGNATURE)
_MARKER = re.compile(rf"^([ \t]*){MARK} (.+?)(\r?)$")
_HASH_LANGUAGES = frozenset({"python", "ruby", "shell", "toml", "yaml"})
GOOD = frozenset({Verdict.CURRENT, Verdict.UNCHANGED_OLDER})
REDACTION_CLAUSE = "redacted in the text shown"


@dataclass(frozen=True)
class View:
    """One kind of text of a result, as indexed, and its verdict against the target."""

    kind: str
    text: str
    verdict: Verdict | None
    reason: str
    current_text: str | None  # the same kind of text at the target, when it differs or moved
    same_commit: bool = False  # indexed at the target commit (a dirty work tree differs only)


# outlines ------------------------------------------------------------------------------------


def container_outline(container: Chunk, chunks: list[Chunk]) -> str | None:
    """The container's outline from its skeleton: each member's marker line becomes the member's
    decorators and signature with its body elided. None for a chunk that is no such container."""
    if container.skeleton is None:
        return None
    members = {c.identity.qualified_name: c for c in chunks
               if c.parent == container.identity and c is not container
               and container.start_line <= c.start_line and c.end_line <= container.end_line}
    out: list[str] = []
    for line in container.skeleton.split("\n"):
        match = _MARKER.match(line)
        if match is None:
            out.append(line)
            continue
        indent, name, ending = match[1], match[2], match[3]
        member = members.get(name)
        if member is None:
            out.append(f"{indent}{_elision(container.identity.language)} {name}{ending}")
            continue
        out.extend(line + ending for line in member_outline(member, indent))
    return "\n".join(out)


def member_outline(member: Chunk, indent: str) -> list[str]:
    """A member as an outline shows it: decorators, signature, an elided body."""
    signature = [line for line in member.signature.split("\n") if line.strip()] or [member.text.split("\n")[0].strip()]
    first = signature[0].strip()
    decorators = []
    for line in member.text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(first[: max(1, min(len(first), 20))]) or not stripped.startswith("@"):
            break
        decorators.append(indent + stripped)
    lines = decorators + [indent + first] + [line.rstrip() for line in signature[1:]]
    language = member.identity.language
    if language in _HASH_LANGUAGES:
        lines.append(f"{indent}    ...")
    elif not lines[-1].rstrip().endswith((";", "}")):
        lines[-1] = lines[-1].rstrip() + " { ... }"
    return lines


def _elision(language: str) -> str:
    return "# ..." if language in _HASH_LANGUAGES else "// ..."


def signature_text(result_signature: str, text: str) -> str:
    """A result reduced to its declaration (its first line when it has no signature)."""
    return result_signature.strip() or text.strip("\n").split("\n")[0]


# the views -----------------------------------------------------------------------------------


def settle(result: Result, indexed_outline: str | None, current: Chunk | None, current_outline: str | None,
           same_commit: bool = False) -> None:
    """Record the views of a verified result (its verdict is the full text's): the outline view
    for a container, the signature view for every result, each compared on its own. `current` is
    the chunk found at the target (None when verification did not need it or found none)."""
    full = View(FULL, result.text, result.verdict, result.reason, result.current_text, same_commit)
    views = {FULL: full}
    signature = signature_text(result.signature, result.text)
    views[SIGNATURE] = _derived(SIGNATURE, full, signature,
                                None if current is None else signature_text(current.signature, current.text),
                                same_commit, result.changed_members)
    if indexed_outline is not None:
        views[OUTLINE] = _derived(OUTLINE, full, indexed_outline, current_outline, same_commit,
                                  result.changed_members)
    result.views = views
    result.text_kind = FULL
    result.reason += redaction_note(result.text, result.current_text)


def redaction_note(text: str, current_text: str | None) -> str:
    """The reason's last clause for a shown text with redacted secrets ("" for none)."""
    count = max(text.count(REDACTED), (current_text or "").count(REDACTED))
    if not count:
        return ""
    secrets = "1 secret" if count == 1 else f"{count} secrets"
    return f"; {secrets} {REDACTION_CLAUSE} ({REDACTED}; the verdict compares the original lines)"


def _derived(kind: str, full: View, indexed: str, current: str | None, same_commit: bool,
             members: tuple[str, ...] = ()) -> View:
    """The view of a part of the text (outline, signature) given the full text's verdict."""
    word = "outline" if kind == OUTLINE else "signature"
    if full.verdict is Verdict.CHANGED and current is not None:
        if current == indexed:
            verdict = Verdict.CURRENT if same_commit else Verdict.UNCHANGED_OLDER
            older = "" if same_commit else "older commit, "
            reason = f"{older}{word} identical (this result carries its {word})"
            if members:
                reason += f"; members changed since: {', '.join(members)} (each is verified on its own)"
            else:
                reason += "; the body differs"
            return View(kind, indexed, verdict, reason, current)
        return View(kind, indexed, Verdict.CHANGED, f"{word} differs from the indexed one; {full.reason}", current)
    # identical full text (or deleted, excluded, unverifiable): the part shares the verdict
    moved = current if current is not None and full.current_text is not None else None
    return View(kind, indexed, full.verdict, full.reason, moved)


def deliver(result: Result, kind: str) -> Result:
    """Make the result carry its `kind` view (its full text when it has no such view), text,
    verdict, reason and current text together. Returns the result."""
    view = result.views.get(kind) or result.views.get(FULL)
    if view is None:  # never verified: nothing to switch
        return result
    result.text, result.text_kind = view.text, view.kind
    result.verdict, result.reason, result.current_text = view.verdict, view.reason, view.current_text
    result.reason += redaction_note(view.text, view.current_text)
    return result


def delivered(result: Result, kind: str) -> Result:
    """A copy of the result carrying its `kind` view (the original is left as it is)."""
    return deliver(copy(result), kind)  # what dataclasses.replace made, in half the time


def is_large(result: Result, max_lines: int) -> bool:
    return result.end_line - result.start_line + 1 > max_lines


def with_derived_outline(result: Result) -> bool:
    """Give a result that is no container an outline view (signatures, docstrings, comments of
    its text, bodies elided), compared on its own; False when it has none or it is no smaller."""
    from branchwise.verify.outline import outline

    full = result.views.get(FULL)
    if full is None or OUTLINE in result.views:
        return OUTLINE in result.views
    path, language = result.path, result.identity.language
    indexed = outline(full.text, path, language)
    if len(indexed) >= len(full.text.rstrip("\n")):
        return False
    current = outline(full.current_text, result.current_path or path, language) if full.current_text else None
    result.views[OUTLINE] = _derived(OUTLINE, full, indexed, current, full.same_commit)
    return True


def shape(result: Result, detail: str, max_lines: int, max_full_lines: int | None = None) -> Result:
    """The result as a search with `detail` delivers it: `full`, `signature`, or `outline`, where
    a container larger than `max_lines` carries its outline, any other result larger than
    `max_full_lines` (when given) the outline of its text, and everything else its full text."""
    if detail == OUTLINE:
        if OUTLINE in result.views and is_large(result, max_lines):
            return deliver(result, OUTLINE)
        if max_full_lines is not None and is_large(result, max_full_lines) and with_derived_outline(result):
            return deliver(result, OUTLINE)
        return deliver(result, FULL)
    return deliver(result, detail)
