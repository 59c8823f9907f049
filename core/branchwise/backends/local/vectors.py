"""The FAISS side of the index: one vector per version row, searched within a live set.

The branch filter is applied inside FAISS, before ranking, as a bitmap over version rows
(`IDSelectorBitmap`: one bit per row, built with numpy in about a millisecond, where an
`IDSelectorBatch` hash set over a 300,000-row live set costs tens of milliseconds per query).
Small indexes are an exact flat scan. Above `FLAT_MAX` vectors the index is an inverted file
(IVF, about sqrt(n) lists, k-means trained on a sample): a query scans only the lists nearest
to it, and a filtered query probes more lists the smaller its allowed share is, up to all of
them, which is exact again, so a narrow filter never loses recall. IVF keeps `add` and
`remove` (HNSW cannot remove) and measured fastest at the target recall: see bench/ and
bench/results/.

Vectors are derived data (see version_vectors.py). On disk they are a base FAISS file and
a delta file: the vectors added and removed since the base was written, in order, as an
append-only log. An index run appends only its own operations (an embedding stage saves
after every batch, so a rewrite of the whole delta per batch would cost quadratic time),
so its cost follows the size of the change rather than of the index (the base of a million
versions is 1.5 GB); the base is rewritten when the delta passes a share of it, or when
the index changes structure. A generation record names the store generation both files
match and how many bytes of the log belong to it, so a reader never sees a half-appended
operation. When either file is missing, corrupt or behind, the index is rebuilt from
SQLite, which makes an interrupted index run harmless; a reader that meets a writer
between its file save and its commit waits a moment for them to agree, and never writes
the files while a writer holds the write lock. This is the default, embedded backend;
qdrant/ is the shared-server one.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import faiss
import numpy as np

from branchwise.backends.version_vectors import version_vectors
from branchwise.store import Store
from branchwise.store.lock import derived_files_writable, writer_elsewhere

#: Up to this many vectors the index is an exact flat scan; above it, an IVF index (see below).
FLAT_MAX = 100_000
#: Lists probed for an unfiltered query; a filtered one probes more (see `nprobe_for`).
NPROBE = 16
#: The base file is rewritten once the delta holds more than this share of its vectors and
#: more than DELTA_MIN of them (below that, rewriting the base costs little anyway).
DELTA_SHARE = 0.05
DELTA_MIN = 10_000
#: version rows whose vectors `add` reads from the embedding cache at a time
ADD_SLICE = 10_000
#: a reader whose files and database disagree while a writer is at work looks again this
#: many times, this far apart, before it rebuilds (the writer saves just before it commits)
LOAD_ATTEMPTS = 10
LOAD_PAUSE_SECONDS = 0.05


def _slug(model: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in model)


class VectorIndex:
    """Inner-product search over version rows, restricted to an allowed id set."""

    def __init__(self, store: Store, model: str, dim: int, path_weight: float, flat_max: int = FLAT_MAX):
        self.store = store
        #: up to this many vectors the index stays an exact flat scan (config `flat_max_vectors`)
        self.flat_max = flat_max
        self.model = model
        self.dim = dim
        self.path_weight = path_weight
        self.file = store.index_dir / f"vectors-{_slug(model)}.faiss"
        self.meta_file = self.file.with_suffix(".json")
        self.delta_file = self.file.with_suffix(".delta")
        #: operations since the base file not yet in the delta file, in order: (True, ids,
        #: vectors) adds, (False, ids, None) removes
        self._unsaved: list[tuple[bool, np.ndarray, np.ndarray | None]] = []
        self._delta_ops = 0  # operations since the base file, in the delta file or not
        self._delta_vectors = 0  # ids they carry
        self._delta_bytes = 0  # the delta file's length that belongs to the saved state
        self._base_stale = False  # the structure changed: the base file must be rewritten
        #: the store generation the index holds the vectors of (None once changed in memory
        #: and not saved yet)
        self.generation: int | None = None
        self.index = self._load() or self.rebuild()

    # persistence --------------------------------------------------------------------------

    def _load(self) -> faiss.Index | None:
        """The files' index if they match the database; a reader meeting a writer between
        its save and its commit looks again a few times first."""
        for attempt in range(LOAD_ATTEMPTS):
            loaded = self._load_once()
            if loaded is not None or attempt + 1 == LOAD_ATTEMPTS or not writer_elsewhere(self.store.index_dir):
                return loaded
            time.sleep(LOAD_PAUSE_SECONDS)
        return None

    def _load_once(self) -> faiss.Index | None:
        self._unsaved, self._delta_ops, self._delta_vectors, self._delta_bytes = [], 0, 0, 0
        try:
            text = self.meta_file.read_text()
            meta = json.loads(text)
            if meta.get("generation") != self.store.generation() or meta.get("dim") != self.dim:
                return None
            index = faiss.read_index(str(self.file))
            delta = read_delta(self.delta_file, meta["delta_bytes"]) if meta.get("delta") else []
            if len(delta) != meta.get("delta", 0):
                return None
            for adds, ids, vectors in delta:
                index.add_with_ids(vectors, ids) if adds else index.remove_ids(ids)
            if self.meta_file.read_text() != text:  # a writer saved meanwhile: the files may be a mix
                return None
        except (OSError, ValueError, RuntimeError, KeyError, TypeError):
            return None
        if index.ntotal != meta.get("count"):
            return None
        self._delta_ops, self._delta_bytes = len(delta), meta.get("delta_bytes", 0)
        self.generation = meta["generation"]
        self._delta_vectors = sum(len(ids) for _adds, ids, _vectors in delta)
        return index

    def save(self) -> None:
        """Make the vectors durable: the new operations appended to the delta file, or a new
        base file once the delta has outgrown its share."""
        if self._base_stale or self._delta_vectors > max(DELTA_MIN, DELTA_SHARE * self.index.ntotal):
            tmp = self.file.with_suffix(".faiss.tmp")
            faiss.write_index(self.index, str(tmp))
            os.replace(tmp, self.file)
            self.delta_file.unlink(missing_ok=True)
            self.file.with_suffix(".delta.npz").unlink(missing_ok=True)  # the format before the log
            self._unsaved, self._delta_ops, self._delta_vectors, self._delta_bytes = [], 0, 0, 0
            self._base_stale = False
        if self._unsaved:
            self._delta_bytes = append_delta(self.delta_file, self._unsaved, self._delta_bytes)
            self._unsaved = []
        meta = {"generation": self.store.generation(), "count": int(self.index.ntotal), "dim": self.dim,
                "delta": self._delta_ops, "delta_bytes": self._delta_bytes}
        self.generation = meta["generation"]
        tmp_meta = self.meta_file.with_suffix(".json.tmp")
        tmp_meta.write_text(json.dumps(meta))
        os.replace(tmp_meta, self.meta_file)

    def rebuild(self) -> faiss.Index:
        """Recompute every version's vector from the SQLite embedding cache (saved when no
        other process is writing the index)."""
        self._unsaved, self._delta_ops, self._delta_vectors, self._delta_bytes = [], 0, 0, 0
        generation = self.store.generation()  # read first: a commit meanwhile makes it older, never newer
        ids = self.store.all_version_rows()
        id_parts, vector_parts = [], []
        for start in range(0, len(ids), 20000):
            part_ids, part_vectors = self.vectors_for(ids[start : start + 20000])
            id_parts.append(part_ids)
            vector_parts.append(part_vectors)
        all_ids = np.concatenate(id_parts) if id_parts else np.zeros(0, dtype=np.int64)
        all_vectors = np.vstack(vector_parts) if vector_parts else np.zeros((0, self.dim), dtype=np.float32)
        self.index = build_index(self.dim, all_ids, all_vectors, self.flat_max)
        self.generation = generation
        self._base_stale = True
        if self.store.index_dir.exists() and not self.store.read_only:
            with derived_files_writable(self.store.index_dir) as writable:
                if writable:
                    self.save()
        return self.index

    # updates ------------------------------------------------------------------------------

    def vectors_for(self, version_rows: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(ids, vectors) for the given version rows whose embeddings are cached."""
        return version_vectors(self.store, self.model, self.dim, self.path_weight, version_rows)

    def add(self, version_rows: list[int]) -> None:
        """Add in slices, so that a branch's worth of new versions is never all read from the
        embedding cache at once (only the index holds them all); reshaped once, at the end."""
        added = False
        for start in range(0, len(version_rows), ADD_SLICE):
            ids, vectors = self.vectors_for(version_rows[start : start + ADD_SLICE])
            if len(ids):
                self.index.add_with_ids(vectors, ids)
                self._record(True, ids, vectors, reshape=False)
                added = True
        if added:
            self._reshape_if_needed()

    def remove(self, version_rows: list[int]) -> None:
        if version_rows:
            ids = np.asarray(version_rows, dtype=np.int64)
            self.index.remove_ids(ids)
            self._record(False, ids, None)

    def _record(self, adds: bool, ids: np.ndarray, vectors: np.ndarray | None, reshape: bool = True) -> None:
        self.generation = None
        self._unsaved.append((adds, ids, vectors))
        self._delta_ops += 1
        self._delta_vectors += len(ids)
        if reshape:
            self._reshape_if_needed()

    def _reshape_if_needed(self) -> None:
        """Re-train when the index has outgrown (or shrunk away from) its structure."""
        if not _fits(self.index, self.index.ntotal, self.flat_max):
            self.rebuild()

    def ids(self) -> np.ndarray:
        """The version rows that have a vector, in no particular order."""
        return stored_ids(self.index)

    def stored(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(version rows, vectors) of everything the index holds, in pieces (views into the
        index's own memory: read them before it changes)."""
        return stored_vectors(self.index)

    # search -------------------------------------------------------------------------------

    def search(self, query: np.ndarray, allowed: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-k version rows by inner product, among `allowed` only (filter before ranking)."""
        return search_index(self.index, query, allowed, k)

    def search_many(self, queries: np.ndarray, allowed: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """`search` for each row of `queries`, in one call."""
        return search_index_many(self.index, queries, allowed, k)


_HEADER = 3  # int64s before each operation in the delta file: is it an add, its ids, its dimension


def _encoded(delta: list[tuple[bool, np.ndarray, np.ndarray | None]]) -> bytes:
    parts = []
    for is_add, ids, vectors in delta:
        dim = vectors.shape[1] if is_add and vectors is not None else 0
        parts.append(np.array([int(is_add), len(ids), dim], dtype=np.int64).tobytes())
        parts.append(np.ascontiguousarray(ids, dtype=np.int64).tobytes())
        if is_add and vectors is not None:
            parts.append(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
    return b"".join(parts)


def append_delta(path: Path, delta: list[tuple[bool, np.ndarray, np.ndarray | None]], at: int) -> int:
    """Write operations to the delta file from byte `at` on (what lies past it belongs to no
    saved state: an interrupted append); returns the file's new length."""
    data = _encoded(delta)
    with open(path, "r+b" if at and path.exists() else "wb") as handle:
        handle.seek(at)
        handle.truncate()
        handle.write(data)
    return at + len(data)


def read_delta(path: Path, size: int | None = None) -> list[tuple[bool, np.ndarray, np.ndarray | None]]:
    """The operations in the first `size` bytes of a delta file (all of it by default)."""
    with open(path, "rb") as handle:
        data = handle.read() if size is None else handle.read(size)
    if size is not None and len(data) != size:
        raise ValueError(f"{path} is shorter than its record says")
    out: list[tuple[bool, np.ndarray, np.ndarray | None]] = []
    at = 0
    while at < len(data):
        is_add, count, dim = np.frombuffer(data, dtype=np.int64, count=_HEADER, offset=at).tolist()
        at += 8 * _HEADER
        ids = np.frombuffer(data, dtype=np.int64, count=count, offset=at).copy()
        at += 8 * count
        if is_add:
            vectors = np.frombuffer(data, dtype=np.float32, count=count * dim, offset=at).reshape(count, dim).copy()
            at += 4 * count * dim
            out.append((True, ids, vectors))
        else:
            out.append((False, ids, None))
    return out


# the index structure: shared with bench/ so that the benchmark measures this code ---------


def nlist_for(count: int, flat_max: int = FLAT_MAX) -> int:
    """IVF lists for `count` vectors (0: stay flat up to `flat_max`): about sqrt(n), a power of two."""
    if count <= flat_max:
        return 0
    return 1 << round(np.log2(np.sqrt(count)))


def build_index(dim: int, ids: np.ndarray, vectors: np.ndarray, flat_max: int = FLAT_MAX) -> faiss.Index:
    """An exact flat index for up to `flat_max` vectors, else an IVF index trained on a sample of them."""
    nlist = nlist_for(len(ids), flat_max)
    if nlist == 0:
        index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
    else:
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
        sample = np.random.default_rng(0).choice(len(ids), min(len(ids), 64 * nlist), replace=False)
        index.train(vectors[np.sort(sample)])
    for start in range(0, len(ids), 100_000):
        index.add_with_ids(vectors[start : start + 100_000], ids[start : start + 100_000])
    return index


def stored_ids(index: faiss.Index) -> np.ndarray:
    """The ids an index built by `build_index` holds."""
    parts = [ids.astype(np.int64) for ids, _vectors in stored_vectors(index)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def stored_vectors(index: faiss.Index) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(ids, vectors) of an index built by `build_index`: the flat one whole, an IVF one per list."""
    dim = index.d
    if isinstance(index, faiss.IndexIVF):
        lists = index.invlists
        for number in range(index.nlist):
            size = lists.list_size(number)
            if size:
                codes = faiss.rev_swig_ptr(lists.get_codes(number), size * dim * 4)
                yield (faiss.rev_swig_ptr(lists.get_ids(number), size),
                       np.frombuffer(codes, dtype=np.float32).reshape(size, dim))
        return
    flat = faiss.downcast_index(index.index)
    yield (faiss.vector_to_array(index.id_map).astype(np.int64),
           faiss.rev_swig_ptr(flat.get_xb(), index.ntotal * dim).reshape(index.ntotal, dim))


def _fits(index: faiss.Index, count: int, flat_max: int = FLAT_MAX) -> bool:
    """Flat while small; IVF with a list count within a factor of two of the ideal."""
    wanted = nlist_for(count, flat_max)
    current = index.nlist if isinstance(index, faiss.IndexIVF) else 0
    if wanted == 0:
        return current == 0
    return wanted / 2 <= current <= wanted * 2


def nprobe_for(nlist: int, allowed_share: float) -> int:
    """Probe more lists for a narrower filter, so as many allowed vectors get scanned."""
    return int(min(nlist, np.ceil(NPROBE / max(allowed_share, 1e-9))))


def allowed_selector(allowed: np.ndarray) -> tuple[faiss.IDSelector, np.ndarray]:
    """A bitmap selector over version rows; the bitmap is returned to keep it alive."""
    mask = np.zeros(int(allowed.max()) + 1, dtype=bool)
    mask[allowed] = True
    bitmap = np.packbits(mask, bitorder="little")
    return faiss.IDSelectorBitmap(len(bitmap), faiss.swig_ptr(bitmap)), bitmap


@contextmanager
def single_threaded():
    """One query gains nothing from OpenMP threads, and on a busy machine waking them costs
    more than the scan (a 50,000-vector flat scan measured 12 ms with two threads, 6 with one)."""
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(threads)


def search_index(index: faiss.Index, query: np.ndarray, allowed: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Top-k ids by inner product among `allowed`, the filter applied inside the scan."""
    if len(allowed) == 0 or index.ntotal == 0:
        return []
    params, _alive = _filtered_params(index, allowed)
    with single_threaded():
        scores, ids = index.search(query.reshape(1, -1).astype(np.float32), k, params=params)
    return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]


def search_index_many(index: faiss.Index, queries: np.ndarray, allowed: np.ndarray,
                      k: int) -> list[list[tuple[int, float]]]:
    """`search_index` for each row of `queries`, in one scan call (a branch diff's changes)."""
    if len(allowed) == 0 or index.ntotal == 0:
        return [[] for _ in range(len(queries))]
    params, _alive = _filtered_params(index, allowed)
    with single_threaded():
        scores, ids = index.search(np.ascontiguousarray(queries, dtype=np.float32), k, params=params)
    return [[(int(i), float(s)) for i, s in zip(row_ids, row_scores) if i >= 0]
            for row_ids, row_scores in zip(ids, scores)]


def _filtered_params(index: faiss.Index, allowed: np.ndarray) -> tuple[faiss.SearchParameters, tuple]:
    """Search parameters that keep a scan to `allowed`, and the selector and bitmap they point
    into (the caller holds them until the search is done)."""
    selector, bitmap = allowed_selector(np.asarray(allowed, dtype=np.int64))
    if isinstance(index, faiss.IndexIVF):
        nprobe = nprobe_for(index.nlist, len(allowed) / index.ntotal)
        params = faiss.SearchParametersIVF(sel=selector, nprobe=nprobe)
    else:
        params = faiss.SearchParameters(sel=selector)
    return params, (selector, bitmap)
