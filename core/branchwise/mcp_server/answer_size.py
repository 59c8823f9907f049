"""An MCP answer's size as the agent pays for it: compact JSON, counted in tokens.

Every answer states its own size, and a budgeted answer spends its budget on code: the query
the agent sent is echoed back elided when it is long (the agent holds its own copy), so a
megabyte of query cannot crowd out the results or break `max_tokens`.
"""

from __future__ import annotations

import json

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
    for _ in range(5):
        total = count(compact_json(answer))
        if total == answer[key]:
            break
        answer[key] = total
    return answer


def echoed(query: str) -> str:
    """The query as an answer echoes it: whole up to QUERY_ECHO_CHARS, else its start, elided."""
    if len(query) <= QUERY_ECHO_CHARS:
        return query
    return f"{query[:QUERY_ECHO_CHARS]}… (elided: {len(query):,} characters in all)"
