"""The embedding recipe in force, and the one-time migration when it changes.

A version's vector comes from two things that change independently: the model (its name
keys the embedding cache, so another model simply misses the cache) and the recipe, the
way a symbol becomes the text the model reads plus the share of the path vector mixed in.
The recipe is recorded in the index. An index run that finds another recipe there derives
every stored version's text again (by re-chunking the file it came from, so containers get
their outline), embeds only texts not cached yet, and has the vectors rebuilt; it says so,
because on a large index that takes a while. A change of path weight alone re-embeds nothing. A change of model identity (ModelChange)
is the same one-time step for the vectors alone: the indexer embeds every stored text
again with the new model, and the run says so.

Re-deriving also re-keys what an older chunker keyed another way: a container stored under the
hash of all its lines (methods included) gets its outline key and keeps its skeleton, and the
versions of one container that differed only in member bodies become one version. And since
recipe `sections-1` (prose cut into sections, overload stubs folded into their implementation),
what an older chunker cut into other identities is cut again first, labels and pins following
(rechunk.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from branchwise.chunking import chunk_file, embedding_text, path_embedding_text
from branchwise.config import Config
from branchwise.embedding import Embedder
from branchwise.git.repo import GitRepo
from branchwise.index.indexer import embed_and_store, embedding_key
from branchwise.index.rechunk import Rechunked, rechunk
from branchwise.models import Chunk
from branchwise.store import Store, VersionRecord

META_KEY = "embedding_recipe"
#: the recipe of indexes written before recipes were recorded
LEGACY_TEXT_RECIPE = "outline-1"


def recipe_id(path_weight: float, text_recipe: str | None = None) -> str:
    return f"{text_recipe or embedding_text.TEXT_RECIPE}; path weight {path_weight:g}"


def text_recipe_of(recipe: str) -> str:
    return recipe.split(";", 1)[0]


@dataclass
class RecipeChange:
    """What an index run found and did: `reembedded` texts were new to the model."""

    previous: str
    current: str
    versions: int
    reembedded: int
    #: container versions given their outline key, and how many of them were one version
    rekeyed: int = 0
    merged: int = 0
    #: versions an older chunker cut another way (rechunk.py), the (branch, file) pairs parsed
    #: again for them, and the labels and pins moved to what replaced them
    recut: int = 0
    recut_files: int = 0
    moved_labels: int = 0
    moved_pins: int = 0

    def message(self) -> str:
        text = self._message()
        if self.recut:
            text += (f"; {self.recut} versions cut another way by an older chunker were cut again "
                     f"({self.recut_files} files over all branches; {self.moved_labels} labels and "
                     f"{self.moved_pins} pins moved to the sections or implementations that replace them)")
        return text

    def _message(self) -> str:
        if self.rekeyed:
            return (f"embedding recipe changed ({self.previous} -> {self.current}): {self.versions} versions "
                    f"re-derived, {self.rekeyed} class versions keyed by their outline ({self.merged} merged: "
                    f"they differed in method bodies only), {self.reembedded} texts embedded once")
        if text_recipe_of(self.previous) == text_recipe_of(self.current):
            return (f"embedding recipe changed ({self.previous} -> {self.current}): "
                    f"vectors of {self.versions} versions rebuilt, nothing re-embedded")
        return (f"embedding recipe changed ({self.previous} -> {self.current}): "
                f"{self.versions} versions re-derived, {self.reembedded} texts embedded once")

    def to_json(self) -> dict:
        return {"previous": self.previous, "current": self.current, "versions": self.versions,
                "reembedded": self.reembedded, "rekeyed": self.rekeyed, "merged": self.merged,
                "recut": self.recut, "recut_files": self.recut_files, "moved_labels": self.moved_labels,
                "moved_pins": self.moved_pins}


@dataclass
class ModelChange:
    """An index run that found vectors of another model identity (a new default model, another
    `model` or `runtime` setting) and embedded every stored text once with the configured one."""

    previous: str
    current: str
    reembedded: int

    def message(self) -> str:
        return (f"embedding model changed ({self.previous} -> {self.current}): "
                f"{self.reembedded} texts embedded once with the new model")

    def to_json(self) -> dict:
        return {"previous": self.previous, "current": self.current, "reembedded": self.reembedded}


def stored_recipe(store: Store) -> str | None:
    """The recipe the index's vectors were made with (None: an empty index)."""
    found = store.meta(META_KEY)
    if found is None and store.has_versions():
        return recipe_id(0.25, LEGACY_TEXT_RECIPE)
    return found


