"""The audit log: append-only, with deduplication of retried events.

Handlers retry; the audit log must not show a cancellation twice because a client did. An
event may carry a dedup key (usually the request's idempotency key); a second event with the
same dedup key is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class AuditEvent:
    kind: str
    subject_id: str
    at: datetime
    actor: str = "system"
    details: dict[str, Any] = field(default_factory=dict)
    dedup_key: str | None = None

    @classmethod
    def create(cls, kind: str, subject_id: str, at: datetime, **extra: Any) -> AuditEvent:
        return cls(kind, subject_id, at, **extra)


class AuditLog:
    def __init__(self) -> None:
        self._events: list[AuditEvent] = []
        self._seen_keys: set[tuple[str, str]] = set()

    def record(self, event: AuditEvent) -> bool:
        """Append `event`; return False if it duplicates an event already recorded."""
        if event.dedup_key is not None:
            key = (event.kind, event.dedup_key)
            if key in self._seen_keys:
                return False
            self._seen_keys.add(key)
        self._events.append(event)
        return True

    def for_subject(self, subject_id: str) -> list[AuditEvent]:
        return [event for event in self._events if event.subject_id == subject_id]
