"""Turn doc comments and docstrings into plain prose for chunks and embeddings."""

from __future__ import annotations

import html
import inspect
import re

#: `#:`: Sphinx; `--`, `---`: Lua, LDoc; `-- |`, `-- ^`: Haddock
_LINE_MARKER = re.compile(r"^\s*(?:///?!?|#[!:]?|--+(?:\[=*\[|\s*[|^](?=\s|$))?)\s?")
_BLOCK_OPEN = re.compile(r"^\s*(?:/\*[*!]?|\{-\s*[|^]?)\s?")  # `{- | ... -}`: Haddock
_DOC_BLOCK = re.compile(r"^\s*(?:/\*[*!](?!/)|\{-\s*[|^])")
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
    return _prose_lines(text)


def nearest_doc(texts: list[str]) -> list[str]:
    """Of the comments stacked right above a definition (first to last), those that document it.
    A block comment (`/* */`, `{- -}`) is whole in itself, so one above another is a note of its
    own (cJSON's "Memory Management: the caller is always responsible ..." heads a group of
    prototypes): the nearest doc block (`/** */`, `/*! */`, `{- | -}`) when there is one, as
    Javadoc reads it (a `//@Immutable` between it and the class is not the class's doc), else
    the last block comment when the stack ends with one, else the line comments that end it."""
    marked = [text for text in texts if _DOC_BLOCK.match(text)]
    if marked:
        return marked[-1:]
    if texts and _BLOCK_OPEN.match(texts[-1]):
        return texts[-1:]
    start = len(texts)
    while start > 0 and not _BLOCK_OPEN.match(texts[start - 1]):
        start -= 1
    return texts[start:]


def clean_comments(texts: list[str]) -> str:
    """One doc text from a block of adjacent comments."""
    return "\n".join(part for part in map(clean_comment, texts) if part).strip()


def clean_docstring(text: str) -> str:
    """A Python docstring's content, indentation normalised like `inspect.getdoc`."""
    return inspect.cleandoc(text.replace("\r\n", "\n"))


#: `{@link Foo#bar(int) label}`, `{@code x}`, `{@inheritDoc}`: the tag's name, its target, its label
_JAVADOC_INLINE = re.compile(r"\{@(\w+)\s*([^\s{}(]*(?:\([^()]*\))?)\s*((?:[^{}]|\{[^{}]*\})*)\}")
_JAVADOC_HTML = re.compile(r"</?(?:p|ul|ol|li|h[1-6]|pre|br|b|i|em|strong|tt|code|a|blockquote|table|thead|tbody"
                           r"|tr|td|th|dl|dt|dd|hr|sup|sub|div|span|caption)\b[^<>]*>", re.IGNORECASE)


def javadoc_to_prose(text: str) -> str:
    """A Javadoc comment as prose: `{@link Foo#bar label}` -> `label` (`Foo.bar` without one),
    `{@code x}` -> `x`, `{@inheritDoc}` dropped, its HTML tags dropped and entities decoded,
    so the model reads the words rather than the markup around them."""
    text = _JAVADOC_INLINE.sub(_inline_tag, text)
    text = html.unescape(_JAVADOC_HTML.sub("", text))
    return _prose_lines(text)


def _inline_tag(match: re.Match) -> str:
    tag, target, rest = match.group(1), match.group(2), match.group(3).strip()
    if tag in ("link", "linkplain"):
        return rest or target.replace("#", ".").lstrip(".")
    if tag in ("code", "literal", "value", "systemProperty", "index"):
        return f"{target} {rest}".strip()
    return rest  # `{@inheritDoc}`, `{@docRoot}`: nothing of their own to say


def _prose_lines(text: str) -> str:
    """`text`'s non-blank lines, stripped: what is left of a doc comment once its markup is gone."""
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())
