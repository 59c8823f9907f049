"""The last blobs read, kept by id: a warm MCP server verifies the same containers again and
again, and each read went through GitPython's `cat-file --batch` helper (a round trip per
blob). A blob id names its bytes, so a kept blob is never stale."""

from __future__ import annotations

import threading
from collections import OrderedDict


class BlobMemo:
    """The last blobs read, by id (an id names its bytes, so a kept blob is never stale), up to
    `limit` bytes in all; a blob larger than a quarter of that is not kept."""

    def __init__(self, limit: int = 32 * 1024 * 1024):
        self._limit = limit
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, blob: str) -> bytes | None:
        with self._lock:
            data = self._kept.get(blob)
            if data is not None:
                self._kept.move_to_end(blob)
            return data

    def put(self, blob: str, data: bytes) -> bytes:
        if len(data) > self._limit // 4:
            return data
        with self._lock:
            if blob not in self._kept:
                self._kept[blob] = data
                self._size += len(data)
            while self._size > self._limit:
                _, dropped = self._kept.popitem(last=False)
                self._size -= len(dropped)
        return data
