"""Remembers the result of each request by its idempotency key.

Clients send an `Idempotency-Key` header with every state-changing request; the handlers store
their result under that key so a retried request can be answered without doing the work again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from common.clock import Clock

DEFAULT_TTL = timedelta(hours=24)


@dataclass(frozen=True)
class StoredResult:
    result: Any
    stored_at: datetime


class IdempotencyStore:
    """In-memory store of results by key; entries expire after `ttl`."""

    def __init__(self, clock: Clock, ttl: timedelta = DEFAULT_TTL) -> None:
        self._clock = clock
        self._ttl = ttl
        self._results: dict[str, StoredResult] = {}

    def get(self, key: str) -> Any | None:
        stored = self._results.get(key)
        if stored is None:
            return None
        if self._clock.now() - stored.stored_at > self._ttl:
            del self._results[key]
            return None
        return stored.result

    def put(self, key: str, result: Any) -> None:
        self._results[key] = StoredResult(result, self._clock.now())

    def forget(self, key: str) -> None:
        self._results.pop(key, None)
