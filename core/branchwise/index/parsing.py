"""Cutting a branch's files into chunks, in worker processes where it pays.

Chunking (tree-sitter, naming, secret redaction) and the per-chunk work of a new version (its
lexical document, the imports it uses, its embedding key) are most of an index run's time
outside the model, and every file is independent of the others. A run with many files to
parse hands them to worker processes, one per core; the results come back in the order the
files were given, and the indexer stores them in that order, so rows, identities and versions
are the same whatever the number of processes (each file's result is a pure function of its
path, bytes and the chunking rules). A small run (an incremental commit) stays in the process,
where starting workers would cost more than it saves, and so does any run when workers cannot
start or die (the files they held are parsed in the process).

Where it can, the pool forks: a forked worker starts in milliseconds with every module this
process imported, where a spawned one starts a new interpreter (about half a second), so
much smaller runs pay. It forks only on Linux, and only when every other thread of the
process was declared safe beside a fork (`allow_fork_beside`: a progress display that writes
only under a lock the pool holds while it forks): a forked child keeps only the thread that
forked, and any lock another thread held then (a stream's, the review app's) stays held in
it. A worker never holds the index's write lock (store/lock.py closes it in a forked child).

With the static model named (`ahead_model`), a worker also embeds its files' texts and
paths: a table lookup per token that then runs beside the parsing of the other files, instead
of after every branch in the static stage. The vectors are the same bit for bit (a text's
vector does not depend on the batch it is in); the indexer stores them with the versions.

Blobs stream from one `git cat-file --batch` (GitRepo.iter_blobs) with a bounded number of
files in flight, so memory does not grow with the repository. `BRANCHWISE_PARSE_PROCESSES=N`
fixes the number of processes (1: in the process) whatever the run's size.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Generator, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from multiprocessing import get_context

from branchwise.chunking import ChunkingRules, chunk_file, path_embedding_text
from branchwise.chunking.imports import used_imports
from branchwise.git.repo import GitRepo
from branchwise.lexical import fts_columns
from branchwise.models import Chunk, FileChunks, PathMarks, sha256_hex

#: files to parse from which spawned worker processes pay for their start (about half a second)
PARALLEL_MIN_FILES = 200
#: files to parse from which forked worker processes pay for theirs
FORK_MIN_FILES = 25
#: a task is this many files or this many bytes, whichever comes first (fewer round trips)
TASK_FILES = 16
TASK_BYTES = 256 * 1024
#: tasks in flight per worker: enough to keep it busy, few enough to bound memory
TASKS_IN_FLIGHT = 4


def embedding_key(text: str) -> str:
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class ChunkExtras:
    """What a new version of a chunk stores besides the chunk: its FTS5 columns, the file's
    imports it uses (one per line) and the keys of its two embeddings."""

    lexical: tuple[str, ...]
    imports: str
    embed_key: str
    path_key: str


def chunk_extras(chunk: Chunk, path_key: str | None = None) -> ChunkExtras:
    ident = chunk.identity
    return ChunkExtras(
        fts_columns(ident.qualified_name, chunk.signature, chunk.docstring, chunk.text, ident.path),
        "\n".join(used_imports(chunk.imports, chunk.text, ident.language)),
        embedding_key(chunk.embedding_text),
        path_key or embedding_key(path_embedding_text(ident.path)),
    )


@dataclass
class ParsedFile:
    """One file's chunks; `extras` (one per chunk) when a worker computed them ahead."""

    path: str
    blob: str
    chunks: FileChunks
    extras: list[ChunkExtras] | None = field(default=None)
    unreadable: bool = False  # the blob is missing from the object store
    #: embedding key -> float32 vector bytes of the static model, for its chunks' texts and its
    #: path, when a worker embedded them ahead
    vectors: dict[str, bytes] = field(default_factory=dict)

    def extras_of(self, position: int) -> ChunkExtras:
        if self.extras is None:  # parsed in this process: computed when a new version needs them
            self.extras = [chunk_extras(chunk, self.path_key) for chunk in self.chunks.chunks]
        return self.extras[position]

    def embedding_keys(self) -> set[str]:
        """The keys of every chunk's two embeddings (cheap: no lexical document is made)."""
        if self.extras is not None:
            return {key for extras in self.extras for key in (extras.embed_key, extras.path_key)}
        return {embedding_key(chunk.embedding_text) for chunk in self.chunks.chunks} | {self.path_key}

    @cached_property
    def path_key(self) -> str:
        return embedding_key(path_embedding_text(self.path))


