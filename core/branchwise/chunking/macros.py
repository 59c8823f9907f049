r"""Attribute-like macros of C and C++, blanked out before parsing so the grammar sees code.

Projects wrap declarations in macros a parser cannot expand: `FMT_BEGIN_NAMESPACE` on a line
of its own, `FMT_EXPORT template <...> class`, `FMT_API void f()`, `class FMT_API error`.
Tree-sitter reads those as expressions and loses the declarations around them. The parse
therefore runs over a copy in which such macro names are replaced by spaces of the same
length: byte offsets and lines are unchanged, and every chunk's text is still cut from the
file's own bytes. A macro is an upper-case name with an underscore; it is blanked when it
stands alone on a line (with its arguments: `FMT_PRAGMA_CLANG(...)`), or directly before a declaration keyword, another such macro or (C++) a constructor's name and `(`, or
between `class`/`struct` and the class name, or between `if` and its condition. Preprocessor lines
(with their `\` continuation lines: a macro's body) are left alone.
"""

from __future__ import annotations

import re

_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*"
_KEYWORDS = (
    rb"template|class|struct|union|enum|void|auto|inline|static|constexpr|consteval|const|explicit|"
    rb"virtual|friend|typename|using|namespace|extern|bool|char|int|unsigned|signed|long|short|"
    rb"double|float|size_t|std|operator|typedef|\w+_t"
)
_ARGUMENTS = rb"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)"  # up to three levels of parentheses
_ALONE = re.compile(rb"^([ \t]*)(" + _MACRO + rb"(?:" + _ARGUMENTS + rb")?)[ \t]*;?[ \t]*(?=\r?$)", re.MULTILINE)
_BEFORE_DECLARATION = re.compile(
    rb"(?<![\w#])(?<!typedef )(" + _MACRO + rb")(?=[ \t]+(?:(?:" + _KEYWORDS + rb")\b|~|" + _MACRO + rb"\b))"
)
#: C++ only: `FMT_CONSTEXPR typed_node(...)` (in C such a macro is a return type)
_BEFORE_CONSTRUCTOR = re.compile(rb"(?<![\w#])(?<!typedef )(" + _MACRO + rb")(?=[ \t]+\w+[ \t]*\()")
_IN_CLASS_HEAD = re.compile(rb"(?:(?<=\bclass )|(?<=\bstruct ))(" + _MACRO + rb"(?:" + _ARGUMENTS + rb")?)(?=[ \t]+\w)")
_ANY_MACRO = re.compile(_MACRO)
_IN_IF = re.compile(rb"(?<=\bif )(" + _MACRO + rb")(?=[ \t]*\()")  # `if FMT_CONSTEXPR20 (...)`


def _blank(match: re.Match[bytes]) -> bytes:
    return b" " * len(match[0])


def _blank_last_group(match: re.Match[bytes]) -> bytes:
    return match[1] + b" " * (len(match[0]) - len(match[1]))


def mask_cpp_macros(data: bytes) -> bytes:
    """`mask_macros`, and a macro before a constructor's name."""
    return mask_macros(data, cpp=True)


def mask_macros(data: bytes, cpp: bool = False) -> bytes:
    """`data` with attribute-like macro names replaced by spaces (same length, same lines)."""
    if b"_" not in data:
        return data
    out = []
    in_directive = False  # a `\` at the end of a directive's line continues it on the next
    for line in data.splitlines(keepends=True):
        if in_directive or line.lstrip().startswith(b"#"):
            in_directive = line.rstrip().endswith(b"\\")
            out.append(line)
            continue
        if not _ANY_MACRO.search(line):
            out.append(line)
            continue
        line = _ALONE.sub(_blank_last_group, line)
        line = _BEFORE_DECLARATION.sub(_blank, line)
        if cpp:
            line = _BEFORE_CONSTRUCTOR.sub(_blank, line)
        line = _IN_CLASS_HEAD.sub(_blank, line)
        line = _IN_IF.sub(_blank, line)
        out.append(line)
    masked = b"".join(out)
    assert len(masked) == len(data)
    return masked
