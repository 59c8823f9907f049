"""An MCP answer's size as the agent pays for it: compact JSON, counted in tokens.

Every answer states its own size, and a budgeted answer spends its budget on code: the query
the agent sent is echoed back elided when it is long (the agent holds its own copy), so a
megabyte of query cannot crowd out the results or break `max_tokens`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from branchwise.review.bundle.tokens import token_counter

#: the longest query echoed whole; a longer one keeps its start and states its length
QUERY_ECHO_CHARS = 200
_ABSENT: Any = object()  # "without the field" for _counted_with


def compact_json(answer: Any) -> str:
    """The answer as an agent reads it: JSON without indentation or spaces."""
    return json.dumps(answer, separators=(",", ":"), ensure_ascii=False, default=str)


def with_token_count(answer: dict, key: str = "tokens") -> dict:
    """The answer with its own size in tokens in `key` (the count includes the field)."""
    counted = _counted_with(answer, key)
    answer[key] = counted(answer.get(key, _ABSENT))
    for _ in range(5):
        total = counted(answer[key])
        if total == answer[key]:
            break
        answer[key] = total
    return answer


def _counted_with(answer: dict, key: str) -> Callable[[Any], int]:
    """`n -> the answer's count with n in key` (_ABSENT: without the key). With `key` the last
    field (or not there yet), the answer's JSON is the rest's without its closing brace,
    then `,"key":n}`, so the counter counts that common start once, where it can."""
    count = token_counter()
    rest = {k: v for k, v in answer.items() if k != key}
    if count.ending is not None and rest and (key not in answer or next(reversed(answer)) == key):
        before = count.ending(compact_json(rest)[:-1])
        field = f",{compact_json(key)}:"
        return lambda n: before("}" if n is _ABSENT else f"{field}{compact_json(n)}}}")
    return lambda n: count(compact_json(rest if n is _ABSENT else {**answer, key: n}))


def echoed(query: str) -> str:
    """The query as an answer echoes it: whole up to QUERY_ECHO_CHARS, else its start, elided."""
    if len(query) <= QUERY_ECHO_CHARS:
        return query
    return f"{query[:QUERY_ECHO_CHARS]}… (elided: {len(query):,} characters in all)"