def parse_file(repository: str, path: str, blob: str, data: bytes | None, rules: ChunkingRules,
               marks: PathMarks, with_extras: bool = False) -> ParsedFile:
    if data is None:
        return ParsedFile(path, blob, FileChunks(path, None, skipped=unreadable_reason(blob)), [], unreadable=True)
    chunks = chunk_file(repository, path, data, rules, marks=marks)
    if not with_extras:
        return ParsedFile(path, blob, chunks)
    path_key = embedding_key(path_embedding_text(path))
    return ParsedFile(path, blob, chunks, [chunk_extras(chunk, path_key) for chunk in chunks.chunks])


#: threads that may run while the pool forks, each with the lock it writes under (see allow_fork_beside)
_BESIDE_FORK: weakref.WeakKeyDictionary[threading.Thread, threading.Lock] = weakref.WeakKeyDictionary()


def allow_fork_beside(thread: threading.Thread, lock: threading.Lock) -> None:
    """Let the parse pool fork while `thread` runs: it touches nothing a worker needs (a stream,
    a lock of the library's) except while it holds `lock`, which the pool takes while it forks."""
    _BESIDE_FORK[thread] = lock


def start_method() -> str:
    """How worker processes start here: forked where that is safe (see the module's docstring)."""
    others = [thread for thread in threading.enumerate() if thread is not threading.current_thread()]
    safe = all(thread in _BESIDE_FORK for thread in others)
    return "fork" if sys.platform.startswith("linux") and safe else "spawn"


@contextmanager
def _quiet_beside_fork(method: str) -> Iterator[None]:
    """The declared threads' locks held while the pool forks its workers (at its first task)."""
    with ExitStack() as held:
        if method == "fork":
            for thread, lock in list(_BESIDE_FORK.items()):
                if thread.is_alive():
                    held.enter_context(lock)
            for stream in (sys.stdout, sys.stderr):  # a worker flushes its copies as it exits
                try:
                    stream.flush()
                except (AttributeError, OSError, ValueError):
                    pass
        yield


def process_count(files: int, method: str = "spawn") -> int:
    """Processes for parsing `files` files: the environment's setting, else one per core for
    a run big enough to pay for them."""
    configured = os.environ.get("BRANCHWISE_PARSE_PROCESSES", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    if files < (FORK_MIN_FILES if method == "fork" else PARALLEL_MIN_FILES):
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores)


def parse_files(repo: GitRepo, files: list[tuple[str, str]], rules: ChunkingRules,
                marks: PathMarks, ahead_model: str | None = None) -> Generator[ParsedFile, None, None]:
    """Each of `files` ((path, blob) pairs) parsed, in their order; files parsed in workers
    carry `ahead_model`'s vectors when it is given."""
    method = start_method()
    processes = process_count(len(files), method)
    blobs = _file_bytes(repo, files)
    try:
        if processes <= 1:
            for path, blob, data in blobs:
                yield parse_file(repo.name, path, blob, data, rules, marks)
        else:
            yield from _parse_in_workers(repo.name, blobs, rules, marks, processes, method, ahead_model)
    finally:
        blobs.close()  # ends git's cat-file when the caller stops early


def _file_bytes(repo: GitRepo, files: list[tuple[str, str]]) -> Generator[tuple[str, str, bytes | None], None, None]:
    """Each file's bytes; None for a blob missing from the object store (a partial clone, a
    removed object): that file is skipped with its reason, the others are indexed."""
    stream = repo.iter_blobs(blob for _path, blob in files)
    try:
        for (path, blob), (_blob, data) in zip(files, stream):
            yield path, blob, data
    finally:
        stream.close()


def unreadable_reason(blob: str) -> str:
    return (f"unreadable: blob {blob[:12]} is missing from the object store (a partial clone, or a removed "
            "object); read again when the file changes")


_Task = list[tuple[str, str, bytes | None, PathMarks]]  # (path, blob, bytes, the file's marks)


