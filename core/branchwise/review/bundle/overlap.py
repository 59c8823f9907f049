"""Overlap resolution: every piece of code reaches the bundle once, under the right label.

Search returns symbols at several sizes, so a class and its methods, or a deleted copy and the
file it moved to unchanged, come back together. A bundle that shows both wastes the model's
context and, worse, shows a method labelled reference-only as usable code inside its class.
The rules, in order:

1. Kept out: `excluded` results and results a reviewer labelled `exclude`.
2. One result per symbol identity: the best ranked (the most complete on ties).
3. Identical text once: the current copy over history (a moved-unchanged copy yields to the
   result at its new place), else the better rank.
4. Nesting (a member's text lies inside a larger kept result of the same file): a member with
   the container's role (both usable, or both references) is dropped, the container shows it.
   A member with another role is cut out of the container's text, which keeps a one-line
   marker in its place, and the member appears on its own in its own section. Members that a
   reviewer labelled but the search did not return are cut the same way (an excluded member
   never reaches the bundle; a reference-only one is never presented as usable).

`resolve` returns the pieces to show and, for each result left out, why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from branchwise.models import Label, Result, Verdict
from branchwise.verify.citation import Shown
from branchwise.verify.outline import comment_prefix

USE, REFERENCE = "use", "reference"


@dataclass(frozen=True)
class LabelledMember:
    """A reviewer's label on a symbol inside another one (from the labels table)."""

    qualified_name: str
    label: Label
    text: str  # the labelled version's text, to find it inside the container


@dataclass
class Piece:
    """One chunk of the bundle: a result, the text it shows, its section and its context."""

    result: Result
    shown: Shown
    role: str  # USE or REFERENCE
    code: str  # the text shown: the result's text, with members cut out or reduced to an outline
    context: list[str] = field(default_factory=list)  # lines that are not part of the chunk
    cut: list[str] = field(default_factory=list)  # qualified names cut out of `code`
    header: list[str] = field(default_factory=list)
    tokens: int = 0
    order: int = 0  # where it goes in its section: its rank, or a better one of a member it shows
    #: what `code` is: "full" text or an "outline" (a budget's smaller unit: bundle/budget.py)
    text_kind: str = "full"
    #: the result this piece stands for in the bundle's lists (`result` may be a copy of it
    #: carrying another view: its outline)
    source: Result | None = None

    def __post_init__(self) -> None:
        self.order = self.order or self.result.rank
        self.source = self.source or self.result


def role_of(label: Label) -> str:
    return USE if label is Label.USE else REFERENCE


def resolve(
    results: list[Result],
    shown_for: Callable[[Result], Shown],
    member_labels: Callable[[Result], list[LabelledMember]] | None = None,
    nest: bool = True,
) -> tuple[list[Piece], dict[int, str]]:
    """Pieces in rank order, and the reason each other result was left out (keyed by id()).
    Without `nest`, members stay beside their containers (a budget decides, in rank order,
    which unit shows them: bundle/budget.py)."""
    left_out: dict[int, str] = {}
    candidates: list[Piece] = []
    for result in sorted(results, key=lambda r: r.rank):
        shown = shown_for(result)
        if result.verdict is Verdict.EXCLUDED:
            left_out[id(result)] = f"excluded: {result.reason}"
        elif shown.label is Label.EXCLUDE:
            left_out[id(result)] = "excluded by reviewer" + (f": {shown.note}" if shown.note else "")
        else:
            candidates.append(Piece(result, shown, role_of(shown.label), shown.text.rstrip("\n")))
    pieces = _one_per_identity(candidates, left_out)
    pieces = _identical_text_once(pieces, left_out)
    _nest(pieces, left_out, member_labels, nest)
    return [p for p in pieces if id(p.result) not in left_out], left_out


