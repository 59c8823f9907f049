"""Cut again, once, what an older chunker cut another way: part of a recipe migration.

The chunker of recipe `sections-1` cuts Markdown and reST pages into sections and folds overload
stubs into their implementation, so an older index holds identities today's chunker no longer
makes (`docs/options.md` as one `file` chunk; `prompt`, `prompt#2` as stubs and `prompt#3` as
the implementation) and misses the ones it makes. An index run that finds an older recipe calls
`rechunk` inside its migration transaction, before texts are re-derived:

1. every stored version is checked against today's chunks of the blob it came from; one whose
   identity is not cut any more, or is cut with other content, is *obsolete*;
2. each obsolete version's *successors* are today's chunks of that blob that took its place: the
   chunk of the same identity, else the innermost chunk holding its lines (a stub inside its
   folded implementation), else the chunks inside its lines (a page's sections);
3. labels of an obsolete version move to its successors' versions, pins of a replaced identity
   to its successors' identities, on the same branch;
4. each branch re-parses the files with obsolete live entries, at its indexed commit (a replaced
   identity leaves the live set with a tombstone, as in any index run; step 5 settles it), the
   files in which today's chunker cuts a symbol the live set lacks (recipe `macros-1`: a Rust
   macro beside chunks that did not change), and the files of its indexed tree an older chunker
   cut into nothing that today's cuts into chunks (recipe `modules-1`: a file of imports only, a
   Ruby module of autoloads);
5. a tombstone of an obsolete version becomes tombstones of its successors that the branch does
   not have live: none for a re-cut identity (its code was not deleted), the page's sections
   for a page deleted on that branch;
6. obsolete versions nothing refers to any more are removed.

The branches do not move and no label or pin is lost: a label or pin whose version or identity
has no successor (its blob is gone from git) stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from branchwise.backends.backend import NoVectors
from branchwise.chunking import chunk_file, language_for_path
from branchwise.config import Config
from branchwise.embedding import Embedder
from branchwise.git.repo import FileChange, GitRepo
from branchwise.index.indexer import Indexer, embed_and_store
from branchwise.models import Chunk
from branchwise.store import Store, VersionRecord


@dataclass
class Rechunked:
    """What a re-chunking did, for the migration's message."""

    files: int = 0  # (branch, file) pairs parsed again
    obsolete: int = 0  # versions an older chunker cut
    removed: int = 0
    labels: int = 0
    pins: int = 0
    added_rows: list[int] = field(default_factory=list)


class _Chunks:
    """Today's chunks of one (blob, path), cut once."""

    def __init__(self, repo: GitRepo, config: Config):
        self.repo, self.rules = repo, config.chunking_rules()
        self.cache: dict[tuple[str, str], list[Chunk] | None] = {}
        self.named: dict[tuple[str, str], dict[tuple[str, str], Chunk]] = {}

    def of(self, blob: str | None, path: str) -> list[Chunk] | None:
        """None when the blob is gone from git (nothing to compare with)."""
        if blob is None:
            return None
        if (blob, path) not in self.cache:
            try:
                data = self.repo.read_blob(blob)
            except (ValueError, OSError, KeyError):  # gitpython raises these for a missing object
                self.cache[(blob, path)] = None
            else:
                self.cache[(blob, path)] = chunk_file(self.repo.name, path, data, self.rules).chunks
        return self.cache[(blob, path)]

    def named_in(self, blob: str | None, path: str) -> dict[tuple[str, str], Chunk] | None:
        """Today's chunks of (blob, path) by (symbol type, qualified name)."""
        today = self.of(blob, path)
        if today is None or blob is None:
            return None
        if (blob, path) not in self.named:
            self.named[(blob, path)] = {(c.identity.symbol_type, c.identity.qualified_name): c for c in today}
        return self.named[(blob, path)]


def rechunk(store: Store, repo: GitRepo, config: Config, embedder: Embedder,
            chunks: _Chunks | None = None) -> Rechunked:
    """Bring every branch's live set, tombstones, labels and pins to today's chunker (see above)."""
    chunks = chunks or _Chunks(repo, config)
    done = Rechunked()
    obsolete = [v for v in store.every_version() if _is_obsolete(chunks, v.blob, v.path, v.symbol_type,
                                                                   v.qualified_name, v.content_hash)]
    done.obsolete = len(obsolete)
    repo_id = store.repo_id(repo.name)
    branches = store.branches(repo_id) if repo_id is not None else []
    to_cut = {branch.id: _files_to_cut(store, repo, chunks, branch) for branch in branches}
    if not obsolete and not any(to_cut.values()):
        return done
    _move_labels(store, repo.name, chunks, obsolete, done)
    _move_pins(store, repo.name, chunks, branches, done)
    indexer = Indexer(store, repo, config, embedder, NoVectors())
    pending: dict[str, str] = {}
    runs = {}
    for branch in branches:
        paths = sorted(to_cut[branch.id])
        run = indexer.rechunk_files(branch, [FileChange(path, blob, blob) for path, blob in paths])
        runs[branch.id] = run
        done.files += len(paths)
    obsolete_rows = [v.row for v in obsolete]
    for tombstone_id, branch_id, path, _version_row, blob, start, end in store.tombstones_of(obsolete_rows):
        successors = _successors(chunks.of(blob, path), None, start, end)
        if successors is None or branch_id not in runs:
            continue
        live = store.live_identities(branch_id)
        kept = []
        for chunk in successors:
            if store.identity_row(repo_id or 0, chunk.identity.path, chunk.identity.language,
                                  chunk.identity.symbol_type, chunk.identity.qualified_name) in live:
                continue  # the branch has this code live: the old chunk's deletion was only a re-cut
            identity_id, version_row = indexer.stored_version(runs[branch_id], chunk, blob or "")
            kept.append((identity_id, version_row, chunk.start_line, chunk.end_line))
        store.replace_tombstone(tombstone_id, kept)
    for run in runs.values():
        pending.update(run.pending)
        done.added_rows += run.new_rows
    embed_and_store(store, embedder, pending, lambda stage, n, total: None, stage="re-embed")
    doomed = store.unreferenced(obsolete_rows)
    store.mark_unpublished(doomed, point=True)  # a shared vector backend drops their points
    store.delete_versions(doomed)
    done.removed = len(doomed)
    return done