def _parse_in_workers(repository: str, blobs: Iterator[tuple[str, str, bytes | None]], rules: ChunkingRules,
                      marks: PathMarks, processes: int, method: str, ahead_model: str | None) -> Iterator[ParsedFile]:
    pending: deque[tuple[_Task, Future | None]] = deque()
    try:
        pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            processes, mp_context=get_context(method), initializer=_start_worker,
            initargs=(repository, rules, os.getpid(), ahead_model))
    except (OSError, ImportError, NotImplementedError):  # no process support here: parse in this one
        pool = None
    try:
        for number, task in enumerate(_tasks(blobs, marks)):
            with _quiet_beside_fork(method if number == 0 else "none"):  # the pool forks at its first task
                pool = _submit(pool, task, pending)
            while len(pending) >= processes * TASKS_IN_FLIGHT:
                yield from _collect(pending.popleft(), repository, rules)
        while pending:
            yield from _collect(pending.popleft(), repository, rules)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _tasks(blobs: Iterator[tuple[str, str, bytes | None]], marks: PathMarks) -> Iterator[_Task]:
    task: _Task = []
    size = 0
    for path, blob, data in blobs:
        task.append((path, blob, data, marks.only(path)))
        size += len(data or b"")
        if len(task) >= TASK_FILES or size >= TASK_BYTES:
            yield task
            task, size = [], 0
    if task:
        yield task


def _submit(pool: ProcessPoolExecutor | None, task: _Task,
            pending: deque[tuple[_Task, Future | None]]) -> ProcessPoolExecutor | None:
    """Queue a task on the pool; without a pool (or a broken one) the task waits to be parsed
    in this process. Returns the pool still in use."""
    if pool is not None:
        try:
            pending.append((task, pool.submit(_parse_task, task)))
            return pool
        except Exception:  # a broken pool, or none may start here (a daemonic process): this process parses
            pool.shutdown(wait=False, cancel_futures=True)
    pending.append((task, None))
    return None


def _collect(entry: tuple[_Task, Future | None], repository: str, rules: ChunkingRules) -> list[ParsedFile]:
    task, future = entry
    if future is not None:
        try:
            return future.result()
        except BrokenProcessPool:  # a worker died: its files are parsed here instead
            pass
    return [parse_file(repository, path, blob, data, rules, marks) for path, blob, data, marks in task]


# inside a worker process -----------------------------------------------------------------

_worker: dict[str, object] = {}


def _start_worker(repository: str, rules: ChunkingRules, parent: int, ahead_model: str | None = None) -> None:
    _worker["repository"], _worker["rules"] = repository, rules
    if ahead_model is not None:
        from branchwise.embedding.static_model import StaticEmbedder
        _worker["embedder"] = StaticEmbedder(ahead_model)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A worker whose index process was killed (SIGKILL leaves the pool no time to stop it)
    exits within a second rather than waiting forever for work."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _parse_task(task: _Task) -> list[ParsedFile]:
    repository, rules = str(_worker["repository"]), _worker["rules"]
    assert isinstance(rules, ChunkingRules)
    parsed = [parse_file(repository, path, blob, data, rules, marks, with_extras=True)
              for path, blob, data, marks in task]
    embedder = _worker.get("embedder")
    if embedder is not None:
        try:
            _embed_ahead(embedder, parsed)
        except Exception:  # the static stage embeds what a worker could not, or says why it cannot
            for file in parsed:
                file.vectors = {}
    return parsed


def _embed_ahead(embedder, parsed: list[ParsedFile]) -> None:
    """Each file's chunk texts and path embedded, in one call for the task."""
    texts: dict[str, str] = {}
    for file in parsed:
        if file.chunks.chunks:
            texts.setdefault(file.path_key, path_embedding_text(file.path))
        for chunk, extras in zip(file.chunks.chunks, file.extras or ()):
            texts.setdefault(extras.embed_key, chunk.embedding_text)
    if not texts:
        return
    vectors = dict(zip(texts, (vector.astype("float32").tobytes() for vector in embedder.embed(list(texts.values())))))
    for file in parsed:
        keys = [extras.embed_key for extras in file.extras or ()]
        file.vectors = {key: vectors[key] for key in ([file.path_key] if file.chunks.chunks else []) + keys}