def _one_per_identity(pieces: list[Piece], left_out: dict[int, str]) -> list[Piece]:
    best: dict = {}
    for piece in pieces:
        kept = best.get(piece.result.identity)
        if kept is None or (piece.result.rank, -len(piece.code)) < (kept.result.rank, -len(kept.code)):
            best[piece.result.identity] = piece
    for piece in pieces:
        kept = best[piece.result.identity]
        if kept is not piece:
            left_out[id(piece.result)] = f"duplicate of rank {kept.result.rank} (same symbol)"
    return [p for p in pieces if best[p.result.identity] is p]


def _is_history(piece: Piece) -> bool:
    return piece.result.history or piece.result.verdict is Verdict.DELETED


def _identical_text_once(pieces: list[Piece], left_out: dict[int, str]) -> list[Piece]:
    kept: dict[str, Piece] = {}
    for piece in sorted(pieces, key=lambda p: (_is_history(p), p.result.rank)):
        key = _normalized(piece.code)
        if key in kept:
            other = kept[key]
            left_out[id(piece.result)] = (
                f"identical to rank {other.result.rank} ({other.result.identity.qualified_name} "
                f"at {other.shown.path})"
            )
        else:
            kept[key] = piece
    return [p for p in pieces if id(p.result) not in left_out]


def _normalized(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def _nest(pieces: list[Piece], left_out: dict[int, str], member_labels, nest: bool = True) -> None:
    """Drop or cut out members of larger pieces (rule 4 of the module docstring); without
    `nest`, members with their container's role stay."""
    by_size = sorted(pieces, key=lambda p: -len(p.code))
    for index, member in enumerate(by_size):
        container = next((c for c in by_size[:index] if _inside(member, c) and id(c.result) not in left_out), None)
        if container is None:
            continue
        if member.role == container.role:
            if not nest:
                continue
            container.order = min(container.order, member.order)
            left_out[id(member.result)] = (
                f"inside rank {container.result.rank} ({container.result.identity.qualified_name})"
            )
        else:
            where = "shown under History and references" if member.role == REFERENCE else "shown as code to use"
            _cut(container, member.result.identity.qualified_name, member.code,
                 f"labelled {_label_word(member)}, {where} (rank {member.result.rank})")
    if member_labels is None:
        return
    returned = {p.result.identity.qualified_name for p in pieces}
    for container in pieces:
        if id(container.result) in left_out or container.result.verdict is Verdict.DELETED:
            continue
        for labelled in member_labels(container.result):
            if labelled.qualified_name in returned:
                continue
            if labelled.label is Label.EXCLUDE or (labelled.label is Label.REFERENCE_ONLY and container.role == USE):
                why = "excluded by the reviewer" if labelled.label is Label.EXCLUDE else (
                    "labelled reference-only by the reviewer: not for use")
                _cut(container, labelled.qualified_name, labelled.text.rstrip("\n"), why)


def _label_word(piece: Piece) -> str:
    return "reference-only" if piece.role == REFERENCE else "use"


def inside(member: Piece, container: Piece) -> bool:
    """Is the member's text part of the container's (same file)?"""
    return _inside(member, container)


def cut(container: Piece, qualified_name: str, text: str, why: str) -> None:
    """Replace a member's lines in the container's code by one marker line naming why."""
    _cut(container, qualified_name, text, why)


def _inside(member: Piece, container: Piece) -> bool:
    return (
        member is not container
        and member.shown.path == container.shown.path
        and len(member.code) < len(container.code)
        and member.code.strip() in container.code
    )


def _cut(container: Piece, qualified_name: str, text: str, why: str) -> None:
    """Replace the member's lines in the container's code by one marker comment line."""
    stripped = text.strip("\n")
    at = container.code.find(stripped)
    if at < 0:
        at = container.code.find(stripped.strip())
        if at < 0:
            return
        stripped = stripped.strip()
    line_start = container.code.rfind("\n", 0, at) + 1
    indent = container.code[line_start:at] if not container.code[line_start:at].strip() else ""
    first = stripped.splitlines()[0]
    indent += first[: len(first) - len(first.lstrip())]
    marker = f"{indent}{comment_prefix(container.result.identity.language)} {qualified_name}: cut out ({why})"
    container.code = container.code[:line_start] + marker + container.code[at + len(stripped):]
    container.cut.append(qualified_name)
