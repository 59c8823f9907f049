"""Turn doc comments and docstrings into plain prose for chunks and embeddings."""

from __future__ import annotations

import inspect
import re

#: `#:`: Sphinx; `--`, `---`: Lua, LDoc; `-- |`, `-- ^`: Haddock
_LINE_MARKER = re.compile(r"^\s*(?:///?!?|#[!:]?|--+(?:\[=*\[|\s*[|^](?=\s|$))?)\s?")
_BLOCK_OPEN = re.compile(r"^\s*(?:/\*[*!]?|\{-\s*[|^]?)\s?")  # `{- | ... -}`: Haddock
_BLOCK_CLOSE = re.compile(r"\s*(?:\*+/|-\})\s*$")
_BLOCK_STAR = re.compile(r"^\s*\*(?!/)\s?")


def clean_comment(text: str) -> str:
    """The prose of one comment: `//`, `///`, `#`, `--` or `/* */` / `/** */` / `{- -}` markers removed."""
    lines = text.splitlines() or [""]
    if _BLOCK_OPEN.match(lines[0]):
        lines[0] = _BLOCK_OPEN.sub("", lines[0], count=1)
        lines[-1] = _BLOCK_CLOSE.sub("", lines[-1])
        lines = [lines[0]] + [_BLOCK_STAR.sub("", line, count=1) for line in lines[1:]]
    else:
        lines = [_LINE_MARKER.sub("", line, count=1) for line in lines]
    return inspect.cleandoc("\n".join(lines))


_XML_REFERENCE = re.compile(r"<(?:see|seealso|paramref|typeparamref)\s+\w+=\"([^\"]*)\"\s*/>")
_XML_PARAM = re.compile(r"<(?:param|typeparam)\s+name=\"([^\"]*)\"\s*>")
_XML_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")


def xml_doc_to_prose(text: str) -> str:
    """A C# `///` XML doc comment as prose: `<see cref="X"/>` -> `X`, `<param name="x">`
    -> `x:`, other tags dropped."""
    text = _XML_REFERENCE.sub(r"\1", text)
    text = _XML_PARAM.sub(r"\1: ", text)
    text = _XML_TAG.sub("", text)
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def clean_comments(texts: list[str]) -> str:
    """One doc text from a block of adjacent comments."""
    return "\n".join(part for part in map(clean_comment, texts) if part).strip()


def clean_docstring(text: str) -> str:
    """A Python docstring's content, indentation normalised like `inspect.getdoc`."""
    return inspect.cleandoc(text.replace("\r\n", "\n"))