def migrate(store: Store, repo: GitRepo, config: Config, embedder: Embedder, progress=None) -> RecipeChange | None:
    """Bring the index to the configured recipe; None when it already is (or is empty)."""
    current = recipe_id(config.path_weight)
    previous = stored_recipe(store)
    if previous == current:
        return None
    if previous is None:
        store.set_meta(META_KEY, current)
        return None
    progress = progress or (lambda stage, done, total: None)
    with store.transaction():
        pending: dict[str, str] = {}
        keys = _Rekeyed()
        cut = Rechunked()
        if text_recipe_of(previous) != text_recipe_of(current):
            progress("re-chunk", 0, 1)
            cut = rechunk(store, repo, config, embedder)
            progress("re-chunk", 1, 1)
            pending = _rederive(store, repo, config, embedder, store.every_version(), keys)
        versions = store.every_version()
        embed_and_store(store, embedder, pending, progress, stage="re-embed")
        store.set_meta(META_KEY, current)
        store.bump_generation()  # vectors are rebuilt from the cache
        store.mark_unpublished([v.row for v in versions], point=True)
    return RecipeChange(previous, current, len(versions), len(pending), keys.rekeyed, keys.merged,
                        cut.obsolete, cut.files, cut.labels, cut.pins)


@dataclass
class _Rekeyed:
    rekeyed: int = 0
    merged: int = 0


def _rederive(store: Store, repo: GitRepo, config: Config, embedder: Embedder,
              versions: list[VersionRecord], keys: _Rekeyed) -> dict[str, str]:
    """New embedding texts (and keys) of every version, its path class as today's rules read
    its file (recipe `arms-1`: one long line no longer makes written code minified) and its
    docstring as today's chunker reads it (recipe `macro-docs-1`: a Rust macro documented
    inside its rules); returns the texts the model has not embedded yet."""
    rules = config.chunking_rules()
    texts: dict[str, str] = {}
    chunks_of: dict[tuple[str | None, str], dict] = {}
    for v in versions:
        if (v.blob, v.path) not in chunks_of:
            chunks_of[(v.blob, v.path)] = _chunks(repo, v.blob, v.path, rules)
        chunk = chunks_of[(v.blob, v.path)].get((v.symbol_type, v.qualified_name))
        row, content_hash = v.row, v.content_hash
        if chunk is not None and chunk.skeleton is not None and chunk.content_hash != content_hash \
                and chunk.lines_hash == content_hash:  # a container keyed by all its lines before
            row, content_hash = _rekey(store, row, chunk, keys), chunk.content_hash
        if chunk is not None and chunk.content_hash == content_hash:
            new_text = chunk.embedding_text
            if (chunk.path_class.value, chunk.class_reason) != (v.path_class, v.class_reason):
                store.set_path_class(row, chunk.path_class.value, chunk.class_reason)
            if chunk.docstring != v.docstring:
                store.set_docstring(row, chunk.docstring)
        else:  # the blob is gone from git: compose from what the index kept
            new_text = embedding_text.compose(v.symbol_type, v.qualified_name, v.parent, v.signature, v.docstring,
                                              v.text, path=v.path)
        key = embedding_key(new_text)
        path_text = path_embedding_text(v.path)
        path_key = embedding_key(path_text)
        store.set_embedding_text(row, new_text, key, path_key)
        for k, t in ((key, new_text), (path_key, path_text)):
            if k not in texts and not store.has_embedding(embedder.name, k):
                texts[k] = t
    return texts


def _rekey(store: Store, row: int, chunk: Chunk, keys: _Rekeyed) -> int:
    """Give a container version its outline key; returns the row that holds the version now
    (another one when a version with that key exists: they differed in member bodies only)."""
    keys.rekeyed += 1
    holder = store.version_row(chunk.version_id)
    if holder is None:
        store.rekey_version(row, chunk.version_id, chunk.content_hash, chunk.stored_text)
        return row
    keys.merged += 1
    store.mark_unpublished([row], point=True)  # a shared vector backend drops its point
    store.merge_version(row, holder)
    return holder


def _chunks(repo: GitRepo, blob: str | None, path: str, rules) -> dict:
    if blob is None:
        return {}
    try:
        data = repo.read_blob(blob)
    except (ValueError, OSError, KeyError):  # gitpython raises these for a missing object
        return {}
    return {(c.identity.symbol_type, c.identity.qualified_name): c
            for c in chunk_file(repo.name, path, data, rules).chunks}
