"""Byte offsets to line numbers and back: the one place that defines what "lines" means.

A line ends at `\\n`; a `\\r` directly before it is part of the line ending (CRLF), a lone
`\\r` is not. The bytes of lines `start..end` run from the first byte of `start` to the
last byte of `end` before its line ending, so a chunk's hash does not change when the
line after it is added or removed. Verification hashes lines with the same functions.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from branchwise.models import sha256_hex

_NEWLINE = re.compile(b"\n")


class LineTable:
    """Precomputed line starts of one file's bytes; lookups are O(log n)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(data)]

    @property
    def line_count(self) -> int:
        """Lines in the file; a final line ending does not start another line."""
        if self.data and self.starts[-1] == len(self.data):
            return len(self.starts) - 1
        return len(self.starts) if self.data else 0

    def line_of(self, offset: int) -> int:
        """1-based line holding byte `offset`."""
        return bisect_right(self.starts, offset)

    def last_line_of(self, start: int, end: int) -> int:
        """1-based line holding the last byte of the half-open range `start..end`."""
        return self.line_of(max(start, end - 1))

    def span(self, start_line: int, end_line: int) -> tuple[int, int]:
        """Byte range of lines `start_line..end_line` (1-based, inclusive), without the final line ending."""
        start = self.starts[start_line - 1]
        if end_line < len(self.starts):
            end = self.starts[end_line] - 1
            if end > start and self.data[end - 1 : end] == b"\r":
                end -= 1
        else:
            end = len(self.data)
        return start, end

    def line_start(self, offset: int) -> int:
        """Byte offset where the line holding `offset` starts."""
        return self.starts[self.line_of(offset) - 1]


def line_range_bytes(data: bytes, start_line: int, end_line: int) -> bytes:
    """The bytes of lines `start_line..end_line` of `data`, exactly as chunk texts are cut."""
    start, end = LineTable(data).span(start_line, end_line)
    return data[start:end]


def lines_hash(data: bytes, start_line: int, end_line: int) -> str:
    """The content hash a chunk spanning those lines of `data` carries."""
    return sha256_hex(line_range_bytes(data, start_line, end_line))


def decode(data: bytes) -> str:
    """Text for display and embedding; hashes are always taken on the raw bytes."""
    return data.decode("utf-8", errors="replace")
