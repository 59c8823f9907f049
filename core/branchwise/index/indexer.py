"""Incremental, branch-aware indexing: from a commit to a branch's live set.

A branch already indexed at C0 is brought to C by the tree diff C0..C (so rebases and
force-pushes work). A new branch starts from the indexed branch whose commit is the
smallest diff away and copies its live set (inheritance); only then is the whole tree
parsed, when no branch is indexed yet. Changed files are re-chunked; a version seen before
on any branch is reused; only embedding texts never embedded with this model are embedded;
identities that disappear get a tombstone. Each branch lands in one SQLite transaction,
searchable through its lexical and name channels from then on; its new texts are embedded
afterwards, by the embedding stage (embedstage.py), in the foreground or in the background.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone

from branchwise.git.command import GitFailed

from branchwise.backends.backend import VectorStore
from branchwise.chunking import path_embedding_text
from branchwise.config import Config
from branchwise.embedding import Embedder
from branchwise.git.names import name_from_git
from branchwise.git.repo import FileChange, GitRepo
from branchwise.index.leftout import LeftOut
from branchwise.index.parsing import ParsedFile, chunk_extras, embedding_key, parse_files  # noqa: F401 (recipe.py reads embedding_key here)
from branchwise.models import Chunk
from branchwise.store import BranchRecord, Store, utc_now

Progress = Callable[[str, int, int], None]  # (stage, done, total); "branch:NAME" starts a branch (position, count)
#: texts handed to the embedder per call (progress is reported after each)
EMBED_BATCH = 512
#: files to parse from which a run prepares the store for a bulk load
BULK_FILES = 200


@dataclass
class BranchSummary:
    """The per-branch object of `index --json` (field names are a contract)."""

    branch: str
    commit: str
    files_parsed: int = 0
    #: files the run went through (the progress display's count): parsed, removed or left out
    files_changed: int = 0
    files_removed: int = 0  # deleted since the commit the branch was brought from
    versions_added: int = 0
    embedded: int = 0
    reused: int = 0
    tombstoned: int = 0
    seconds: float = 0.0
    base: str | None = None  # "incremental from <commit>", "inherited from <branch>" or "full"
    skipped_files: int = 0
    symbols_parsed: int = 0  # symbols cut from the files parsed in this run
    embed_seconds: float = 0.0  # time spent inside the embedder
    #: files skipped because their blob is missing from the object store (partial clones)
    unreadable_files: list[str] = field(default_factory=list)
    #: the ref the branch was taken from: "refs/heads/NAME", or "refs/remotes/origin/NAME"
    #: when no local branch has the name (gitbranches.py)
    ref: str | None = None
    #: files this run left out, by reason ("vendored", "ignored"; see leftout.py)
    left_out: dict[str, int] = field(default_factory=dict)

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
    #: static vectors of the file's new versions that came with it (parsing.py), stored with them
    ahead: dict[str, bytes] = field(default_factory=dict)


@dataclass
class _KnownRows:
    """A file's identities, versions and embeddings already stored (see `_known_in_file`)."""

    identities: dict[tuple[str, str, str], int]
    versions: dict[str, int]
    embedded: set[str]


def embed_and_store(store: Store, embedder: Embedder, pending: dict[str, str], progress: Progress,
                    stage: str = "embed") -> float:
    """Embed texts (embedding key -> text) in batches into the embedding cache; returns the
    seconds spent inside the embedder."""
    items = list(pending.items())
    spent = 0.0
    for start in range(0, len(items), EMBED_BATCH):
        batch = items[start : start + EMBED_BATCH]
        began = time.perf_counter()
        vectors = embedder.embed([text for _key, text in batch])
        spent += time.perf_counter() - began
        store.add_embeddings(
            embedder.name, [(key, vec.astype("float32").tobytes()) for (key, _), vec in zip(batch, vectors)])
        progress(stage, min(start + EMBED_BATCH, len(items)), len(items))
    return spent


