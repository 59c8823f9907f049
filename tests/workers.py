"""Waiting for a detached embedding worker in tests: its record, once it stopped running."""

from __future__ import annotations

import time
from pathlib import Path

from branchwise.store import worker_record


def wait_for_worker(index_dir: Path, limit: float = 120) -> dict:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        record = worker_record.read(index_dir)
        if record and record["state"] != "running":
            return record
        time.sleep(0.05)
    raise AssertionError("the background worker did not finish")
