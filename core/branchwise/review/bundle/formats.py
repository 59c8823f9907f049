"""The bundle as text: Markdown for people and chat windows, XML and JSON for programs.

All three carry the same content in the same order: the title facts, the code to use (rank
order), the "History and references" section, and the list of what was left out and why. XML
follows the repository packers that feed models: one `<chunk>` element per chunk with the
header fields as attributes, the context and code as child elements' text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from branchwise.display import escape_controls, safe_json
from branchwise.review.bundle.overlap import REFERENCE, USE, Piece
from branchwise.verify.outline import comment_prefix

FORMATS = ("markdown", "xml", "json")
SUFFIXES = {"markdown": ".md", "xml": ".xml", "json": ".json"}
# XML 1.0 forbids these code points even escaped; source files rarely hold them
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass
class Facts:
    """What the title says: the question, where the code is from, and the bundle's size."""

    query: str
    repository: str
    branch: str
    target: str
    target_commit: str
    index: str | None  # "9f3c1ab, 2.0 hours old"
    tokenizer: str
    total_tokens: int | None  # None while the size is being measured


@dataclass
class LeftOut:
    rank: int
    qualified_name: str
    path: str
    reason: str


#: how the list of what was left out is written: one line per result, one line per reason
#: with the ranks, or only how many (a budget shrinks the lists before it drops code)
LIST_LEVELS = ("items", "groups", "count")
_GROUP_WORDS = {"inside": "inside a larger chunk", "duplicate": "another result of the same symbol",
                "identical": "identical to another chunk"}
_RANK_IN_REASON = re.compile(r"\s+(of |to )?rank \d+.*$|\s*\(.*$|:.*$")


def render(fmt: str, facts: Facts, pieces: list[Piece], left_out: list[LeftOut], level: str = "items") -> str:
    return {"markdown": _markdown, "xml": _xml, "json": _json}[fmt](facts, pieces, shrink(left_out, level))


def shrink(left_out: list[LeftOut], level: str) -> list[LeftOut]:
    """The left-out list at a level of detail: grouped entries carry the reason and the ranks
    (`qualified_name` empty, `path` the ranks), a count-only list one entry."""
    if level == "items" or not left_out:
        return left_out
    if level == "count":
        return [LeftOut(0, "", "", f"{len(left_out)} results left out; the manifest names each with its reason")]
    groups: dict[str, list[int]] = {}
    for item in left_out:
        reason = _RANK_IN_REASON.sub("", item.reason) or item.reason
        groups.setdefault(_GROUP_WORDS.get(reason, reason), []).append(item.rank)
    return [LeftOut(ranks[0], "", "ranks " + ", ".join(map(str, ranks)), reason) for reason, ranks in groups.items()]


def header_fields(header: list[str]) -> dict[str, str]:
    """"Source: x" lines as {"source": "x"}."""
    fields = {}
    for line in header:
        name, _, value = line.partition(": ")
        fields[name.strip().lower()] = value
    return fields


def _sections(pieces: list[Piece]) -> tuple[list[Piece], list[Piece]]:
    return [p for p in pieces if p.role == USE], [p for p in pieces if p.role == REFERENCE]


# markdown ------------------------------------------------------------------------------------


def _markdown(facts: Facts, pieces: list[Piece], left_out: list[LeftOut]) -> str:
    use, reference = _sections(pieces)
    lines = [
        f"# Code for: {facts.query}",
        "",
        f"- Repository: {facts.repository}",
        f"- Branch: {facts.branch}",
        f"- Target: {facts.target}, commit {facts.target_commit}",
    ]
    if facts.index:
        lines.append(f"- Index: {facts.index}")
    lines.append(f"- Chunks: {len(use)} to use, {len(reference)} for reference only; "
                 "each starts with its citation header")
    if facts.total_tokens is not None:
        lines.append(f"- Size: {facts.total_tokens} tokens ({facts.tokenizer})")
    parts = ["\n".join(escape_controls(line) for line in lines) + "\n"]
    number = 0
    for piece in use:
        number += 1
        parts.append(_markdown_piece(number, piece, "##"))
    if reference:
        parts.append("## History and references\n\nFor the idea only: do not copy these implementations.\n")
        for piece in reference:
            number += 1
            parts.append(_markdown_piece(number, piece, "###"))
    if left_out:
        rows = [escape_controls(f"- rank {item.rank} `{item.qualified_name}` ({item.path}): {item.reason}"
                                if item.qualified_name else f"- {item.reason}" + (f": {item.path}" if item.path else ""))
                for item in left_out]
        parts.append("## Left out\n\n" + "\n".join(rows) + "\n")
    return "\n".join(parts)


