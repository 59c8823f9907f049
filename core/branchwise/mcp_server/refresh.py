"""`mcp --refresh`: re-index a branch in the background when its tip moved, never blocking answers.

The serving Workspace stays read-only. A refresh runs in a thread on a Workspace of its own
(its own database connection and git reader, sharing only the warm model), under the index's
write lock; when another writer holds the lock it gives up and is asked again on a later call.
The answers meanwhile keep coming from the old index, with freshness saying that the tip
moved; once the run commits, the service sees the new generation and reloads its searcher.
The run returns once the branches are searchable and leaves the embedding of their new texts
to a detached worker (background.py); answers say their dense coverage until it is done.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone

from branchwise.errors import BranchwiseError
from branchwise.workspace import Workspace

log = logging.getLogger("branchwise.mcp")


class Refresher:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[str, threading.Thread] = {}
        self._last: dict[str, dict] = {}

    def request(self, serving: Workspace, branches: list[str]) -> bool:
        """Start a background index of `branches` unless one runs for this repository already."""
        name = serving.repo.name
        with self._lock:
            if name in self._running and self._running[name].is_alive():
                return False
            thread = threading.Thread(target=self._run, args=(serving, sorted(branches)),
                                      name=f"branchwise-refresh-{name}", daemon=True)
            self._running[name] = thread
            self._last[name] = {"state": "running", "branches": sorted(branches), "started": _now()}
        thread.start()
        return True

    def state(self, repository: str) -> dict:
        with self._lock:
            return dict(self._last.get(repository) or {"state": "idle"})

    def wait(self, timeout: float | None = None) -> None:
        """Wait for running refreshes (tests and shutdown)."""
        for thread in list(self._running.values()):
            thread.join(timeout)

    def _run(self, serving: Workspace, branches: list[str]) -> None:
        name = serving.repo.name
        writer = Workspace(serving.repo.path, serving.index_dir, backend=serving.backend)
        writer.__dict__["embedder"] = serving.embedder  # the warm model, not a second copy
        try:
            summaries = writer.index(branches, background=True)
            outcome = {"state": "done", "branches": branches, "finished": _now(),
                       "summaries": [s.to_json() for s in summaries], "embedding": summaries.embedding}
        except BranchwiseError as error:  # e.g. another writer holds the lock: try on a later call
            outcome = {"state": "skipped", "branches": branches, "finished": _now(), "why": str(error)}
        except Exception as error:  # noqa: BLE001 - a background failure must not end the server
            log.exception("background refresh of %s failed", name)
            outcome = {"state": "failed", "branches": branches, "finished": _now(), "why": f"{type(error).__name__}: {error}"}
        finally:
            writer.close()
        with self._lock:
            self._last[name] = outcome


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
