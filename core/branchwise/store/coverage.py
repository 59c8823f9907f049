"""What the embedding stage reads and writes: which versions still lack a vector, in the
order the first searches need them, and how much of a branch the dense channel covers.

A version has its dense vector once both of its embeddings are cached for the model: its
symbol text's (`embed_key`) and its file path's (`path_key`). Everything here is counted
from the embedding cache, the one record of what was embedded, so a killed embedding run
leaves nothing to repair: the next one finds exactly what is still missing.
"""

from __future__ import annotations

from collections.abc import Sequence

from branchwise.store.batches import in_batches, marks
from branchwise.store.database import Database

_HAS = "EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.key = {key})"


class CoverageReads(Database):
    def live_coverage(self, branch_id: int, model: str) -> tuple[int, int]:
        """(versions with both embeddings cached for `model`, versions) of a branch's live set."""
        row = self.conn.execute(
            f"SELECT count(*), coalesce(sum({_HAS.format(key='v.embed_key')} AND {_HAS.format(key='v.path_key')}), 0) "
            "FROM (SELECT DISTINCT version_row FROM live WHERE branch_id = ?) l JOIN versions v ON v.id = l.version_row",
            (model, model, branch_id)).fetchone()
        return int(row[1]), int(row[0])

    def unembedded_versions(self, model: str) -> list[tuple[int, str, str, str, str, str, str]]:
        """(version row, embed key, path key, path, path class, language, qualified name) of every
        version missing one of its embeddings for `model`, by row (the texts stay in the database)."""
        return self.conn.execute(
            "SELECT v.id, v.embed_key, v.path_key, i.path, v.path_class, i.language, i.qualified_name "
            "FROM versions v JOIN identities i ON i.id = v.identity_id "
            f"WHERE NOT {_HAS.format(key='v.embed_key')} OR NOT {_HAS.format(key='v.path_key')} ORDER BY v.id",
            (model, model)).fetchall()

    def missing_keys(self, model: str, keys: Sequence[str]) -> set[str]:
        """Those of `keys` that `model` has not embedded."""
        found: set[str] = set()
        for batch in in_batches(list(keys)):
            found.update(row[0] for row in self.conn.execute(
                f"SELECT key FROM embeddings WHERE model = ? AND key IN ({marks(len(batch))})", (model, *batch)))
        return set(keys) - found

    def embedding_texts(self, version_rows: Sequence[int]) -> dict[int, str]:
        """version row -> its embedding text."""
        found: dict[int, str] = {}
        for batch in in_batches(list(version_rows)):
            found.update(self.conn.execute(
                f"SELECT id, embedding_text FROM versions WHERE id IN ({marks(len(batch))})", batch))
        return found

    def embedded_versions(self, model: str, version_rows: Sequence[int]) -> list[int]:
        """Those of `version_rows` that have both embeddings cached for `model`, by row."""
        found: list[int] = []
        for batch in in_batches(list(version_rows)):
            found += [row[0] for row in self.conn.execute(
                f"SELECT v.id FROM versions v WHERE v.id IN ({marks(len(batch))}) "
                f"AND {_HAS.format(key='v.embed_key')} AND {_HAS.format(key='v.path_key')}", (*batch, model, model))]
        return sorted(found)
