"""TOML and JSON from files a person hands us, read so that deep nesting is one error line.

`tomllib` and `json` recurse once per level of nesting, so a value nested a few thousand deep
(`a = [[[[...]]]]`) ends their parse in RecursionError, a traceback instead of the one line
every bad input gets. These readers raise each module's own decode error instead, which every
caller already turns into its one line, and refuse a document nested deeper than `MAX_DEPTH`
even when it parses, so nothing that walks it later can recurse that deep either.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable
from typing import Any

#: deeper than any configuration, tour, labels or CodeTour file has reason to be
MAX_DEPTH = 100
_TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep"


def loads_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads`, raising TOMLDecodeError for a document nested too deeply."""
    try:
        document = tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(_TOO_DEEP) from None
    if _depth(document) > MAX_DEPTH:
        raise tomllib.TOMLDecodeError(_TOO_DEEP)
    return document


def loads_json(text: str, **options: Any) -> Any:
    """`json.loads`, raising JSONDecodeError for a document nested too deeply."""
    try:
        document = json.loads(text, **options)
    except RecursionError:
        raise json.JSONDecodeError(_TOO_DEEP, text, 0) from None
    if _depth(document) > MAX_DEPTH:
        raise json.JSONDecodeError(_TOO_DEEP, text, 0)
    return document


def _depth(document: Any) -> int:
    """How deep lists and tables nest in a parsed document (without recursing)."""
    deepest = 0
    stack = [(document, 1)]
    while stack:
        value, level = stack.pop()
        children: Iterable
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:
            stack.extend((child, level + 1) for child in children)
    return deepest
