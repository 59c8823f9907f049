"""The index's source of truth: one SQLite database (WAL) per index directory.

This package is the only code that speaks SQL. `schema.py` holds every table; `Store` is
one connection with the reads and writes of each concern (`database.py`: meta,
repositories, branches; `writes.py`: an index run; `reads.py`: the local backend's search;
`outbox.py`: a shared backend's publishing; `rechunk.py`: a recipe's re-chunking; `coverage.py`: what
the embedding stage still has to embed), returning records (`records.py`) or plain
values. Vector files beside the database are derived from it and can always be rebuilt.
Beside the SQL, the index directory's other files: the write lock (`lock.py`), the background
worker's record (`worker_record.py`) and the stale records of failed verifications (`stale.py`).
"""

from pathlib import Path

from branchwise.errors import UsageError
from branchwise.store.batches import BATCH, in_batches
from branchwise.store.coverage import CoverageReads
from branchwise.store.database import (BUSY_TIMEOUT_SECONDS, DB_FILE, database_error, default_index_dir,
                                       make_index_dir, require_index, resolve_index_dir, utc_now)
from branchwise.store.impact_reads import ImpactReads
from branchwise.store.outbox import Outbox
from branchwise.store.reads import SearchReads
from branchwise.store.rechunk import RechunkWrites
from branchwise.store.records import BranchRecord, VersionRecord
from branchwise.store.writes import IndexWrites


class Store(IndexWrites, SearchReads, ImpactReads, Outbox, RechunkWrites, CoverageReads):
    """A connection to one index database with every query the core runs on it."""


def recorded_repositories(index_dir: Path) -> list[str]:
    """The paths of the repositories an index holds; refused when it holds none yet."""
    store = Store(index_dir, create=False)
    try:
        recorded = store.repositories()
    finally:
        store.close()
    if not recorded:
        raise UsageError(f"the index at {index_dir} holds no repository yet (run `branchwise index`)")
    return [path for _name, path in recorded]


__all__ = ["BATCH", "BUSY_TIMEOUT_SECONDS", "DB_FILE", "BranchRecord", "Store", "VersionRecord", "database_error",
           "default_index_dir", "in_batches", "make_index_dir", "recorded_repositories", "require_index", "resolve_index_dir", "utc_now"]
