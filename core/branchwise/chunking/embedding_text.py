"""Compose the text the embedding model sees for a chunk, and the text for its path.

The path is deliberately left out of a chunk's text: the indexer embeds the path on its
own (`path_embedding_text`) and combines the two vectors, so a renamed or moved file
reuses every symbol vector. A chunk's text is, line by line:

    <symbol_type> <qualified_name>
    <qualified name split into lower-case words>
    in <parent qualified name>          (only for nested symbols)
    <signature>
    <docstring or doc comment>
    <body, or for classes and other containers the outline: fields and member signatures;
     for a module, the first line of each of its definitions' signatures, then its code>

and stays under MAX_CHARS (the model reads ~256 tokens); the body is cut at a line
boundary to fit, after the parts above it. After DESCRIPTION_MARK comes the symbol's
description (`description`: its docstring's first words, else its name in words), which the
embedder embeds on its own and mixes in (embedding/described.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from branchwise.embedding.described import DESCRIPTION_MARK

MAX_CHARS = 1500
#: names the composition below; stored in the index, so a change re-embeds once (recipe.py).
#: outline-2: the same texts, and containers keyed by their outline (re-keyed once, recipe.py)
#: sections-1: Markdown/reST cut into sections, overload stubs folded (re-chunked once, rechunk.py)
#: described-1: each text ends with the symbol's description, mixed in at weight 0.75
#: modules-1: the same texts; a Kotlin constructor below its class header no longer hides the rest
#: of the file, a C# partial type's other parts are `partial X`, a file without symbols is one
#: module chunk (re-chunked once, rechunk.py)
#: macros-1: the same texts; Rust `macro_rules!` are symbols, items inside a macro call that
#: wraps them are seen and an impl's associated `type` is no symbol, C# types past `ref partial` or an `#if` inside a statement keep their
#: members, C/C++ files split by such an `#if` are read again; a JavaScript/TypeScript `const`
#: made by wrapping a function is a function; a Python `X = Annotated[...]` is a type; a Go
#: package-level `var` is a constant (re-chunked once, rechunk.py)
#: arms-1: the same texts; the subcommands a long shell function dispatches on are symbols
#: (`nvm.install`, naming.bash) (re-chunked once, rechunk.py), and one long line no longer makes
#: written code minified (stored path classes read again once, recipe.py)
#: macro-docs-1: a Rust `macro_rules!` without doc comments above it is documented by the first
#: `///` lines of its rules (macro_docs.py; stored docstrings read again once, recipe.py)
#: javadoc-1: a Java doc comment is read as prose, its `{@link X}`, `{@code x}` and HTML tags
#: reduced to their words (comments.javadoc_to_prose; stored docstrings read again once, recipe.py)
#: module-outline-1: a module chunk's text outlines its file: the first line of each top-level
#: definition's signature before its imports and module-level code (re-embedded once, recipe.py)
#: nearest-doc-1: of the comments stacked above a definition, the nearest doc block, else the last
#: block comment, else the line comments that end the stack (comments.nearest_doc; stored
#: docstrings read again once, recipe.py)
#: installs-1: the same texts; a function a top-level call installs on an object under a name
#: (`defineGetter(req, 'ip', function () {...})`) is that object's method (re-chunked once, rechunk.py)
TEXT_RECIPE = "installs-1"
#: the words of a docstring that describe a symbol: about its summary sentence (20 words did
#: better than 60 on both benchmarks, and cost less: bench/results/2026-12-04-model-round5.md)
DESCRIPTION_WORDS = 20

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PATH_SEPARATORS = re.compile(r"[/\\._\-\s]+")


def split_words(name: str) -> str:
    """`OrderService.cancel_order` -> `order service cancel order`; `HTTPServer` -> `http server`."""
    return " ".join(word.lower() for word in _WORD.findall(name))


def path_embedding_text(path: str) -> str:
    """`src/orders/services/order_service.py` -> `src orders services order service py`."""
    return " ".join(split_words(part) for part in _PATH_SEPARATORS.split(path) if part).strip()


def compose(
    symbol_type: str,
    qualified_name: str,
    parent_name: str | None,
    signature: str,
    docstring: str,
    body: str,
    path: str = "",
) -> str:
    """A symbol's embedding text: its passage, then its description after DESCRIPTION_MARK."""
    return passage(symbol_type, qualified_name, parent_name, signature, docstring, body) + DESCRIPTION_MARK \
        + description(docstring, qualified_name)


def passage(
    symbol_type: str,
    qualified_name: str,
    parent_name: str | None,
    signature: str,
    docstring: str,
    body: str,
) -> str:
    """The text the model reads as one passage (compose() without the description)."""
    head = [f"{symbol_type} {qualified_name}", split_words(qualified_name)]
    if parent_name:
        head.append(f"in {parent_name}")
    if signature:
        head.append(signature)
    text = "\n".join(part for part in head if part)
    if len(text) >= MAX_CHARS:
        return text[:MAX_CHARS]
    if docstring:
        text = _append(text, docstring.splitlines(), MAX_CHARS * 2 // 3)
    return _append(text, _compact(body), MAX_CHARS)


def description(docstring: str, qualified_name: str) -> str:
    """What a symbol says it does: its docstring's first DESCRIPTION_WORDS words without a
    leading symbol name ("ExactArgs returns an error ..." -> "returns an error ..."); for code
    without a docstring, its qualified name in words (`Command.stripFlags` -> "command strip flags")."""
    words = docstring.split()
    if words and words[0].rstrip(".,:") == qualified_name.rsplit(".", 1)[-1]:
        words = words[1:]
    return " ".join(words[:DESCRIPTION_WORDS]) or split_words(qualified_name)


def outline_body(fields: list[str], members: list[str]) -> str:
    """The part of a container's text that stands in for its body."""
    return "\n".join(fields + members)


def _compact(body: str) -> Iterator[str]:
    """Indentation and blank lines carry no meaning for the model but cost characters; lazily,
    so that a long body is stripped only as far as the text takes it."""
    return (stripped for line in body.splitlines() if (stripped := line.strip()))


def _append(text: str, addition: Iterable[str], limit: int) -> str:
    """`text` plus as many whole lines of `addition` as fit within `limit` characters."""
    kept: list[str] = []
    size = len(text)
    for line in addition:
        if size + 1 + len(line) > limit:
            if not kept and size + 1 < limit:
                kept.append(line[: limit - size - 1])
            break
        kept.append(line)
        size += 1 + len(line)
    return "\n".join([text, *kept]) if kept else text
