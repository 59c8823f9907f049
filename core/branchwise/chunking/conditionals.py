"""Preprocessor conditionals that split a declaration, resolved to one branch before parsing.

Tree-sitter parses `#if ... #endif` around whole declarations, but not one that cuts a
declaration in two: fmt's `template <...>` / `#if` / `__attribute__((...))` / `#endif` /
`auto reserve(...)`, a class head whose base list sits in `#if`, Serilog's interface methods
whose default body is `#if FEATURE_DEFAULT_INTERFACE { ... } #else ; #endif`. There the
parser gives up and wraps the rest of the file in one ERROR node, and every definition after
it loses its chunk or its scope (Serilog's `ILogger` was one module chunk).

Such a group is one whose `#if` follows code that has not ended a declaration, or whose
first branch stops before its declaration ends (Serilog's two headers of one method under
`#if FEATURE_SPAN` / `#else`, then one body); "ended" means the code ends with `;`, `{` or
`}`, or is an access label or a macro alone on its line. It is read as the preprocessor
would read it with its first condition true: the directive lines and every other branch
become empty `//` comments of the same length, so byte offsets and lines are unchanged and
every chunk's text is still cut from the file's own bytes. Groups between whole declarations are left to
the grammar, which keeps both branches' definitions.

Code also puts `#if` inside statements: an `else if` or a `case` of Newtonsoft.Json's readers
that exists only `#if HAVE_DATE_TIME_OFFSET`, curl's two versions of one `if (...) {` line. The
grammar fails there too (`JsonTextReader` lost 2,400 of its 2,660 lines to the module chunk;
curl's C files held 540 KB the parser could not read, 70 KB after), so where the first reading
still leaves errors, every group is read with its first branch (`resolve_every_conditional`)
and that reading is kept if it leaves fewer (grammars.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

_OPEN = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef)\b")
_BRANCH = re.compile(rb"^[ \t]*#[ \t]*(?:elif|elifdef|elifndef|else)\b")
_CLOSE = re.compile(rb"^[ \t]*#[ \t]*endif\b")
_DIRECTIVE = re.compile(rb"^[ \t]*#")
#: comments and literals, so that a `;` in a comment or string does not end a declaration
_NOISE = re.compile(rb"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)
_LABEL = re.compile(rb"^[ \t]*(?:public|private|protected|internal)[ \t]*:[ \t]*$")
_ENDS_DECLARATION = (b";", b"{", b"}")
#: a macro standing alone on a line (`FMT_BEGIN_NAMESPACE`, `GTEST_DISABLE_MSC_WARNINGS_POP_()`)
#: expands to whole declarations or to nothing: it ends what comes before it
_LONE_MACRO = re.compile(rb"^[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]*(?:\(.*\))?$")


#: every byte but a line break to a space
_BLANKS = bytes(byte if byte == ord("\n") else ord(" ") for byte in range(256))


def _blank(text: bytes) -> bytes:
    return text.translate(_BLANKS)


def _comment_out(line: bytes) -> bytes:
    """A line the parser must not read, as an empty `//` comment of the same length: a
    comment, unlike a blank line, keeps the doc comment above an `#if` attached to the
    definition below it, and the `#if` line in that definition's chunk."""
    blank = _blank(line)
    return b"//" + blank[2:] if len(line.rstrip(b"\r\n")) >= 2 else blank


def _ends_declaration(code: bytes) -> bool:
    return code.endswith(_ENDS_DECLARATION) or bool(_LABEL.match(code) or _LONE_MACRO.match(code))


def _directive_lines(lines: list[bytes]) -> list[bool]:
    """Which lines belong to a preprocessor directive (a `\\` at the end continues one)."""
    out, continued = [], False
    for line in lines:
        is_directive = continued or bool(_DIRECTIVE.match(line))
        continued = is_directive and line.rstrip().endswith(b"\\")
        out.append(is_directive)
    return out


def _first_branch_ends(lines: list[bytes], code: list[bytes], directive: list[bool]) -> dict[int, bytes]:
    """For each `#if` line, the last code of its first branch (b"" when it holds none)."""
    ends: dict[int, bytes] = {}
    open_groups: list[tuple[int, bool]] = []  # (line of `#if`, still in the first branch)
    last: dict[int, bytes] = {}
    for i, line in enumerate(lines):
        if directive[i] and _OPEN.match(line):
            open_groups.append((i, True))
            last[i] = b""
        elif directive[i] and open_groups and (_BRANCH.match(line) or _CLOSE.match(line)):
            opened, first = open_groups[-1]
            if first:
                ends[opened] = last[opened]
            if _CLOSE.match(line):
                open_groups.pop()
            else:
                open_groups[-1] = (opened, False)
        elif not directive[i] and (stripped := code[i].strip()):
            for opened, first in open_groups:
                if first:
                    last[opened] = stripped
    return ends


@lru_cache(maxsize=2)
def _read(data: bytes) -> tuple[list[bytes], list[bytes], list[bool]] | None:
    """The file's lines, its code lines (comments and literals blanked) and which lines are
    directives; kept for the second reading of the same file. None when a literal swallowed a
    line break (the file is left alone)."""
    lines = data.splitlines(keepends=True)
    code = _NOISE.sub(lambda m: _blank(m[0]), data).splitlines(keepends=True)
    if len(code) != len(lines):
        return None
    return lines, code, _directive_lines(lines)


def resolve_split_conditionals(data: bytes, every_group: bool = False) -> bytes:
    """`data` with each declaration-splitting conditional group read with its first branch
    (`every_group`: each group, wherever it stands)."""
    if b"#" not in data:
        return data
    read = _read(data)
    if read is None:
        return data
    lines, code, directive = read
    first_branch_ends = _first_branch_ends(lines, code, directive)
    out = list(lines)
    last_code = b";"  # the start of the file: a boundary
    stack: list[list[bool]] = []  # open groups: [splits a declaration, still in its first branch]
    blank_directive = False  # the directive being read (over `\\` lines) is blanked
    for i, line in enumerate(lines):
        hiding = any(split and not first for split, first in stack)
        if not directive[i]:
            if hiding:
                out[i] = _comment_out(line)
            elif stripped := code[i].strip():
                last_code = stripped
            continue
        if directive[i] and i and directive[i - 1] and lines[i - 1].rstrip().endswith(b"\\"):
            if blank_directive:
                out[i] = _comment_out(line)
            continue
        blank = hiding
        if _OPEN.match(line):
            branch_end = first_branch_ends.get(i, b"")
            split = not hiding and (every_group or not _ends_declaration(last_code)
                                    or bool(branch_end) and not _ends_declaration(branch_end))
            stack.append([split, True])
            blank = blank or split
        elif stack and _BRANCH.match(line):
            if stack[-1][0]:
                stack[-1][1] = False
                blank = True
        elif stack and _CLOSE.match(line):
            split, _first = stack.pop()
            blank = blank or split
        blank_directive = blank
        if blank:
            out[i] = _comment_out(line)
    filtered = b"".join(out)
    assert len(filtered) == len(data)
    return filtered


def resolve_every_conditional(data: bytes) -> bytes:
    """`data` read with the first branch of every conditional group."""
    return resolve_split_conditionals(data, every_group=True)
