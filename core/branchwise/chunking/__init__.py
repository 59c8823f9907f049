"""Symbol chunking: cut source files into version-verifiable chunks, one per symbol.

Public API (other packages code against exactly these names):

- `chunk_file(repository, path, data, rules=None, generated_paths=frozenset(), marks=None)` -> FileChunks
- `language_for_path(path)` -> grammar name or None
- `classify_path(path, data, rules, generated_paths=frozenset(), marks=None)` -> (PathClass, reason)
- `vendored_pattern(path, rules)` -> the well-known vendored folder `path` lies in, or None
- `ChunkingRules` (and `ChunkingRules.from_mapping` for the config file)
- `path_embedding_text(path)` -> the words the indexer embeds for a path
- `line_range_bytes` / `lines_hash`: how chunk texts and hashes are cut, for verification
"""

from branchwise.chunking.chunker import chunk_file
from branchwise.chunking.embedding_text import path_embedding_text
from branchwise.chunking.languages import language_for_path
from branchwise.chunking.lines import line_range_bytes, lines_hash
from branchwise.chunking.pathclass import classify_path, vendored_pattern
from branchwise.chunking.rules import ChunkingRules

__all__ = [
    "ChunkingRules",
    "chunk_file",
    "classify_path",
    "language_for_path",
    "line_range_bytes",
    "lines_hash",
    "path_embedding_text",
    "vendored_pattern",
]