def _files_to_cut(store: Store, repo: GitRepo, chunks: _Chunks, branch) -> set[tuple[str, str]]:
    """(path, blob) of the branch's files to parse again: those with an obsolete live entry, those
    in which today's chunker cuts a symbol the live set lacks (a kind an older chunker did not
    know, next to chunks that did not change: recipe `macros-1`'s Rust macros), and `_gained`."""
    held: dict[tuple[str, str], set[tuple[str, str]]] = {}
    stale = set()
    for entry in store.live_file_entries(branch.id):
        held.setdefault((entry[1], entry[7]), set()).add((entry[3], entry[4]))
        if _is_obsolete(chunks, entry[7], entry[1], entry[3], entry[4], entry[6]):
            stale.add((entry[1], entry[7]))
    grown = {(path, blob) for (path, blob), names in held.items()
             if (today := chunks.named_in(blob, path)) is not None and not today.keys() <= names}
    return stale | grown | _gained(store, repo, chunks, branch)


def _gained(store: Store, repo: GitRepo, chunks: _Chunks, branch) -> set[tuple[str, str]]:
    """(path, blob) of the files of the branch's indexed tree that hold nothing in its live set
    and were not left out, which today's chunker cuts into chunks."""
    held = store.live_file_blobs(branch.id)
    left_out = {path for path, _reason in store.skipped_files(branch.id)}
    return {(path, entry.blob) for path, entry in repo.list_tree(branch.commit_sha).files.items()
            if path not in held and path not in left_out and language_for_path(path)
            and chunks.of(entry.blob, path)}


def _is_obsolete(chunks: _Chunks, blob: str | None, path: str, symbol_type: str, qualified_name: str,
                 content_hash: str) -> bool:
    today = chunks.named_in(blob, path)
    if today is None:
        return False
    same = today.get((symbol_type, qualified_name))
    return same is None or not same.has_hash(content_hash)


def _successors(today: list[Chunk] | None, identity: tuple[str, str] | None, start: int, end: int) -> list[Chunk] | None:
    """The chunks of `today` that took the place of lines `start..end` (see the module doc)."""
    if today is None:
        return None
    if identity is not None:
        same = [c for c in today if (c.identity.symbol_type, c.identity.qualified_name) == identity]
        if same:
            return same
    holding = [c for c in today if c.start_line <= start and end <= c.end_line]
    if holding:
        return [min(holding, key=lambda c: c.end_line - c.start_line)]
    inside = [c for c in today if start <= c.start_line and c.end_line <= end]
    if inside:
        return inside
    return [c for c in today if c.start_line <= end and start <= c.end_line]


def _move_labels(store: Store, repository: str, chunks: _Chunks, obsolete: list[VersionRecord],
                 done: Rechunked) -> None:
    labelled = store.labelled_versions(repository)
    for version in obsolete:
        if version.version_id not in labelled:
            continue
        successors = _successors(chunks.of(version.blob, version.path),
                                 (version.symbol_type, version.qualified_name), version.start_line, version.end_line)
        if not successors:
            continue
        store.move_label(repository, version.version_id, [
            (c.version_id, c.identity.path, c.identity.language, c.identity.symbol_type, c.identity.qualified_name,
             c.content_hash) for c in successors])
        done.labels += 1


def _move_pins(store: Store, repository: str, chunks: _Chunks, branches: list, done: Rechunked) -> None:
    """A pin of an identity today's chunker does not cut in the branch's file follows its successors."""
    by_name = {branch.name: branch for branch in branches}
    entries: dict[int, dict[tuple, tuple]] = {}
    for pin in store.pins_of(repository):
        branch = by_name.get(pin[1])
        if branch is None:
            continue
        identity = tuple(pin[2:6])
        if branch.id not in entries:
            entries[branch.id] = {tuple(e[1:5]): e for e in store.live_file_entries(branch.id)}
        entry = entries[branch.id].get(identity)
        if entry is None:
            continue
        today = chunks.of(entry[7], entry[1])
        if today is None or any((c.identity.symbol_type, c.identity.qualified_name) == identity[2:] for c in today):
            continue
        successors = _successors(today, None, entry[8], entry[9])
        if successors:
            store.move_pin(repository, branch.name, identity, [
                (c.identity.path, c.identity.language, c.identity.symbol_type, c.identity.qualified_name)
                for c in successors])
            done.pins += 1
