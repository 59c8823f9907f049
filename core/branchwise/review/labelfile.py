"""Reading a labels file fast: the shape `labels export` writes, parsed line by line.

A team's labels file can hold hundreds of thousands of `[[label]]` tables, and the standard
TOML parser needs about a second per megabyte for them (and builds the whole document in
memory). The export writes a narrow subset of TOML (top-level `key = "basic string"` lines,
then `[[label]]` headers each followed by such lines), which a line match reads many times
faster, one table at a time. A line outside that subset (a comment, another type, a
duplicate key, an unusual escape) raises `NotExportFormat`, and the caller reads the file
with `tomllib` instead, so every TOML file still reads exactly as TOML says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from branchwise.structured import loads_json, loads_toml

_HEADER = "[[label]]"
_PIN_HEADER = "[[pin]]"
_PIN_MARK = "\0pin"  # marks a pin table while it is read (no TOML key can be this)
#: `key = "value"`, the value a TOML basic string (tabs allowed raw, as TOML allows them)
#: without surrogate or 8-digit escapes
_LINE = re.compile(
    r'([A-Za-z0-9_-]+) = ("(?:[^"\\\x00-\x08\x0a-\x1f\x7f]|\\[btnfr"\\]|\\u(?![dD][89abAB])[0-9A-Fa-f]{4})*")\n?'
)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class NotExportFormat(Exception):
    """The text is not in the subset `labels export` writes: read it with tomllib."""


def label_tables(lines: Iterable[str], pins: list[dict] | None = None) -> Iterator[dict]:
    """The `[[label]]` tables of an exported labels file (its text, or its lines as a file
    yields them), one at a time; NotExportFormat as soon as a line is outside the subset.
    `[[pin]]` tables are appended to `pins` as they are met (without it they are outside)."""
    top: set[str] = set()
    current: dict | None = None
    if isinstance(lines, str):
        lines = (match.group() for match in re.finditer(r"[^\n]*\n?", lines))
    for line in lines:
        if line in ("", "\n"):
            continue
        header = line.rstrip("\n")
        if header == _HEADER or (header == _PIN_HEADER and pins is not None):
            if current is not None and not current.get(_PIN_MARK):
                yield current
            current = {}
            if header == _PIN_HEADER:
                current[_PIN_MARK] = True
                pins.append(current)  # type: ignore[union-attr]
            continue
        key, value = _key_value(line)
        seen = top if current is None else current
        if key in seen or (current is None and key in ("label", "pin")):
            raise NotExportFormat
        if current is None:
            top.add(key)
        else:
            current[key] = value
    if current is not None and not current.get(_PIN_MARK):
        yield current
    for table in pins or []:
        table.pop(_PIN_MARK, None)


def _key_value(line: str) -> tuple[str, str]:
    """`key = "value"` -> (key, value); the common case (a bare key, a string without escapes
    or control characters) by plain string tests, the rest by the full pattern."""
    key, equals, value = line.rstrip("\n").partition(" = ")
    if (equals and _BARE_KEY.fullmatch(key) and len(value) >= 2 and value[0] == '"' and value[-1] == '"'
            and '"' not in value[1:-1] and "\\" not in value and value.isprintable()):
        return key, value[1:-1]
    match = _LINE.fullmatch(line)
    if match is None:
        raise NotExportFormat
    key, value = match.groups()
    return key, loads_json(value, strict=False)


def toml_label_tables(text: str, pins: list | None = None) -> list:
    """The `label` array of any TOML text (tomllib's errors for bad TOML); its `pin` array
    is appended to `pins` (a non-list value as it is, for the caller to refuse)."""
    document = loads_toml(text)
    if pins is not None and "pin" in document:
        found = document["pin"]
        pins.extend(found) if isinstance(found, list) else pins.append(None)  # refused: not a table
    return document.get("label", [])
