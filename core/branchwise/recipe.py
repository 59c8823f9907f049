"""The embedding recipe in force, and the one-time migration when it changes.

A version's vector comes from two things that change independently: the model (its name
keys the embedding cache, so another model simply misses the cache) and the recipe, the
way a symbol becomes the text the model reads plus the share of the path vector mixed in.
The recipe is recorded in the index. An index run that finds another recipe there derives
every stored version's text again (by re-chunking the file it came from, so containers get
their outline), embeds only texts not cached yet, and has the vectors rebuilt; it says so,
because on a large index that takes a while. A change of path weight alone re-embeds nothing.

Re-deriving also re-keys what an older chunker keyed another way: a container stored under the
hash of all its lines (methods included) gets its outline key and keeps its skeleton, and the
versions of one container that differed only in member bodies become one version.
"""

from __future__ import annotations

from dataclasses import dataclass

from branchwise.chunking import chunk_file, embedding_text, path_embedding_text
from branchwise.config import Config
from branchwise.embedding import Embedder
from branchwise.gitrepo import GitRepo
from branchwise.indexer import embed_and_store, embedding_key
from branchwise.store import Store

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

    def message(self) -> str:
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
                "reembedded": self.reembedded, "rekeyed": self.rekeyed, "merged": self.merged}


def stored_recipe(store: Store) -> str | None:
    """The recipe the index's vectors were made with (None: an empty index)."""
    found = store.meta(META_KEY)
    if found is None and store.conn.execute("SELECT 1 FROM versions LIMIT 1").fetchone():
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
        rows = store.conn.execute(
            "SELECT v.id, v.blob, i.path, i.symbol_type, i.qualified_name, v.content_hash, v.parent, "
            "v.signature, v.docstring, v.text FROM versions v JOIN identities i ON i.id = v.identity_id "
            "ORDER BY v.blob, i.path").fetchall()
        pending: dict[str, str] = {}
        keys = _Rekeyed()
        if text_recipe_of(previous) != text_recipe_of(current):
            pending = _rederive(store, repo, config, embedder, rows, keys)
        embed_and_store(store.conn, embedder, pending, progress, stage="re-embed")
        store.set_meta(META_KEY, current)
        store.set_meta("generation", str(store.generation() + 1))  # vectors are rebuilt from the cache
        store.mark_unpublished([row[0] for row in rows], point=True)
    return RecipeChange(previous, current, len(rows), len(pending), keys.rekeyed, keys.merged)


@dataclass
class _Rekeyed:
    rekeyed: int = 0
    merged: int = 0


def _rederive(store: Store, repo: GitRepo, config: Config, embedder: Embedder, rows,
              keys: _Rekeyed) -> dict[str, str]:
    """New embedding texts (and keys) of every version; returns the texts the model has not
    embedded yet."""
    rules = config.chunking_rules()
    texts: dict[str, str] = {}
    chunks_of: dict[tuple[str, str], dict] = {}
    for row_id, blob, path, symbol_type, name, content_hash, parent, signature, docstring, text in rows:
        if (blob, path) not in chunks_of:
            chunks_of[(blob, path)] = _chunks(repo, blob, path, rules)
        chunk = chunks_of[(blob, path)].get((symbol_type, name))
        if chunk is not None and chunk.skeleton is not None and chunk.content_hash != content_hash \
                and chunk.lines_hash == content_hash:  # a container keyed by all its lines before
            held = store.rekey_version(row_id, chunk.version_id, chunk.content_hash, chunk.stored_text)
            keys.rekeyed += 1
            keys.merged += held != row_id
            row_id, content_hash = held, chunk.content_hash
        if chunk is not None and chunk.content_hash == content_hash:
            new_text = chunk.embedding_text
        else:  # the blob is gone from git: compose from what the index kept
            new_text = embedding_text.compose(symbol_type, name, parent, signature, docstring, text, path=path)
        key = embedding_key(new_text)
        path_text = path_embedding_text(path)
        path_key = embedding_key(path_text)
        store.conn.execute("UPDATE versions SET embedding_text = ?, embed_key = ?, path_key = ? WHERE id = ?",
                           (new_text, key, path_key, row_id))
        for k, t in ((key, new_text), (path_key, path_text)):
            if k not in texts and not store.conn.execute(
                    "SELECT 1 FROM embeddings WHERE model = ? AND key = ?", (embedder.name, k)).fetchone():
                texts[k] = t
    return texts


def _chunks(repo: GitRepo, blob: str | None, path: str, rules) -> dict:
    if blob is None:
        return {}
    try:
        data = repo.read_blob(blob)
    except (ValueError, OSError, KeyError):  # gitpython raises these for a missing object
        return {}
    return {(c.identity.symbol_type, c.identity.qualified_name): c
            for c in chunk_file(repo.name, path, data, rules).chunks}
