"""Incremental, branch-aware indexing: from a commit to a branch's live set.

A branch already indexed at C0 is brought to C by the tree diff C0..C (so rebases and
force-pushes work). A new branch starts from the indexed branch whose commit is the
smallest diff away and copies its live set (inheritance); only then is the whole tree
parsed, when no branch is indexed yet. Changed files are re-chunked; a version seen before
on any branch is reused; only embedding texts never embedded with this model are embedded;
identities that disappear get a tombstone. Each branch lands in one SQLite transaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone

import json

from branchwise.chunking import chunk_file, path_embedding_text
from branchwise.chunking.imports import used_imports
from branchwise.backends.backend import VectorStore
from branchwise.config import Config
from branchwise.embedding import Embedder
from branchwise.gitrepo import FileChange, GitRepo
from branchwise.lexical import fts_columns
from branchwise.models import Chunk, sha256_hex
from branchwise.store import Store, utc_now

Progress = Callable[[str, int, int], None]  # (stage, done, total); "branch:NAME" starts a branch (position, count)
#: texts handed to the embedder per call (progress is reported after each)
EMBED_BATCH = 512


@dataclass
class BranchSummary:
    """The per-branch object of `index --json` (field names are a contract)."""

    branch: str
    commit: str
    files_parsed: int = 0
    versions_added: int = 0
    embedded: int = 0
    reused: int = 0
    tombstoned: int = 0
    seconds: float = 0.0
    base: str | None = None  # "incremental from <commit>", "inherited from <branch>" or "full"
    skipped_files: int = 0
    symbols_parsed: int = 0  # symbols cut from the files parsed in this run
    embed_seconds: float = 0.0  # time spent inside the embedder

    @property
    def symbols_per_second(self) -> float:
        return self.symbols_parsed / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        data = asdict(self)
        data["seconds"] = round(self.seconds, 3)
        data["embed_seconds"] = round(self.embed_seconds, 3)
        data["symbols_per_second"] = round(self.symbols_per_second, 1)
        return data


@dataclass
class _Run:
    repo_id: int
    branch_id: int
    commit: str
    summary: BranchSummary
    new_rows: list[int] = field(default_factory=list)
    #: versions whose place in this branch's live set changed (for a shared backend's payloads)
    touched: set[int] = field(default_factory=set)
    pending: dict[str, str] = field(default_factory=dict)  # embedding key -> text


def embedding_key(text: str) -> str:
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


def embed_and_store(conn, embedder: Embedder, pending: dict[str, str], progress: Progress, stage: str = "embed") -> float:
    """Embed texts (embedding key -> text) in batches into the embedding cache; returns the
    seconds spent inside the embedder."""
    items = list(pending.items())
    spent = 0.0
    for start in range(0, len(items), EMBED_BATCH):
        batch = items[start : start + EMBED_BATCH]
        began = time.perf_counter()
        vectors = embedder.embed([text for _key, text in batch])
        spent += time.perf_counter() - began
        conn.executemany(
            "INSERT OR IGNORE INTO embeddings (model, key, vector) VALUES (?, ?, ?)",
            [(embedder.name, key, vec.astype("float32").tobytes()) for (key, _), vec in zip(batch, vectors)],
        )
        progress(stage, min(start + EMBED_BATCH, len(items)), len(items))
    return spent


class Indexer:
    """Indexes branches of one repository into one store."""

    def __init__(
        self,
        store: Store,
        repo: GitRepo,
        config: Config,
        embedder: Embedder,
        vectors: VectorStore,
        progress: Progress | None = None,
    ):
        self.store = store
        self.repo = repo
        self.config = config
        self.embedder = embedder
        self.rules = config.chunking_rules()
        self.progress = progress or (lambda stage, done, total: None)
        self.conn = store.conn
        self.vectors = vectors  # the backend's (see backends/), loaded before this run

    # the public step ----------------------------------------------------------------------

    def index_branch(self, branch: str, reparse: Iterable[str] = (), at: str | None = None) -> BranchSummary:
        """Bring `branch` to its tip (or to commit `at`); `reparse` names files to parse again
        even when their blob did not change (stale records, see stale.py)."""
        started = time.perf_counter()
        commit = at or self.repo.resolve_branch(branch)
        summary = BranchSummary(branch=branch, commit=commit)
        reparse = set(reparse)
        with self.store.transaction():
            repo_id = self.store.repo_id(self.repo.name, str(self.repo.path))
            existing = self.store.branch(repo_id, branch)
            if existing is not None and existing["commit_sha"] == commit:
                if not reparse:
                    summary.base = "up to date"
                    summary.seconds = time.perf_counter() - started
                    return summary
                summary.base = f"stale files re-parsed at {commit[:7]}"
                branch_id, changes = existing["id"], []
            else:
                branch_id, changes = self._start(repo_id, branch, commit, existing, summary)
            changes += self._reparse(commit, reparse - {c.path for c in changes})
            run = _Run(repo_id, branch_id, commit, summary)
            self._apply_changes(run, changes)
            self._embed_pending(run)
            self._finish(repo_id, run, started)
        self.vectors.add(run.new_rows)  # saved (FAISS) or published (Qdrant) by the caller, once
        return summary

    def _reparse(self, commit: str, paths: set[str]) -> list[FileChange]:
        """Changes that make `_apply_change` parse these files again as they are at `commit`."""
        changes = []
        for path in sorted(paths):
            blob = self.repo.blob_at(commit, path)
            changes.append(FileChange(path, blob, blob))
        return changes

    # choosing where to start --------------------------------------------------------------

    def _start(self, repo_id, branch, commit, existing, summary) -> tuple[int, list[FileChange]]:
        if existing is not None:
            old = existing["commit_sha"]
            if self.repo.has_commit(old):
                summary.base = f"incremental from {old[:7]}"
                return existing["id"], self.repo.changed_files(old, commit)
            summary.base = f"from the stored tree (indexed commit {old[:7]} no longer exists)"
            return existing["id"], self._changes_from_stored(existing["id"], commit, summary)
        branch_id = self.conn.execute(
            "INSERT INTO branches (repo_id, name, commit_sha, commit_time, indexed_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (repo_id, branch, commit, self._commit_time(commit), utc_now()),
        ).lastrowid
        base = self._closest_branch(repo_id, commit, exclude=branch_id)
        if base is not None:
            base_row, changes = base
            self.conn.execute(
                "INSERT INTO live SELECT ?, identity_id, version_row, blob, start_line, end_line "
                "FROM live WHERE branch_id = ?",
                (branch_id, base_row["id"]),
            )
            self.conn.execute(
                "INSERT INTO skipped_files SELECT ?, path, reason FROM skipped_files WHERE branch_id = ?",
                (branch_id, base_row["id"]),
            )
            self.store.mark_unpublished(self._live_rows(branch_id))
            summary.base = f"inherited from {base_row['name']}"
            return branch_id, changes
        summary.base = "full"
        listing = self.repo.list_tree(commit)
        for path, reason in listing.skipped.items():
            self._record_skip(branch_id, path, reason, summary)
        return branch_id, [FileChange(p, None, e.blob) for p, e in sorted(listing.files.items())]

    def _changes_from_stored(self, branch_id: int, commit: str, summary: BranchSummary) -> list[FileChange]:
        """The files of `commit` whose blob differs from the blob stored for the branch's live set.

        Used when the indexed commit was rewritten away and garbage-collected: the live set
        records every indexed file's blob, so the diff needs no old commit. Files that yielded
        no chunk are not recorded and are parsed again (their versions, if any, are reused).
        """
        stored = dict(self.conn.execute(
            "SELECT DISTINCT i.path, l.blob FROM live l JOIN identities i ON i.id = l.identity_id "
            "WHERE l.branch_id = ?", (branch_id,)))
        skipped = {row[0] for row in self.conn.execute(
            "SELECT path FROM skipped_files WHERE branch_id = ?", (branch_id,))}
        listing = self.repo.list_tree(commit)
        changes = [FileChange(path, stored.get(path), entry.blob) for path, entry in sorted(listing.files.items())
                   if stored.get(path) != entry.blob]
        gone = (set(stored) | skipped) - set(listing.files)
        changes += [FileChange(path, stored.get(path), None) for path in sorted(gone)]
        for path, reason in listing.skipped.items():
            self._record_skip(branch_id, path, reason, summary)
        return changes

    def _closest_branch(self, repo_id: int, commit: str, exclude: int):
        """The indexed branch whose commit needs the fewest changed files to reach `commit`."""
        best = None
        for row in self.store.branches(repo_id):
            if row["id"] == exclude:
                continue
            if row["commit_sha"] == commit:
                return row, []
            if self.repo.merge_base(row["commit_sha"], commit) is None:
                continue
            changes = self.repo.changed_files(row["commit_sha"], commit)
            if best is None or len(changes) < len(best[1]):
                best = (row, changes)
        return best

    # applying file changes ----------------------------------------------------------------

    def _apply_changes(self, run: _Run, changes: list[FileChange]) -> None:
        new_paths = [c.path for c in changes if c.new_blob]
        generated = self.repo.generated_paths(run.commit, new_paths) if new_paths else frozenset()
        for done, change in enumerate(changes, 1):
            self._apply_change(run, change, generated)
            self.progress("parse", done, len(changes))

    def _apply_change(self, run: _Run, change: FileChange, generated: frozenset[str]) -> None:
        repo_id = run.repo_id
        old = dict(
            self.conn.execute(
                "SELECT l.identity_id, l.version_row FROM live l JOIN identities i ON i.id = l.identity_id "
                "WHERE l.branch_id = ? AND i.repo_id = ? AND i.path = ?",
                (run.branch_id, repo_id, change.path),
            ).fetchall()
        )
        self.conn.execute(
            "DELETE FROM skipped_files WHERE branch_id = ? AND path = ?", (run.branch_id, change.path)
        )
        seen: set[int] = set()
        run.touched.update(old.values())
        if change.new_blob is not None:
            data = self.repo.read_blob(change.new_blob)
            file_chunks = chunk_file(
                self.repo.name, change.path, data, self.rules, generated_paths=generated
            )
            run.summary.files_parsed += 1
            run.summary.symbols_parsed += len(file_chunks.chunks)
            if file_chunks.skipped:
                self._record_skip(run.branch_id, change.path, file_chunks.skipped, run.summary)
            for chunk in file_chunks.chunks:
                identity_id = self._identity_row(repo_id, chunk)
                if identity_id in seen:
                    continue
                seen.add(identity_id)
                version_row = self._version_row(run, identity_id, chunk, change.new_blob)
                run.touched.add(version_row)
                self.conn.execute(
                    "INSERT INTO live VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (branch_id, identity_id) "
                    "DO UPDATE SET version_row = excluded.version_row, blob = excluded.blob, "
                    "start_line = excluded.start_line, end_line = excluded.end_line",
                    (run.branch_id, identity_id, version_row, change.new_blob, chunk.start_line, chunk.end_line),
                )
        for identity_id, version_row in old.items():
            if identity_id not in seen:
                self._tombstone(run, identity_id, version_row)

    def _identity_row(self, repo_id: int, chunk: Chunk) -> int:
        ident = chunk.identity
        key = (repo_id, ident.path, ident.language, ident.symbol_type, ident.qualified_name)
        row = self.conn.execute(
            "SELECT id FROM identities WHERE repo_id = ? AND path = ? AND language = ? "
            "AND symbol_type = ? AND qualified_name = ?",
            key,
        ).fetchone()
        if row:
            return row[0]
        return self.conn.execute(
            "INSERT INTO identities (repo_id, path, language, symbol_type, qualified_name) "
            "VALUES (?, ?, ?, ?, ?)",
            key,
        ).lastrowid

    def _version_row(self, run: _Run, identity_id: int, chunk: Chunk, blob: str) -> int:
        row = self.conn.execute(
            "SELECT id FROM versions WHERE version_id = ?", (chunk.version_id,)
        ).fetchone()
        if row:
            run.summary.reused += 1
            return row[0]
        embed_key = embedding_key(chunk.embedding_text)
        path_text = path_embedding_text(chunk.identity.path)
        path_key = embedding_key(path_text)
        for key, text in ((embed_key, chunk.embedding_text), (path_key, path_text)):
            if key not in run.pending and not self._has_embedding(key):
                run.pending[key] = text
        version_row = self.conn.execute(
            "INSERT INTO versions (version_id, identity_id, content_hash, text, signature, docstring, "
            "parent, embedding_text, embed_key, path_key, path_class, class_reason, first_branch, "
            "first_commit, blob, start_line, end_line, created_at, imports) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chunk.version_id, identity_id, chunk.content_hash, chunk.stored_text, chunk.signature,
                chunk.docstring, chunk.parent.qualified_name if chunk.parent else None,
                chunk.embedding_text, embed_key, path_key, chunk.path_class.value,
                chunk.class_reason, run.summary.branch, run.commit, blob, chunk.start_line,
                chunk.end_line, utc_now(),
                "\n".join(used_imports(chunk.imports, chunk.text, chunk.identity.language)),
            ),
        ).lastrowid
        self.conn.execute(
            "INSERT INTO lexical (rowid, symbol, name, signature, docstring, code, path) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (version_row, *fts_columns(chunk.identity.qualified_name, chunk.signature,
                                       chunk.docstring, chunk.text, chunk.identity.path)),
        )
        run.new_rows.append(version_row)
        run.summary.versions_added += 1
        return version_row

    def _has_embedding(self, key: str) -> bool:
        return (
            self.conn.execute(
                "SELECT 1 FROM embeddings WHERE model = ? AND key = ?", (self.embedder.name, key)
            ).fetchone()
            is not None
        )

    def _tombstone(self, run: _Run, identity_id: int, version_row: int) -> None:
        previous = self.conn.execute(
            "SELECT b.commit_sha, l.blob, l.start_line, l.end_line FROM live l "
            "JOIN branches b ON b.id = l.branch_id WHERE l.branch_id = ? AND l.identity_id = ?",
            (run.branch_id, identity_id),
        ).fetchone()
        last_commit, blob, start, end = previous
        self.conn.execute(
            "INSERT INTO tombstones (branch_id, identity_id, version_row, commit_sha, last_commit, "
            "blob, start_line, end_line, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run.branch_id, identity_id, version_row, run.commit, last_commit, blob, start, end, utc_now()),
        )
        self.conn.execute(
            "DELETE FROM live WHERE branch_id = ? AND identity_id = ?", (run.branch_id, identity_id)
        )
        run.summary.tombstoned += 1

    def _record_skip(self, branch_id: int, path: str, reason: str, summary: BranchSummary) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO skipped_files VALUES (?, ?, ?)", (branch_id, path, reason)
        )
        summary.skipped_files += 1

    # embedding and finishing --------------------------------------------------------------

    def _embed_pending(self, run: _Run) -> None:
        run.summary.embedded = len(run.pending)
        run.summary.embed_seconds += embed_and_store(self.conn, self.embedder, run.pending, self.progress)

    def refresh_embeddings(self) -> int:
        """Embed every stored text that this model identity has not embedded yet.

        Runs when the index's recorded identity differs from the embedder's (a new model or
        runtime), so that every version has a vector of the identity the searches will use;
        returns how many texts were embedded (0 when the identity is unchanged).
        """
        if self.store.meta("embedding_model") == self.embedder.name:
            return 0
        with self.store.transaction():
            missing = "NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.key = {})"
            pending = dict(self.conn.execute(
                f"SELECT DISTINCT embed_key, embedding_text FROM versions v WHERE {missing.format('v.embed_key')}",
                (self.embedder.name,)))
            for key, path in self.conn.execute(
                "SELECT DISTINCT v.path_key, i.path FROM versions v JOIN identities i ON i.id = v.identity_id "
                f"WHERE {missing.format('v.path_key')}", (self.embedder.name,)):
                pending.setdefault(key, path_embedding_text(path))
            embed_and_store(self.conn, self.embedder, pending, self.progress)
            if pending:
                self.store.set_meta("generation", str(self.store.generation() + 1))
                self.store.mark_unpublished(
                    [r[0] for r in self.conn.execute("SELECT id FROM versions")], point=True)
            self.store.set_meta("embedding_model", self.embedder.name)
        return len(pending)

    def _finish(self, repo_id: int, run: _Run, started: float) -> None:
        now = utc_now()
        self.conn.execute(
            "UPDATE branches SET commit_sha = ?, commit_time = ?, indexed_at = ? WHERE id = ?",
            (run.commit, self._commit_time(run.commit), now, run.branch_id),
        )
        self.store.set_meta("generation", str(self.store.generation() + 1))
        self.store.mark_unpublished(run.touched)
        self.store.mark_unpublished(run.new_rows, point=True)
        run.summary.seconds = time.perf_counter() - started
        self.conn.execute(
            "INSERT INTO runs (repo_id, branch, commit_sha, started, finished, summary) VALUES (?, ?, ?, ?, ?, ?)",
            (repo_id, run.summary.branch, run.commit, now, utc_now(), json.dumps(run.summary.to_json())),
        )

    def _live_rows(self, branch_id: int) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT version_row FROM live WHERE branch_id = ?", (branch_id,))]

    def _commit_time(self, commit: str) -> str:
        return self.repo.commit_time(commit).isoformat(timespec="seconds")

    # maintenance --------------------------------------------------------------------------

    def prune_branches(self) -> list[str]:
        """Forget indexed branches that no longer exist in the repository."""
        existing = set(self.repo.branches())
        with self.store.transaction():
            repo_id = self.store.repo_id(self.repo.name, str(self.repo.path))
            gone = [row for row in self.store.branches(repo_id) if row["name"] not in existing]
            for row in gone:
                self.store.mark_unpublished(self._live_rows(row["id"]))
                for table in ("live", "skipped_files", "tombstones"):
                    self.conn.execute(f"DELETE FROM {table} WHERE branch_id = ?", (row["id"],))
                self.conn.execute("DELETE FROM branches WHERE id = ?", (row["id"],))
        return [row["name"] for row in gone]

    def collect_garbage(self, retention_days: float | None = None) -> int:
        """Remove versions no live set uses once their retention has passed, with their vectors."""
        days = self.config.retention_days if retention_days is None else retention_days
        cutoff = (datetime.now(timezone.utc) - timedelta(days=days)).isoformat(timespec="seconds")
        with self.store.transaction():
            doomed = [
                row[0]
                for row in self.conn.execute(
                    "SELECT v.id FROM versions v WHERE NOT EXISTS (SELECT 1 FROM live l WHERE l.version_row = v.id) "
                    "AND v.created_at <= ? AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.version_row = v.id AND t.at > ?)",
                    (cutoff, cutoff),
                )
            ]
            self.store.mark_unpublished(doomed, point=True)
            for start in range(0, len(doomed), 900):
                chunk = doomed[start : start + 900]
                marks = ",".join("?" * len(chunk))
                for table, column in (("tombstones", "version_row"), ("lexical", "rowid"), ("versions", "id")):
                    self.conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
            self.conn.execute(
                "DELETE FROM embeddings WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.embed_key = embeddings.key "
                "OR v.path_key = embeddings.key)"
            )
            if doomed:
                self.store.set_meta("generation", str(self.store.generation() + 1))
        self.vectors.remove(doomed)
        return len(doomed)