def _markdown_piece(number: int, piece: Piece, level: str) -> str:
    name = escape_controls(piece.result.identity.qualified_name)
    header = "\n".join(escape_controls(line) for line in piece.header)  # a name cannot add or forge a line
    return (
        f"{level} {number}. {name}\n\n{fenced('text', header)}\n\n"
        f"{fenced(escape_controls(piece.result.identity.language), code_with_context(piece))}\n"
    )


def code_with_context(piece: Piece) -> str:
    """The code, after its context lines (if any) and a comment line that marks them."""
    if not piece.context:
        return piece.code
    mark = comment_prefix(piece.result.identity.language)
    return "\n".join([f"{mark} context, not part of this chunk:", *piece.context, f"{mark} chunk:", piece.code])


def fenced(language: str, text: str) -> str:
    """A fenced block whose fence is longer than any backtick run inside the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0) if "`" in text else 0
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


# xml -----------------------------------------------------------------------------------------


def _xml(facts: Facts, pieces: list[Piece], left_out: list[LeftOut]) -> str:
    root = ET.Element("bundle", _attributes({
        "query": facts.query, "repository": facts.repository, "branch": facts.branch, "target": facts.target,
        "target_commit": facts.target_commit, "index": facts.index, "tokenizer": facts.tokenizer,
        "total_tokens": facts.total_tokens,
    }))
    use, reference = _sections(pieces)
    for number, piece in enumerate(use + reference, start=1):
        attributes = {"number": number, "section": "use" if piece.role == USE else "history-and-references",
                      **_chunk_fields(piece)}
        chunk = ET.SubElement(root, "chunk", _attributes(attributes))
        if piece.context:
            ET.SubElement(chunk, "context").text = _xml_text("\n".join(piece.context))
        ET.SubElement(chunk, "code").text = _xml_text(piece.code)
    for item in left_out:
        ET.SubElement(root, "left_out", _attributes(vars(item)))
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"


def _attributes(values: dict) -> dict[str, str]:
    return {key: _xml_text(str(value)) for key, value in values.items() if value is not None}


def _xml_text(text: str) -> str:
    return _XML_INVALID.sub("\ufffd", text)


def _chunk_fields(piece: Piece) -> dict:
    result = piece.result
    return {
        **header_fields(piece.header),
        "rank": result.rank,
        "path": piece.shown.path,
        "lines": f"{piece.shown.start_line}-{piece.shown.end_line}",
        "qualified_name": result.identity.qualified_name,
        "symbol_type": result.identity.symbol_type,
        "language": result.identity.language,
        "verdict": result.verdict.value if result.verdict else None,
        "label": piece.shown.label.value,
        "tokens": piece.tokens,
    }


# json ----------------------------------------------------------------------------------------


def _json(facts: Facts, pieces: list[Piece], left_out: list[LeftOut]) -> str:
    use, reference = _sections(pieces)
    chunks = []
    for number, piece in enumerate(use + reference, start=1):
        chunks.append({
            "number": number,
            "section": "use" if piece.role == USE else "history-and-references",
            **_chunk_fields(piece),
            "header": piece.header,
            "context": piece.context,
            "code": piece.code,
        })
    document = {**vars(facts), "chunks": chunks, "left_out": [vars(item) for item in left_out]}
    return safe_json(document, indent=2) + "\n"
