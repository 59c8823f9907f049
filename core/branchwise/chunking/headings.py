"""Find the headings of a Markdown or reStructuredText file, with their levels.

Prose is cut into sections at its headings (sections.py), so the one thing this module must get
right is which lines are headings: a `#` line inside a fenced code block, a `---` thematic break
or a simple table's `=====` border is not. Markdown: ATX (`## Title`) and setext (a paragraph
underlined with `===` or `---`) headings outside fenced code and front matter. reST: a title
underlined (and optionally overlined) with one repeated punctuation character at least as long
as the title, levels in the order the adornment styles first appear (as docutils decides them).

A cross-reference target written directly above a heading (`.. _options:` in reST, `(options)=`
in MyST Markdown) belongs to that heading's section: `Heading.start_line` includes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKDOWN = "markdown"
RESTRUCTUREDTEXT = "restructuredtext"
PROSE_KINDS = frozenset({MARKDOWN, RESTRUCTUREDTEXT})

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
#: lines that cannot be the text of a setext heading (list items, quotes, tables, HTML)
_NOT_SETEXT_TEXT = re.compile(r"^(?: {4}|\t| {0,3}(?:[-+*>|<]|\d+[.)])(?:\s|$))")
_FRONT_MATTER = {"---": ("---", "..."), "+++": ("+++",)}
#: one punctuation character repeated (docutils: any non-alphanumeric printable 7-bit ASCII)
_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}[ \t]*$")
_TARGET = re.compile(r"^(?:\.\. _[^:]+:|\.\. _`[^`]+`:|\([^()\s]+\)=)[ \t]*$")
#: a setext heading's text is one short paragraph; a longer one is taken for a thematic break
_MAX_SETEXT_LINES = 3


@dataclass(frozen=True)
class Heading:
    """A heading: its section starts at `start_line` (targets above included); the heading
    itself is lines `title_line..end_line` (1-based), its text `text`, its depth `level` (1 is
    the outermost)."""

    start_line: int
    title_line: int
    end_line: int
    level: int
    text: str


def find_headings(kind: str, lines: list[str]) -> list[Heading]:
    """The headings of `lines` (the file's lines without line endings), in document order."""
    found = _markdown_headings(lines) if kind == MARKDOWN else _rst_headings(lines)
    return [_with_targets(heading, lines) for heading in found if heading.text]


def blank(line: str) -> bool:
    return not line.strip()


def fenced_lines(lines: list[str]) -> set[int]:
    """0-based indexes of the lines inside Markdown fenced code blocks (fences included)."""
    inside: set[int] = set()
    fence: str | None = None
    for index, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                fence = match.group(1)
                inside.add(index)
            continue
        inside.add(index)
        if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) and not match.group(2).strip():
            fence = None
    return inside


def front_matter_end(lines: list[str]) -> int:
    """How many lines a YAML (`---`) or TOML (`+++`) front matter block takes at the top (0: none)."""
    if not lines or lines[0].strip() not in _FRONT_MATTER:
        return 0
    closers = _FRONT_MATTER[lines[0].strip()]
    for index in range(1, len(lines)):
        if lines[index].strip() in closers:
            return index + 1
    return 0


def _markdown_headings(lines: list[str]) -> list[Heading]:
    fenced = fenced_lines(lines)
    skip = front_matter_end(lines)
    headings: list[Heading] = []
    paragraph_start: int | None = None  # 0-based start of the paragraph being read
    in_other_block = False  # a list item, quote, table...: no setext heading until a blank line
    for index, line in enumerate(lines):
        if index < skip or index in fenced or blank(line):
            paragraph_start, in_other_block = None, False
            continue
        atx = _ATX.match(line)
        if atx:
            text = _ATX_CLOSING.sub("", (atx.group(2) or "").strip()).strip()
            headings.append(Heading(index + 1, index + 1, index + 1, len(atx.group(1)), _clean(text)))
            paragraph_start = None
            continue
        setext = _SETEXT.match(line)
        if setext and paragraph_start is not None and index - paragraph_start <= _MAX_SETEXT_LINES:
            text = " ".join(part.strip() for part in lines[paragraph_start:index])
            level = 1 if setext.group(1)[0] == "=" else 2
            headings.append(Heading(paragraph_start + 1, paragraph_start + 1, index + 1, level, _clean(text)))
            paragraph_start = None
            continue
        if _NOT_SETEXT_TEXT.match(line) or _TARGET.match(line):
            paragraph_start, in_other_block = None, True
        elif paragraph_start is None and not in_other_block:
            paragraph_start = index
    return headings


def _rst_headings(lines: list[str]) -> list[Heading]:
    styles: list[tuple[str, bool]] = []
    headings: list[Heading] = []
    index = 0
    while index < len(lines):
        found = _rst_heading_at(lines, index)
        if found is None:
            index += 1
            continue
        style, title_index, end_index = found
        if style not in styles:
            styles.append(style)
        level = styles.index(style) + 1
        headings.append(Heading(index + 1, title_index + 1, end_index + 1, level, _clean(lines[title_index])))
        index = end_index + 1
    return headings


def _rst_heading_at(lines: list[str], index: int) -> tuple[tuple[str, bool], int, int] | None:
    """(style, title index, last index) of a heading whose first line is `index`, or None."""
    if index > 0 and not blank(lines[index - 1]):
        return None
    line = lines[index]
    over = _RST_ADORNMENT.match(line)
    if over and index + 2 < len(lines):
        title, closing = lines[index + 1], lines[index + 2]
        if not blank(title) and not _RST_ADORNMENT.match(title) and closing.rstrip() == line.rstrip() \
                and len(line.rstrip()) >= len(title.rstrip()):
            return (over.group(1), True), index + 1, index + 2
    if over or blank(line) or line[0].isspace() or index + 1 >= len(lines):
        return None
    under = _RST_ADORNMENT.match(lines[index + 1])
    if under and len(lines[index + 1].rstrip()) >= len(line.rstrip()):
        return (under.group(1), False), index, index + 1
    return None


def _with_targets(heading: Heading, lines: list[str]) -> Heading:
    """The heading with the cross-reference targets directly above it (blank lines between)."""
    start = heading.start_line - 1  # 0-based index of the heading's first line
    index = start - 1
    while index >= 0 and (blank(lines[index]) or _TARGET.match(lines[index])):
        if _TARGET.match(lines[index]):
            start = index
        index -= 1
    return Heading(start + 1, heading.title_line, heading.end_line, heading.level, heading.text)


def _clean(text: str) -> str:
    """A heading's text as one line: whitespace collapsed (names must stay one line)."""
    return " ".join(text.split())
