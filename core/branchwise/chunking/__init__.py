"""Symbol chunking: cut source files into version-verifiable chunks, one per symbol.

Public API (other packages code against exactly these names):

- `chunk_file(repository, path, data, rules=None, generated_paths=frozenset(), marks=None)` -> FileChunks
- `load_chunker()`: what `chunk_file` loads on its first call, loaded now
- `language_for_path(path)` -> grammar name or None
- `classify_path(path, data, rules, generated_paths=frozenset(), marks=None)` -> (PathClass, reason)
- `vendored_pattern(path, rules)` -> the well-known vendored folder `path` lies in, or None
- `ChunkingRules` (and `ChunkingRules.from_mapping` for the config file)
- `path_embedding_text(path)` -> the words the indexer embeds for a path
- `line_range_bytes` / `lines_hash`: how chunk texts and hashes are cut, for verification
"""

from typing import TYPE_CHECKING

from branchwise.chunking.embedding_text import path_embedding_text
from branchwise.chunking.languages import language_for_path
from branchwise.chunking.lines import line_range_bytes, lines_hash
from branchwise.chunking.pathclass import classify_path, vendored_pattern
from branchwise.chunking.rules import ChunkingRules

if TYPE_CHECKING:
    from branchwise.chunking.chunker import chunk_file
else:
    def chunk_file(*args, **kwargs):
        """chunker.chunk_file, imported on the first call: the chunker loads tree-sitter and every
        grammar, which a search needs only to outline a large result (verify/outline.py)."""
        from branchwise.chunking.chunker import chunk_file as chunk

        return chunk(*args, **kwargs)


def load_chunker() -> None:
    """Load the chunker now (tree-sitter and every grammar), for a long-lived reader that
    should not pay for it on its first large result."""
    import branchwise.chunking.chunker  # noqa: F401


__all__ = [
    "ChunkingRules",
    "chunk_file",
    "classify_path",
    "language_for_path",
    "line_range_bytes",
    "lines_hash",
    "load_chunker",
    "path_embedding_text",
    "vendored_pattern",
]
