"""Cut TOML, YAML and JSON files into top-level blocks instead of one file chunk.

A question about one setting (`tool.pytest.ini_options`, `services.web`, `scripts`) should
find that block, and an edit to another block should not make it `changed`. There is no
tree-sitter grammar for these formats among the bundled wheels, so each format gets a small
line-oriented splitter that only has to find where top-level blocks start:

- TOML: every table header (`[tool.pytest.ini_options]`, `[[steps]]`) starts a block named
  by the header (arrays of tables are numbered `steps[0]`, `steps[1]`...); keys before the
  first header are blocks of their own, named by the key.
- YAML: every key at column 0 starts a block named by the key; a key whose entries are all
  mappings themselves (`services:` of a compose file) is split one level further into
  `services.web`, `services.db`... (the first entry's block starts at `services:`). A document that is not a mapping at the top (a list,
  several documents) stays one file chunk.
- JSON: every key of the top-level object starts a block, found by a small tokenizer so any
  layout works; two top-level keys on one line (minified JSON) keep the file chunk.

Comment lines directly above a block belong to it; blank lines between blocks belong to
none. A file that does not parse, or yields fewer than two blocks, stays one file chunk.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass

CONFIG_KINDS = frozenset({"toml", "yaml", "json"})

_TOML_HEADER = re.compile(r"^\[(\[)?\s*([^\[\]#]+?)\s*\]\]?\s*(#.*)?$")
_TOML_KEY = re.compile(r"^([A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')(\s*\.\s*([A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*'))*\s*=")
_YAML_KEY = re.compile(r"^(\"[^\"]*\"|'[^']*'|[^\s#\-\[\]{}&*!|>'\"%@`][^:#]*?)\s*:(\s|$)")
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


@dataclass(frozen=True)
class Block:
    """One top-level block: its name and its 1-based inclusive line range."""

    name: str
    start_line: int
    end_line: int


def config_blocks(kind: str, text: str) -> list[Block]:
    """The top-level blocks of a `kind` ("toml", "yaml", "json") file, or [] to keep one chunk."""
    lines = text.splitlines()
    if kind == "toml":
        starts = _toml_starts(text, lines)
        comment = "#"
    elif kind == "yaml":
        starts = _yaml_starts(lines)
        comment = "#"
    elif kind == "json":
        starts = _json_starts(text)
        comment = None
    else:
        return []
    if starts is None or len(starts) < 2:
        return []
    end = len(lines)
    if kind == "json" and lines and lines[-1].strip() == "}":
        end -= 1  # the top-level object's closing brace belongs to no block
    return _blocks(lines, starts, comment, end)


def _blocks(lines: list[str], starts: list[tuple[str, int]], comment: str | None, end: int) -> list[Block]:
    """Blocks from (name, first line) pairs: each runs to the last non-blank line before the next."""
    names = _unique([name for name, _ in starts])
    firsts = [_with_leading_comments(lines, line, comment) for _, line in starts]
    blocks = []
    for i, (name, first) in enumerate(zip(names, firsts)):
        limit = firsts[i + 1] - 1 if i + 1 < len(firsts) else end
        last = limit
        while last > first and not lines[last - 1].strip():
            last -= 1
        blocks.append(Block(name, first, last))
    return blocks


def _with_leading_comments(lines: list[str], line: int, comment: str | None) -> int:
    if comment is None:
        return line
    first = line
    while first > 1 and lines[first - 2].lstrip().startswith(comment):
        first -= 1
    return first


def _unique(names: list[str]) -> list[str]:
    """A repeated name (a YAML key written twice) gets `#2`, `#3`... as symbols do."""
    seen: dict[str, int] = {}
    result = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        result.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return result


def _toml_starts(text: str, lines: list[str]) -> list[tuple[str, int]] | None:
    try:
        tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeError, RecursionError):
        return None
    starts: list[tuple[str, int]] = []
    array_counts: dict[str, int] = {}
    in_tables = False
    for number, line in enumerate(lines, start=1):
        header = _TOML_HEADER.match(line)
        if header:
            name = _toml_name(header.group(2))
            if header.group(1):  # [[array.of.tables]]
                index = array_counts.get(name, 0)
                array_counts[name] = index + 1
                name = f"{name}[{index}]"
            starts.append((name, number))
            in_tables = True
        elif not in_tables:
            key = _TOML_KEY.match(line)
            if key:
                starts.append((_toml_name(line.split("=", 1)[0]), number))
    return starts


def _toml_name(raw: str) -> str:
    """`tool . "black"` -> `tool.black`: the dotted name without spaces or needless quotes."""
    parts = re.findall(r"\"[^\"]*\"|'[^']*'|[^.\s]+", raw)
    return ".".join(p[1:-1] if p[:1] in "\"'" and re.fullmatch(r"[\"'][A-Za-z0-9_\-]+[\"']", p) else p
                    for p in parts)


def _yaml_starts(lines: list[str]) -> list[tuple[str, int]] | None:
    starts: list[tuple[str, int]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith((" ", "\t", "#")):
            continue
        if line.startswith(("---", "...")):
            if starts:  # a second document: keep the file whole
                return None
            continue
        key = _YAML_KEY.match(line)
        if not key:
            return None  # a top-level list or scalar: not a mapping of blocks
        name = key.group(1)
        starts.append((name[1:-1] if name[:1] in "\"'" else name, number))
    return _yaml_split_collections(lines, starts)


def _yaml_split_collections(lines: list[str], starts: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Replace a top-level key whose entries are all nested mappings by one block per entry."""
    result: list[tuple[str, int]] = []
    bounds = [line for _, line in starts[1:]] + [len(lines) + 1]
    for (name, first), after in zip(starts, bounds):
        body = [(n, lines[n - 1]) for n in range(first + 1, after)
                if lines[n - 1].strip() and not lines[n - 1].lstrip().startswith("#")]
        indents = [len(text) - len(text.lstrip(" ")) for _, text in body]
        child_indent = min(indents, default=0)
        children = [(n, text) for (n, text), indent in zip(body, indents) if indent == child_indent]
        nested = [
            i + 1 < len(body) and indents[i + 1] > child_indent
            for i, (n, text) in enumerate(body) if indents[i] == child_indent
        ]
        keys = [_YAML_KEY.match(text[child_indent:]) for _, text in children]
        if child_indent and len(children) >= 2 and all(keys) and all(nested) and \
                all(text.rstrip().endswith(":") for _, text in children):
            for index, ((n, _), key) in enumerate(zip(children, keys)):
                child = key.group(1)  # type: ignore[union-attr]
                child = child[1:-1] if child[:1] in "\"'" else child
                # the first entry carries the parent's own line (`services:`) as its context
                result.append((f"{name}.{child}", first if index == 0 else n))
        else:
            result.append((name, first))
    return result


def _json_starts(text: str) -> list[tuple[str, int]] | None:
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    starts: list[tuple[str, int]] = []
    depth = 0
    previous = ""
    pending: tuple[str, int] | None = None
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
        elif token == ":" and pending is not None:
            starts.append(pending)
        pending = None
        if depth == 1 and token.startswith('"') and previous in ("{", ","):
            pending = (json.loads(token), text.count("\n", 0, match.start()) + 1)
        previous = token
    lines_used = [line for _, line in starts]
    if len(set(lines_used)) != len(lines_used):
        return None
    return starts
