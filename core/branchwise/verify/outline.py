"""Outlines: a chunk reduced to what it promises (signatures, docstrings, comments), no body.

History is exported for its idea, not its code (`export --reference-as outline`): a deleted
design's signatures, docstrings and comments carry the principle while the implementation,
which must not be copied, stays out and costs no tokens. Symbols inside the chunk are found by
the same tree-sitter chunker that indexed it; each run of body lines becomes one elision line.
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache

from branchwise.chunking import chunk_file

_HASH_COMMENTS = ("python", "ruby", "shell", "toml", "yaml", "make", "dockerfile", "ini")
_DOCSTRING_START = re.compile(r"""^[rRuUbBfF]{0,2}("{3}|'{3}|"|')""")
_DECORATOR = re.compile(r"^@[\w.]")


def comment_prefix(language: str) -> str:
    return "#" if language in _HASH_COMMENTS else "//"


def is_comment(line: str, language: str) -> bool:
    stripped = line.strip()
    if language in _HASH_COMMENTS:
        return stripped.startswith("#")
    return stripped.startswith(("//", "/*", "*", "*/"))


@lru_cache(maxsize=64)
def outline(text: str, path: str, language: str) -> str:
    """`text` with only signatures, decorators, docstrings, comments and closing braces kept.
    Remembered: a bundle fitting its budget outlines the same pieces on every try."""
    lines = text.split("\n")
    keep = _signature_lines(text, path, len(lines))
    if not keep:  # no grammar for this file: the first line names what it is
        keep = {0}
    for index in sorted(keep):
        if language == "python":
            keep |= _docstring_after(lines, index)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if is_comment(line, language) or _DECORATOR.match(stripped) or stripped in ("}", "};", "},", "})", "});"):
            keep.add(index)
    return _assemble(lines, keep, language)


def _signature_lines(text: str, path: str, count: int) -> set[int]:
    """Indexes of the signature lines of every symbol the chunker finds in `text`."""
    dedented = textwrap.dedent(text)  # a method cut from its class parses as a top-level function
    plain = dedented.split("\n")
    keep: set[int] = set()
    for chunk in chunk_file("outline", path, dedented.encode("utf-8")).chunks:
        signature = [line.strip() for line in chunk.signature.split("\n") if line.strip()]
        if not signature:
            continue
        for index in range(chunk.start_line - 1, min(chunk.end_line, count)):
            if plain[index].strip() == signature[0]:
                keep.update(range(index, min(index + len(signature), count)))
                break
    return keep


def _docstring_after(lines: list[str], signature: int) -> set[int]:
    """The lines of a Python docstring directly after a signature line, if there is one."""
    index = signature + 1
    if index >= len(lines):
        return set()
    stripped = lines[index].strip()
    opening = _DOCSTRING_START.match(stripped)
    if opening is None:
        return set()
    quote = opening.group(1)
    rest = stripped[opening.end():]
    end = index
    while quote not in rest and end + 1 < len(lines):
        end += 1
        rest = lines[end]
    return set(range(index, end + 1))


def _assemble(lines: list[str], keep: set[int], language: str) -> str:
    """Kept lines in order; each run of dropped body lines becomes one elision line."""
    elision = "..." if language == "python" else f"{comment_prefix(language)} ..."
    out: list[str] = []
    dropped_indent: str | None = None
    for index, line in enumerate(lines):
        if index in keep:
            if dropped_indent is not None:
                out.append(dropped_indent + elision)
                dropped_indent = None
            out.append(line)
        elif line.strip() and dropped_indent is None:
            dropped_indent = line[: len(line) - len(line.lstrip())]
    if dropped_indent is not None:
        out.append(dropped_indent + elision)
    return "\n".join(out)
