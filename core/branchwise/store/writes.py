"""What an index run writes: branches, identities, versions with their FTS5 row, live-set
entries, tombstones, skipped files, embeddings, the run record; and the maintenance writes
(pruning branches, collecting unused versions). The indexer calls these inside one
transaction per branch; the algorithm stays in the indexer."""

from __future__ import annotations

from branchwise.store.batches import in_batches, marks
from branchwise.store.database import Database


#: SQLite's page cache for a bulk load (KiB, as `cache_size` takes a negative size): the default
#: 2 MB spills the versions' and embeddings' key indexes to the WAL mid-transaction
BULK_CACHE_KIB = 64 * 1024


class IndexWrites(Database):
    def prepare_bulk_writes(self) -> None:
        """A larger page cache for this connection, for a run that writes many rows."""
        self.conn.execute(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")

    # branches -----------------------------------------------------------------------------

    def add_branch(self, repo_id: int, name: str, commit: str, commit_time: str, indexed_at: str) -> int:
        return self.conn.execute(
            "INSERT INTO branches (repo_id, name, commit_sha, commit_time, indexed_at) VALUES (?, ?, ?, ?, ?)",
            (repo_id, name, commit, commit_time, indexed_at),
        ).lastrowid or 0

    def inherit(self, branch_id: int, base_id: int) -> None:
        """Copy the live set and the skipped files of branch `base_id` to `branch_id`."""
        self.conn.execute(
            "INSERT INTO live SELECT ?, identity_id, version_row, blob, start_line, end_line "
            "FROM live WHERE branch_id = ?",
            (branch_id, base_id),
        )
        self.conn.execute(
            "INSERT INTO skipped_files SELECT ?, path, reason FROM skipped_files WHERE branch_id = ?",
            (branch_id, base_id),
        )

    def set_branch_commit(self, branch_id: int, commit: str, commit_time: str, indexed_at: str) -> None:
        self.conn.execute(
            "UPDATE branches SET commit_sha = ?, commit_time = ?, indexed_at = ? WHERE id = ?",
            (commit, commit_time, indexed_at, branch_id),
        )

    def set_branch_ref(self, branch_id: int, ref: str) -> None:
        self.conn.execute("UPDATE branches SET ref = ? WHERE id = ?", (ref, branch_id))

    def record_run(self, repo_id: int, branch: str, commit: str, started: str, finished: str, summary: str) -> None:
        self.conn.execute(
            "INSERT INTO runs (repo_id, branch, commit_sha, started, finished, summary) VALUES (?, ?, ?, ?, ?, ?)",
            (repo_id, branch, commit, started, finished, summary),
        )

    def delete_branch(self, branch_id: int) -> None:
        """Forget a branch: its live set, skipped files and tombstones (its versions stay)."""
        for table in ("live", "skipped_files", "tombstones"):
            self.conn.execute(f"DELETE FROM {table} WHERE branch_id = ?", (branch_id,))
        self.conn.execute("DELETE FROM branches WHERE id = ?", (branch_id,))

    # live sets ------------------------------------------------------------------------------

    def live_rows(self, branch_id: int) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT version_row FROM live WHERE branch_id = ?", (branch_id,))]

    def live_file_blobs(self, branch_id: int) -> dict[str, str | None]:
        """path -> blob of every file that has an entry in a branch's live set."""
        return dict(self.conn.execute(
            "SELECT DISTINCT i.path, l.blob FROM live l JOIN identities i ON i.id = l.identity_id "
            "WHERE l.branch_id = ?", (branch_id,)))

    def live_in_file(self, branch_id: int, repo_id: int, path: str) -> dict[int, int]:
        """identity row -> version row, for a branch's live entries in one file."""
        return dict(self.conn.execute(
            "SELECT l.identity_id, l.version_row FROM live l JOIN identities i ON i.id = l.identity_id "
            "WHERE l.branch_id = ? AND i.repo_id = ? AND i.path = ?",
            (branch_id, repo_id, path),
        ).fetchall())

    def set_live(self, branch_id: int, identity_id: int, version_row: int, blob: str | None,
                 start_line: int, end_line: int) -> None:
        self.conn.execute(
            "INSERT INTO live VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (branch_id, identity_id) "
            "DO UPDATE SET version_row = excluded.version_row, blob = excluded.blob, "
            "start_line = excluded.start_line, end_line = excluded.end_line",
            (branch_id, identity_id, version_row, blob, start_line, end_line),
        )

    def tombstone(self, branch_id: int, identity_id: int, version_row: int, commit: str, at: str) -> None:
        """Replace a live entry by a tombstone that remembers where it last was."""
        last_commit, blob, start, end = self.conn.execute(
            "SELECT b.commit_sha, l.blob, l.start_line, l.end_line FROM live l "
            "JOIN branches b ON b.id = l.branch_id WHERE l.branch_id = ? AND l.identity_id = ?",
            (branch_id, identity_id),
        ).fetchone()
        self.conn.execute(
            "INSERT INTO tombstones (branch_id, identity_id, version_row, commit_sha, last_commit, "
            "blob, start_line, end_line, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (branch_id, identity_id, version_row, commit, last_commit, blob, start, end, at),
        )
        self.conn.execute("DELETE FROM live WHERE branch_id = ? AND identity_id = ?", (branch_id, identity_id))

    def record_skip(self, branch_id: int, path: str, reason: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO skipped_files VALUES (?, ?, ?)", (branch_id, path, reason))

    def forget_skip(self, branch_id: int, path: str) -> None:
        self.conn.execute("DELETE FROM skipped_files WHERE branch_id = ? AND path = ?", (branch_id, path))

    # identities and versions ----------------------------------------------------------------

    def identity_row(self, repo_id: int, path: str, language: str, symbol_type: str, qualified_name: str) -> int:
        """The identity's row, added when it is new."""
        key = (repo_id, path, language, symbol_type, qualified_name)
        row = self.conn.execute(
            "SELECT id FROM identities WHERE repo_id = ? AND path = ? AND language = ? "
            "AND symbol_type = ? AND qualified_name = ?",
            key,
        ).fetchone()
        if row:
            return row[0]
        return self.conn.execute(
            "INSERT INTO identities (repo_id, path, language, symbol_type, qualified_name) VALUES (?, ?, ?, ?, ?)",
            key,
        ).lastrowid or 0

    def identities_in_file(self, repo_id: int, path: str) -> dict[tuple[str, str, str], int]:
        """(language, symbol type, qualified name) -> identity row, for one file's identities."""
        return {(language, symbol_type, name): row for row, language, symbol_type, name in self.conn.execute(
            "SELECT id, language, symbol_type, qualified_name FROM identities WHERE repo_id = ? AND path = ?",
            (repo_id, path))}

    def add_identity(self, repo_id: int, path: str, language: str, symbol_type: str, qualified_name: str) -> int:
        """A new identity's row (the caller knows it is not stored yet)."""
        return self.conn.execute(
            "INSERT INTO identities (repo_id, path, language, symbol_type, qualified_name) VALUES (?, ?, ?, ?, ?)",
            (repo_id, path, language, symbol_type, qualified_name),
        ).lastrowid or 0

    def version_rows(self, version_ids: list[str]) -> dict[str, int]:
        """version id -> row, for those of `version_ids` that are stored."""
        found: dict[str, int] = {}
        for batch in in_batches(version_ids):
            found.update(self.conn.execute(
                f"SELECT version_id, id FROM versions WHERE version_id IN ({marks(len(batch))})", batch))
        return found

    def embedded_keys(self, model: str, keys: list[str]) -> set[str]:
        """Those of `keys` that `model` has embedded."""
        found: set[str] = set()
        for batch in in_batches(keys):
            found.update(row[0] for row in self.conn.execute(
                f"SELECT key FROM embeddings WHERE model = ? AND key IN ({marks(len(batch))})", (model, *batch)))
        return found

    def version_row(self, version_id: str) -> int | None:
        row = self.conn.execute("SELECT id FROM versions WHERE version_id = ?", (version_id,)).fetchone()
        return row[0] if row else None

    def add_version(self, values: dict[str, object], lexical: tuple[str, ...]) -> int:
        """A new version (`values` by column name) and its FTS5 row (the lexical columns)."""
        columns = ", ".join(values)
        row = self.conn.execute(
            f"INSERT INTO versions ({columns}) VALUES ({marks(len(values))})", tuple(values.values())
        ).lastrowid or 0
        self.conn.execute(
            "INSERT INTO lexical (rowid, symbol, name, signature, docstring, code, path) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row, *lexical),
        )
        return row

    # embeddings -----------------------------------------------------------------------------

    def has_embedding(self, model: str, key: str) -> bool:
        return self.conn.execute(
            "SELECT 1 FROM embeddings WHERE model = ? AND key = ?", (model, key)
        ).fetchone() is not None

    def add_embeddings(self, model: str, vectors: list[tuple[str, bytes]]) -> int:
        """Cache `model`'s vectors by embedding key; returns how many were new."""
        return self.conn.executemany(
            "INSERT OR IGNORE INTO embeddings (model, key, vector) VALUES (?, ?, ?)",
            [(model, key, vector) for key, vector in vectors],
        ).rowcount

    def unembedded_texts(self, model: str) -> dict[str, str]:
        """embedding key -> embedding text of the versions whose text `model` has not embedded."""
        return dict(self.conn.execute(
            "SELECT DISTINCT embed_key, embedding_text FROM versions v "
            "WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.key = v.embed_key)",
            (model,)))

    def unembedded_paths(self, model: str) -> list[tuple[str, str]]:
        """(path embedding key, path) of the versions whose path `model` has not embedded."""
        return self.conn.execute(
            "SELECT DISTINCT v.path_key, i.path FROM versions v JOIN identities i ON i.id = v.identity_id "
            "WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.key = v.path_key)",
            (model,)).fetchall()

    def set_embedding_text(self, version_row: int, text: str, embed_key: str, path_key: str) -> None:
        """A version's embedding text and the keys of its two embeddings (a new recipe)."""
        self.conn.execute("UPDATE versions SET embedding_text = ?, embed_key = ?, path_key = ? WHERE id = ?",
                          (text, embed_key, path_key, version_row))

    def set_path_class(self, version_row: int, path_class: str, reason: str) -> None:
        """A version's path class and reason as today's rules read its file (a new recipe)."""
        self.conn.execute("UPDATE versions SET path_class = ?, class_reason = ? WHERE id = ?",
                          (path_class, reason, version_row))

    def set_docstring(self, version_row: int, docstring: str) -> None:
        """A version's docstring as today's chunker reads it (a new recipe), in its FTS5 row too."""
        self.conn.execute("UPDATE versions SET docstring = ? WHERE id = ?", (docstring, version_row))
        self.conn.execute("UPDATE lexical SET docstring = ? WHERE rowid = ?", (docstring, version_row))

    # re-keying versions (containers keyed by their outline) ------------------------------------

    def rekey_version(self, version_row: int, version_id: str, content_hash: str, text: str) -> None:
        """Give a version another key (the same content hashed another way) and the text the
        index keeps for it; its labels follow it."""
        self._move_labels(version_row, version_id, content_hash)
        self.conn.execute("UPDATE versions SET version_id = ?, content_hash = ?, text = ? WHERE id = ?",
                          (version_id, content_hash, text, version_row))

    def merge_version(self, version_row: int, into: int) -> None:
        """Version `version_row` is the version in row `into` under another key: live sets,
        tombstones and labels move there, and the row goes with its FTS5 row."""
        version_id, content_hash = self.conn.execute(
            "SELECT version_id, content_hash FROM versions WHERE id = ?", (into,)).fetchone()
        self._move_labels(version_row, version_id, content_hash)
        for table in ("live", "tombstones"):
            self.conn.execute(f"UPDATE {table} SET version_row = ? WHERE version_row = ?", (into, version_row))
        self.conn.execute("DELETE FROM lexical WHERE rowid = ?", (version_row,))
        self.conn.execute("DELETE FROM versions WHERE id = ?", (version_row,))

    def _move_labels(self, version_row: int, version_id: str, content_hash: str) -> None:
        """Labels of the version in `version_row` now name `version_id` (a label already
        there wins)."""
        self.conn.execute(
            "UPDATE OR IGNORE labels SET version_id = ?, content_hash = ? "
            "WHERE version_id = (SELECT version_id FROM versions WHERE id = ?)",
            (version_id, content_hash, version_row))

    # garbage collection ---------------------------------------------------------------------

    def unused_versions(self, cutoff: str) -> list[int]:
        """Versions in no live set, created by `cutoff` and not deleted from a branch since."""
        return [row[0] for row in self.conn.execute(
            "SELECT v.id FROM versions v WHERE NOT EXISTS (SELECT 1 FROM live l WHERE l.version_row = v.id) "
            "AND v.created_at <= ? AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.version_row = v.id AND t.at > ?)",
            (cutoff, cutoff),
        )]

    def delete_versions(self, version_rows: list[int]) -> None:
        """Remove versions with their tombstones and FTS5 rows, and embeddings nothing uses."""
        for batch in in_batches(version_rows):
            for table, column in (("tombstones", "version_row"), ("lexical", "rowid"), ("versions", "id")):
                self.conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks(len(batch))})", batch)
        self.conn.execute(
            "DELETE FROM embeddings WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.embed_key = embeddings.key "
            "OR v.path_key = embeddings.key)"
        )