def refresh_embeddings(store: Store, embedder: Embedder, progress: Progress | None = None) -> int:
    """Embed every stored text that this model identity has not embedded yet.

    Runs when the index's recorded identity differs from the embedder's (a new model or
    runtime), so that every version has a vector of the identity the searches will use;
    returns how many texts were embedded (0 when the identity is unchanged). Each batch
    commits on its own, so an interrupted refresh resumes where it stopped; the recorded
    identity changes only once every text is embedded.
    """
    if store.meta("embedding_model") == embedder.name:
        return 0
    pending = store.unembedded_texts(embedder.name)
    for key, path in store.unembedded_paths(embedder.name):
        pending.setdefault(key, path_embedding_text(path))
    items = list(pending.items())
    report = progress or (lambda stage, done, total: None)
    for start in range(0, len(items), EMBED_BATCH):
        with store.transaction():
            embed_and_store(store, embedder, dict(items[start : start + EMBED_BATCH]),
                            lambda stage, done, total: report(stage, start + done, len(items)))
    with store.transaction():
        if pending:
            store.bump_generation()
            store.mark_unpublished(store.all_version_rows(), point=True)
        store.set_meta("embedding_model", embedder.name)
    return len(pending)


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
        ahead_model: str | None = None,
    ):
        self.store = store
        self.repo = repo
        self.config = config
        self.embedder = embedder
        #: the static model whose vectors parse workers compute with the files (parsing.py)
        self.ahead_model = ahead_model
        self.ahead_embedded = 0  # texts whose static vectors came with their files
        self.rules = config.chunking_rules()
        self.progress = progress or (lambda stage, done, total: None)
        self.vectors = vectors  # the backend's (see backends/), loaded before this run
        self._left_out_at: dict[str, LeftOut] = {}

    # the public step ----------------------------------------------------------------------

    def index_branch(self, branch: str, reparse: Iterable[str] = (), at: str | None = None) -> BranchSummary:
        """Bring `branch` to its tip (or to commit `at`); `reparse` names files to parse again
        even when their blob did not change (stale records, see stale.py)."""
        started = time.perf_counter()
        source = self.repo.branch_refs().get(branch)
        commit = at or self.repo.resolve_branch(branch)
        summary = BranchSummary(branch=branch, commit=commit, ref=source.ref if source else None)
        reparse = set(reparse)
        with self.store.transaction():
            repo_id = self.store.add_repository(self.repo.name, name_from_git(str(self.repo.path)))
            existing = self.store.branch(repo_id, branch)
            if existing is not None and source is not None and existing.ref != source.ref:
                self.store.set_branch_ref(existing.id, source.ref)
            if existing is not None and existing.commit_sha == commit:
                reparse |= self._left_out(commit).revisit(self.store, existing.id)
                if not reparse:
                    summary.base = "up to date"
                    summary.seconds = time.perf_counter() - started
                    return summary
                summary.base = f"stale files re-parsed at {commit[:7]}"
                branch_id, changes = existing.id, list[FileChange]()
            else:
                try:
                    branch_id, changes = self._start(repo_id, branch, commit, existing, summary)
                except GitFailed as error:  # a tree missing from the object store
                    raise self.repo.unreadable_tree(commit, error) from None
                # an inherited or older live set, stored under other rules (ignore files, attributes)
                reparse |= self._left_out(commit).revisit(self.store, branch_id)
            changes += self._reparse(commit, reparse - {c.path for c in changes})
            run = _Run(repo_id, branch_id, commit, summary)
            self._apply_changes(run, changes)
            self._finish(repo_id, run, started)
        # new versions whose texts were embedded before; the others get their vectors in the
        # embedding stage (embedstage.py). Saved (FAISS) or published (Qdrant) by the caller.
        self.vectors.add(run.new_rows)
        return summary

    def _reparse(self, commit: str, paths: set[str]) -> list[FileChange]:
        """Changes that make `_apply_change` parse these files again as they are at `commit`."""
        changes = []
        for path in sorted(paths):
            blob = self.repo.blob_at(commit, path)
            changes.append(FileChange(path, blob, blob))
        return changes

    def rechunk_files(self, branch: BranchRecord, changes: list[FileChange]) -> _Run:
        """Cut these files of an indexed branch again with today's chunker, inside the caller's
        transaction and without moving the branch: a recipe migration (rechunk.py). Returns
        the run: the caller embeds its `pending` texts; the versions it added (`new_rows`) get
        their vectors with the rebuild the migration asks for."""
        run = _Run(branch.repo_id, branch.id, branch.commit_sha, BranchSummary(branch.name, branch.commit_sha))
        self._apply_changes(run, changes)
        return run

    def stored_version(self, run: _Run, chunk: Chunk, blob: str) -> tuple[int, int]:
        """(identity row, version row) of `chunk`, the version added when new (a re-chunking)."""
        identity_id = self._identity_row(run.repo_id, chunk)
        return identity_id, self._version_row(run, identity_id, chunk, blob)

    # choosing where to start --------------------------------------------------------------

    def _start(self, repo_id, branch, commit, existing, summary) -> tuple[int, list[FileChange]]:
        if existing is not None:
            old = existing.commit_sha
            if self.repo.has_commit(old):
                summary.base = f"incremental from {old[:7]}"
                return existing.id, self.repo.changed_files(old, commit)
            summary.base = f"from the stored tree (indexed commit {old[:7]} no longer exists)"
            return existing.id, self._changes_from_stored(existing.id, commit, summary)
        branch_id = self.store.add_branch(repo_id, branch, commit, self._commit_time(commit), utc_now())
        if summary.ref:
            self.store.set_branch_ref(branch_id, summary.ref)
        base = self._closest_branch(repo_id, commit, exclude=branch_id)
        if base is not None:
            base_row, changes = base
            self.store.inherit(branch_id, base_row.id)
            self.store.mark_unpublished(self.store.live_rows(branch_id))
            summary.base = f"inherited from {base_row.name}"
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
        stored = self.store.live_file_blobs(branch_id)
        skipped = {path for path, _reason in self.store.skipped_files(branch_id)}
        listing = self.repo.list_tree(commit)
        changes = [FileChange(path, stored.get(path), entry.blob) for path, entry in sorted(listing.files.items())
                   if stored.get(path) != entry.blob]
        gone = (set(stored) | skipped) - set(listing.files)
        changes += [FileChange(path, stored.get(path), None) for path in sorted(gone)]
        for path, reason in listing.skipped.items():
            self._record_skip(branch_id, path, reason, summary)
        return changes

    def _closest_branch(self, repo_id: int, commit: str, exclude: int) -> tuple[BranchRecord, list[FileChange]] | None:
        """The indexed branch whose commit needs the fewest changed files to reach `commit`."""
        best: tuple[BranchRecord, list[FileChange]] | None = None
        for row in self.store.branches(repo_id):
            if row.id == exclude:
                continue
            if row.commit_sha == commit:
                return row, []
            if self.repo.merge_base(row.commit_sha, commit) is None:
                continue
            changes = self.repo.changed_files(row.commit_sha, commit)
            if best is None or len(changes) < len(best[1]):
                best = (row, changes)
        return best

    # applying file changes ----------------------------------------------------------------

    def _apply_changes(self, run: _Run, changes: list[FileChange]) -> None:
        left_out = self._left_out(run.commit)
        changes, reasons = left_out.apply(changes)
        new_paths = [c.path for c in changes if c.new_blob]
        if len(new_paths) >= BULK_FILES:
            self.store.prepare_bulk_writes()
        parsed = parse_files(self.repo, [(c.path, c.new_blob) for c in changes if c.new_blob],
                             self.rules, left_out.marks(new_paths), self.ahead_model)
        run.summary.files_changed += len(changes)
        run.summary.files_removed += sum(1 for c in changes if not c.new_blob and c.path not in reasons)
        try:
            for done, change in enumerate(changes, 1):
                self._apply_change(run, change, next(parsed) if change.new_blob else None)
                self.progress("parse", done, len(changes))
        finally:
            parsed.close()  # stops the workers and git if a change failed
        for path, reason in reasons.items():  # after the changes: a removal forgets a file's skip
            self._record_skip(run.branch_id, path, reason, run.summary)
            kind = reason.split(":", 1)[0]
            run.summary.left_out[kind] = run.summary.left_out.get(kind, 0) + 1

    def _left_out(self, commit: str) -> LeftOut:
        """The ignore files, attributes and settings that decide which files of `commit` are
        left out (read once per commit)."""
        if commit not in self._left_out_at:
            self._left_out_at[commit] = LeftOut.at(self.repo, commit, self.rules, self.config.user_ignore)
        return self._left_out_at[commit]

    def _apply_change(self, run: _Run, change: FileChange, parsed: ParsedFile | None) -> None:
        repo_id = run.repo_id
        old = self.store.live_in_file(run.branch_id, repo_id, change.path)
        self.store.forget_skip(run.branch_id, change.path)
        seen: set[int] = set()
        run.touched.update(old.values())
        if parsed is not None:
            file_chunks = parsed.chunks
            run.summary.files_parsed += not parsed.unreadable
            run.summary.symbols_parsed += len(file_chunks.chunks)
            if file_chunks.skipped:
                self._record_skip(run.branch_id, change.path, file_chunks.skipped, run.summary)
            if parsed.unreadable:
                run.summary.unreadable_files.append(change.path)
            known = self._known_in_file(repo_id, parsed)
            for position, chunk in enumerate(file_chunks.chunks):
                identity_id = self._identity_in_file(repo_id, chunk, known)
                if identity_id in seen:
                    continue
                seen.add(identity_id)
                version_row = self._version_row(run, identity_id, chunk, parsed.blob, parsed, position, known)
                run.touched.add(version_row)
                self.store.set_live(run.branch_id, identity_id, version_row, parsed.blob,
                                    chunk.start_line, chunk.end_line)
            if run.ahead:
                self._store_ahead(run)
        for identity_id, version_row in old.items():
            if identity_id not in seen:
                self._tombstone(run, identity_id, version_row)

    def _store_ahead(self, run: _Run) -> None:
        """The static vectors a worker computed with a file, cached with its new versions: the
        static stage finds them there, and so does the vector store when the branch lands."""
        assert self.ahead_model is not None
        added = self.store.add_embeddings(self.ahead_model, list(run.ahead.items()))
        run.ahead.clear()
        self.ahead_embedded += added
        if self.ahead_model == self.embedder.name:  # the static model is the only dense stage
            run.summary.embedded += added

    def _known_in_file(self, repo_id: int, parsed: ParsedFile) -> _KnownRows:
        """What the store already has of one file's chunks, read in three queries rather than
        a few per chunk."""
        return _KnownRows(self.store.identities_in_file(repo_id, parsed.path),
                          self.store.version_rows([chunk.version_id for chunk in parsed.chunks.chunks]),
                          self.store.embedded_keys(self.embedder.name, sorted(parsed.embedding_keys())))

    def _identity_in_file(self, repo_id: int, chunk: Chunk, known: _KnownRows) -> int:
        ident = chunk.identity
        key = (ident.language, ident.symbol_type, ident.qualified_name)
        row = known.identities.get(key)
        if row is None:
            row = known.identities[key] = self.store.add_identity(repo_id, ident.path, *key)
        return row

    def _identity_row(self, repo_id: int, chunk: Chunk) -> int:
        ident = chunk.identity
        return self.store.identity_row(repo_id, ident.path, ident.language, ident.symbol_type, ident.qualified_name)

    def _version_row(self, run: _Run, identity_id: int, chunk: Chunk, blob: str,
                     parsed: ParsedFile | None = None, position: int = 0, known: _KnownRows | None = None) -> int:
        stored = known.versions.get(chunk.version_id) if known else self.store.version_row(chunk.version_id)
        if stored is not None:
            run.summary.reused += 1
            return stored
        extras = parsed.extras_of(position) if parsed is not None else chunk_extras(chunk)
        embed_key, path_key = extras.embed_key, extras.path_key
        ahead = parsed.vectors if parsed is not None and self.ahead_model is not None else {}
        for key, text in ((embed_key, chunk.embedding_text), (path_key, None)):
            if key in ahead:
                run.ahead[key] = ahead[key]
                if self.ahead_model == self.embedder.name:
                    continue  # the only dense stage's vector came with the file
            embedded = key in known.embedded if known else self._has_embedding(key)
            if key not in run.pending and not embedded:
                run.pending[key] = text if text is not None else path_embedding_text(chunk.identity.path)
        version_row = self.store.add_version(
            {
                "version_id": chunk.version_id, "identity_id": identity_id, "content_hash": chunk.content_hash,
                "text": chunk.stored_text, "signature": chunk.signature, "docstring": chunk.docstring,
                "parent": chunk.parent.qualified_name if chunk.parent else None,
                "embedding_text": chunk.embedding_text, "embed_key": embed_key, "path_key": path_key,
                "path_class": chunk.path_class.value, "class_reason": chunk.class_reason,
                "first_branch": run.summary.branch, "first_commit": run.commit, "blob": blob,
                "start_line": chunk.start_line, "end_line": chunk.end_line, "created_at": utc_now(),
                "imports": extras.imports,
            },
            extras.lexical,
        )
        run.new_rows.append(version_row)
        run.summary.versions_added += 1
        return version_row

    def _has_embedding(self, key: str) -> bool:
        return self.store.has_embedding(self.embedder.name, key)

    def _tombstone(self, run: _Run, identity_id: int, version_row: int) -> None:
        self.store.tombstone(run.branch_id, identity_id, version_row, run.commit, utc_now())
        run.summary.tombstoned += 1

    def _record_skip(self, branch_id: int, path: str, reason: str, summary: BranchSummary) -> None:
        self.store.record_skip(branch_id, path, reason)
        summary.skipped_files += 1

    # finishing ----------------------------------------------------------------------------

    def _finish(self, repo_id: int, run: _Run, started: float) -> None:
        now = utc_now()
        self.store.set_branch_commit(run.branch_id, run.commit, self._commit_time(run.commit), now)
        self.store.bump_generation()
        self.store.mark_unpublished(run.touched)
        self.store.mark_unpublished(run.new_rows, point=True)
        run.summary.seconds = time.perf_counter() - started
        self.store.record_run(repo_id, run.summary.branch, run.commit, now, utc_now(),
                              json.dumps(run.summary.to_json()))

    def _commit_time(self, commit: str) -> str:
        return self.repo.commit_time(commit).isoformat(timespec="seconds")

    # maintenance --------------------------------------------------------------------------

    def prune_branches(self) -> list[str]:
        """Forget indexed branches that no longer exist in the repository."""
        existing = set(self.repo.branches())
        with self.store.transaction():
            repo_id = self.store.add_repository(self.repo.name, name_from_git(str(self.repo.path)))
            gone = [row for row in self.store.branches(repo_id) if row.name not in existing]
            for row in gone:
                self.store.mark_unpublished(self.store.live_rows(row.id))
                self.store.delete_branch(row.id)
        return [row.name for row in gone]

    def collect_garbage(self, retention_days: float | None = None) -> int:
        """Remove versions no live set uses once their retention has passed, with their vectors."""
        days = self.config.retention_days if retention_days is None else retention_days
        cutoff = (datetime.now(timezone.utc) - timedelta(days=days)).isoformat(timespec="seconds")
        with self.store.transaction():
            doomed = self.store.unused_versions(cutoff)
            self.store.mark_unpublished(doomed, point=True)
            self.store.delete_versions(doomed)
            if doomed:
                self.store.bump_generation()
        self.vectors.remove(doomed)
        return len(doomed)
