"""Cut a Markdown or reStructuredText file into section chunks named by their heading path.

A documentation page is read a section at a time, and edited a section at a time: as one chunk,
an 800-line page is too heavy to return and changes version whenever any line of it changes.
Each section (a heading and the text up to the next heading of any level) is a `section` chunk
of its own identity, named by its heading path:

- the path is the headings from the outermost down, joined by `SEPARATOR` (" > "):
  `Multi Value Options > Tuples as Multi Value Options`;
- a page's title (its first heading, when no other heading shares the title's level) is left
  out of the paths below it, so renaming the page renames one section, and its own section
  (the text between the title and the first subheading) is named by the title;
- text before the first heading (front matter, badges, a `.. currentmodule::`) is the section
  `PREAMBLE`;
- two sections of one page with the same path get `#2`, `#3`... in document order, as
  repeated code names do;
- a section longer than `section_max_lines` lines or `section_max_chars` characters is cut at
  paragraph boundaries (a blank line followed by a line at column 0, outside fenced code) into
  parts named `<path> [2]`, `<path> [3]`...; the first part keeps the bare path, so a name
  always finds the start of its section. A paragraph too long by itself is cut at a blank line,
  then at the limit.

A section's lines end at its last non-blank line, so blank lines added between two sections
change neither. Its signature is its heading's line as written (without a reST or setext underline); its parent the section one level up.
A file without headings that fits in one part stays one `file` chunk (chunker.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from branchwise.chunking import embedding_text
from branchwise.chunking.headings import PROSE_KINDS, Heading, blank, fenced_lines, find_headings
from branchwise.chunking.lines import LineTable, decode
from branchwise.chunking.rules import ChunkingRules
from branchwise.models import Chunk, Identity, sha256_hex

SEPARATOR = " > "
PREAMBLE = "(preamble)"
SYMBOL_TYPE = "section"


@dataclass(frozen=True)
class Section:
    """Lines `start_line..end_line` (1-based) of one section or part of a section."""

    name: str
    parent: str | None
    heading: str  # the heading's text lines as written (no underline), "" for the preamble
    start_line: int
    end_line: int
    body_start: int  # the first line after the heading


def section_chunks(repository: str, path: str, language: str, data: bytes, rules: ChunkingRules) -> list[Chunk]:
    """The file's section chunks; [] for a file that is not prose, or that stays one file chunk."""
    if language not in PROSE_KINDS:
        return []
    table = LineTable(data)
    lines = [line.rstrip("\r") for line in decode(data).split("\n")][: table.line_count]
    if lines:
        lines[0] = lines[0].removeprefix("\ufeff")  # a BOM stays in the bytes, not in the heading
    found = sections(language, lines, rules.section_max_lines, rules.section_max_chars)
    if not found:
        return []
    by_name = {section.name: section for section in found}
    chunks = []
    for section in found:
        start, end = table.span(section.start_line, section.end_line)
        raw = data[start:end]
        parent = by_name.get(section.parent) if section.parent else None
        body = "\n".join(lines[section.body_start - 1 : section.end_line])
        chunks.append(Chunk(
            identity=Identity(repository, path, language, SYMBOL_TYPE, section.name),
            start_line=section.start_line,
            end_line=section.end_line,
            start_byte=start,
            end_byte=end,
            signature=section.heading,
            docstring="",
            parent=Identity(repository, path, language, SYMBOL_TYPE, parent.name) if parent else None,
            imports=(),
            text=decode(raw),
            content_hash=sha256_hex(raw),
            lines_hash=sha256_hex(raw),
            embedding_text=embedding_text.compose(
                SYMBOL_TYPE, _embedded_name(section.name, path), section.parent, section.heading, "", body, path=path),
        ))
    return chunks


def sections(kind: str, lines: list[str], max_lines: int, max_chars: int) -> list[Section]:
    """The named sections of a prose file's `lines`, cut to size ([]: no headings and small)."""
    headings = find_headings(kind, lines)
    whole = _trimmed(lines, 1, len(lines))
    if whole is None:
        return []
    if not headings and not _too_long(lines, *whole, max_lines, max_chars):
        return []
    named = _named(headings, lines)
    boundaries = _paragraph_starts(kind, lines)
    result: list[Section] = []
    for section in named:
        result.extend(_parts(section, lines, boundaries, max_lines, max_chars))
    return result


