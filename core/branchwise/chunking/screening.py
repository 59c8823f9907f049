"""Files the chunker must not read at all: secrets, binaries, oversized files.

Each check returns a reason for `FileChunks.skipped` (it starts with the rule's name:
"secret", "binary" or "too large"), or None when the file may be chunked.
"""

from __future__ import annotations

from branchwise.chunking.globs import matching_pattern
from branchwise.chunking.rules import ChunkingRules

_BINARY_SNIFF_BYTES = 8 * 1024


def skip_reason(path: str, data: bytes, rules: ChunkingRules) -> str | None:
    if (pattern := matching_pattern(path, rules.secret_globs)) and not matching_pattern(
        path, rules.secret_allow_globs
    ):
        return f"secret: name matches {pattern}"
    if len(data) > rules.max_file_bytes:
        return f"too large: {len(data)} bytes > max_file_bytes {rules.max_file_bytes}"
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        return "binary: NUL byte in the first 8 KB"
    return None
