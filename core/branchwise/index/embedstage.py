"""The second stage of an index run: dense vectors for the versions that lack them.

The first stage (indexer.py) commits a branch's live set, lexical rows and names, so the
branch is searchable by its lexical and name channels at once. This stage then embeds every
text the model has not embedded yet, in the order the first searches need: the checked-out
branch's versions first, then the other branches', then versions live nowhere (history); in
each, source code before tests, docs and examples. Each batch lands in its own transaction
with the vectors it completes, so a killed run loses at most the batch it was computing and
the next run embeds exactly what is still missing (store/coverage.py counts it from the
embedding cache). The same stage runs in the foreground or in the detached worker
(background.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from branchwise.backends.backend import VectorStore
from branchwise.chunking import path_embedding_text
from branchwise.embedding import Embedder
from branchwise.ranking import role_of
from branchwise.store import Store

#: texts per transaction: what a killed run can lose, and how long a writer waits for a yield
BATCH = 256
#: batches between checkpoints of the database's write-ahead log (see Store.checkpoint)
CHECKPOINT_BATCHES = 64
#: the group of versions that no branch has live (searchable with --scope all)
HISTORY = "history"

Progress = Callable[[str, int, int], None]


@dataclass
class _Item:
    key: str
    row: int  # the version whose text (or path) this key embeds
    path: str | None  # set for a path embedding


@dataclass
class EmbedGroup:
    """The missing embeddings of one branch's live set (or of history), in embedding order."""

    label: str
    items: list[_Item] = field(default_factory=list)


@dataclass
class EmbedPlan:
    groups: list[EmbedGroup]
    #: embedding key -> the version rows that use it (the vectors a key can complete)
    users: dict[str, list[int]]
    versions: int  # versions missing a vector

    @property
    def texts(self) -> int:
        return sum(len(group.items) for group in self.groups)


@dataclass
class EmbedOutcome:
    embedded: dict[str, int] = field(default_factory=dict)  # group label -> texts embedded
    seconds: dict[str, float] = field(default_factory=dict)  # group label -> wall seconds
    model_seconds: dict[str, float] = field(default_factory=dict)  # group label -> seconds in the model
    stopped: bool = False

    @property
    def total(self) -> int:
        return sum(self.embedded.values())


def plan(store: Store, repository: str, model: str, first: list[str]) -> EmbedPlan:
    """What is missing for `model`, grouped and ordered: the branches named in `first` (the
    checked-out one leads), then the repository's other branches, then everything else."""
    rows = store.unembedded_versions(model)
    if not rows:
        return EmbedPlan([], {}, 0)
    missing = store.missing_keys(model, sorted({key for row in rows for key in (row[1], row[2])}))
    remaining = {row[0]: row for row in rows}
    repo_id = store.repo_id(repository)
    branches = store.branches(repo_id) if repo_id is not None else []
    ordered = sorted(branches, key=lambda b: (first.index(b.name) if b.name in first else len(first), b.name))
    users: dict[str, list[int]] = {}
    for version in rows:
        for key in (version[1], version[2]):
            users.setdefault(key, []).append(version[0])
    queued: set[str] = set()
    groups = []
    for label, members in [(b.name, set(store.live_rows(b.id))) for b in ordered] + [(HISTORY, None)]:
        chosen = sorted(remaining) if members is None else sorted(members & remaining.keys())
        versions = [remaining.pop(row) for row in chosen]
        versions.sort(key=lambda v: (role_of(v[3], v[4], v[5], v[6]) != "source", v[0]))
        group = EmbedGroup(label)
        for row, embed_key, path_key, path, *_rest in versions:
            for key, path_text in ((embed_key, None), (path_key, path)):
                if key in missing and key not in queued:
                    queued.add(key)
                    group.items.append(_Item(key, row, path_text))
        if group.items:
            groups.append(group)
    return EmbedPlan(groups, users, len(rows))


def embed_missing(store: Store, embedder: Embedder, vectors: VectorStore, work: EmbedPlan,
                  progress: Progress | None = None, save_each_batch: bool = True,
                  should_stop: Callable[[], bool] = lambda: False,
                  after_batch: Callable[[int, int], None] = lambda done, total: None,
                  others: Sequence[VectorStore] = ()) -> EmbedOutcome:
    """Embed the plan batch by batch; each batch commits its embeddings, the vectors they
    complete and (`save_each_batch`, for a file backend) the vector file, and saves `others`
    (the other dense stage's vector store: unchanged, but its file must name the store
    generation each batch moves to, or every reader would rebuild it). `progress` hears
    `embedding:LABEL` (position, count) per group and `embed` (done, total) per batch;
    `after_batch(done, total)` is told the texts embedded so far; `should_stop` is asked
    before each batch."""
    report = progress or (lambda stage, done, total: None)
    outcome = EmbedOutcome()
    done_all, total_all, batches = 0, work.texts, 0
    for position, group in enumerate(work.groups):
        report(f"embedding:{group.label}", position, len(work.groups))
        began = time.perf_counter()
        outcome.embedded[group.label] = 0
        outcome.model_seconds[group.label] = 0.0
        for start in range(0, len(group.items), BATCH):
            if should_stop():
                outcome.stopped = True
                outcome.seconds[group.label] = time.perf_counter() - began
                return outcome
            batch = group.items[start : start + BATCH]
            texts = store.embedding_texts([item.row for item in batch if item.path is None])
            strings = [path_embedding_text(item.path) if item.path is not None else texts[item.row] for item in batch]
            model_began = time.perf_counter()
            computed = embedder.embed(strings)
            outcome.model_seconds[group.label] += time.perf_counter() - model_began
            completed = sorted({row for item in batch for row in work.users.get(item.key, [])})
            with store.transaction():
                store.add_embeddings(embedder.name, [(item.key, vector.astype("float32").tobytes())
                                                     for item, vector in zip(batch, computed)])
                rows = store.embedded_versions(embedder.name, completed)
                store.bump_generation()
                store.mark_unpublished(rows, point=True)
                vectors.add(rows)
                if save_each_batch:  # before the commit: a run killed in between leaves a file
                    vectors.save()   # ahead of the database, which the next open rebuilds
                    for other in others:
                        other.save()
            outcome.embedded[group.label] += len(batch)
            done_all += len(batch)
            batches += 1
            if batches % CHECKPOINT_BATCHES == 0:
                store.checkpoint()
            report("embed", outcome.embedded[group.label], len(group.items))
            after_batch(done_all, total_all)
        outcome.seconds[group.label] = time.perf_counter() - began
    store.checkpoint()
    return outcome
