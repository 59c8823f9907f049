"""An MCP answer's size as the agent pays for it: compact JSON, counted in tokens.

Every answer states its own size, and a budgeted answer spends its budget on code: the query
the agent sent is echoed back elided when it is long (the agent holds its own copy), so a
megabyte of query cannot crowd out the results or break `max_tokens`.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from branchwise.review.bundle.tokens import token_counter

#: the longest query echoed whole; a longer one keeps its start and states its length
QUERY_ECHO_CHARS = 200


def compact_json(answer: dict) -> str:
    """The answer as an agent reads it: JSON without indentation or spaces."""
    return json.dumps(answer, separators=(",", ":"), ensure_ascii=False, default=str)


def with_token_count(answer: dict, key: str = "tokens") -> dict:
    """The answer with its own size in tokens in `key` (the count includes the field)."""
    count = token_counter()
    answer[key] = count(compact_json(answer))
    counted = _counted_with(answer, key)
    for _ in range(5):
        total = counted(answer[key])
        if total == answer[key]:
            break
        answer[key] = total
    return answer


def _counted_with(answer: dict, key: str) -> Callable[[int], int]:
    """`n -> the answer's count with n in key`. With `key` the last field, the answer's JSON
    ends `"key":n}`, so the counter counts the text before n once, where it can."""
    count = token_counter()
    text, ending = compact_json(answer), f"{answer[key]}}}"
    if count.ending is not None and next(reversed(answer)) == key and type(answer[key]) is int \
            and text.endswith(ending):
        before = count.ending(text[:-len(ending)])
        return lambda n: before(f"{n}}}")
    return lambda n: count(compact_json({**answer, key: n}))


def echoed(query: str) -> str:
    """The query as an answer echoes it: whole up to QUERY_ECHO_CHARS, else its start, elided."""
    if len(query) <= QUERY_ECHO_CHARS:
        return query
    return f"{query[:QUERY_ECHO_CHARS]}… (elided: {len(query):,} characters in all)"