def _named(headings: list[Heading], lines: list[str]) -> list[Section]:
    """One section per heading (and the preamble), named by heading path, unique in the file."""
    title = headings[0] if headings and sum(h.level == headings[0].level for h in headings) == 1 \
        and headings[0].level == min(h.level for h in headings) else None
    result: list[Section] = []
    first = headings[0].start_line if headings else len(lines) + 1
    preamble = _trimmed(lines, 1, first - 1)
    if preamble is not None:
        result.append(Section(PREAMBLE, None, "", preamble[0], preamble[1], preamble[0]))
    stack: list[tuple[int, str, str]] = []  # (level, name, path for its subsections) of open headings
    seen: dict[str, int] = {}
    for index, heading in enumerate(headings):
        following = headings[index + 1].start_line if index + 1 < len(headings) else len(lines) + 1
        extent = _trimmed(lines, heading.start_line, following - 1)
        assert extent is not None, "a heading's own lines are not blank"
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        parent, above = (stack[-1][1], stack[-1][2]) if stack else (None, "")
        path = f"{above}{SEPARATOR}{heading.text}" if above else heading.text
        seen[path] = seen.get(path, 0) + 1
        name = path if seen[path] == 1 else f"{path}#{seen[path]}"
        written = lines[heading.title_line - 1 : max(heading.end_line - 1, heading.title_line)]  # no underline
        heading_text = "\n".join(line.strip() for line in written)
        result.append(Section(name, parent, heading_text, extent[0], extent[1], heading.end_line + 1))
        stack.append((heading.level, name, "" if heading is title else path))
    return result


def _parts(section: Section, lines: list[str], boundaries: set[int], max_lines: int, max_chars: int) -> list[Section]:
    """The section cut at paragraph boundaries into parts within the limits."""
    parts: list[Section] = []
    start = section.start_line
    while True:
        cut = None
        if _too_long(lines, start, section.end_line, max_lines, max_chars):
            cut = _cut(lines, start, section.end_line, boundaries, max_lines, max_chars)
        end = section.end_line if cut is None else cut - 1
        extent = _trimmed(lines, start, end)
        if extent is not None:
            number = len(parts) + 1
            name = section.name if number == 1 else f"{section.name} [{number}]"
            body_start = section.body_start if number == 1 else extent[0]
            parts.append(Section(name, section.parent, section.heading, extent[0], extent[1], body_start))
        if cut is None:
            return parts
        start = cut


def _cut(lines: list[str], start: int, end: int, boundaries: set[int], max_lines: int, max_chars: int) -> int:
    """The line where the next part starts: the last paragraph start that keeps this part
    within the limits, else the last blank line's successor, else the limit itself."""
    limit = start
    size = 0
    while limit < end and limit - start < max_lines and size + len(lines[limit - 1]) + 1 <= max_chars:
        size += len(lines[limit - 1]) + 1
        limit += 1
    limit = max(limit, start + 1)  # the first line of a part, however long
    for candidates in (boundaries, {n + 1 for n in range(start, limit) if blank(lines[n - 1])}):
        found = [n for n in candidates if start < n <= limit]
        if found:
            return max(found)
    return limit


def _paragraph_starts(kind: str, lines: list[str]) -> set[int]:
    """1-based lines that start a paragraph at column 0 after a blank line, outside fenced code."""
    fenced = fenced_lines(lines) if kind == "markdown" else set()
    return {
        index + 1 for index in range(1, len(lines))
        if blank(lines[index - 1]) and not blank(lines[index]) and not lines[index][0].isspace()
        and index not in fenced
    }


def _too_long(lines: list[str], start: int, end: int, max_lines: int, max_chars: int) -> bool:
    return end - start + 1 > max_lines or sum(len(line) + 1 for line in lines[start - 1 : end]) > max_chars


def _trimmed(lines: list[str], start: int, end: int) -> tuple[int, int] | None:
    """Lines `start..end` without blank lines at either end (None when all are blank)."""
    while start <= end and blank(lines[start - 1]):
        start += 1
    while end >= start and blank(lines[end - 1]):
        end -= 1
    return (start, end) if start <= end else None


def _embedded_name(name: str, path: str) -> str:
    """The preamble is named after its page for the model (its identity stays PREAMBLE)."""
    return PurePosixPath(path).name if name == PREAMBLE else name
