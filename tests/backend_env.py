"""Which vector backend a test runs on, as a plain module that test files can import.

Test modules import these from here, never from `conftest`: with `tests/` and `tests/tui/`
both collected, `from conftest import ...` would find whichever conftest came first.
"""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

# Search and index tests run once per backend: FAISS (the default), Qdrant in local mode (a
# directory, as in CI) and, when QDRANT_URL names a server, that server (see docs/qdrant.md).

BACKENDS = ["faiss", "qdrant-local", "qdrant-server"]


@contextmanager
def backend_environment(kind: str, tmp_dir: Path):
    """Point every Workspace in this process at one backend, and clean it up afterwards."""
    if kind == "qdrant-server" and not os.environ.get("QDRANT_URL"):
        pytest.skip("QDRANT_URL is not set (no Qdrant server to test against)")
    names = ("BRANCHWISE_BACKEND", "BRANCHWISE_QDRANT_PATH", "BRANCHWISE_QDRANT_URL", "BRANCHWISE_QDRANT_COLLECTION")
    saved = {name: os.environ.get(name) for name in names}
    prefix = f"bwtest-{uuid.uuid4().hex[:12]}"  # a server is shared: every test gets its own collections
    if kind != "faiss":
        os.environ["BRANCHWISE_BACKEND"] = "qdrant"
        os.environ["BRANCHWISE_QDRANT_COLLECTION"] = prefix
        if kind == "qdrant-local":
            os.environ["BRANCHWISE_QDRANT_PATH"] = str(tmp_dir / "qdrant")
        else:
            os.environ["BRANCHWISE_QDRANT_URL"] = os.environ["QDRANT_URL"]
    try:
        yield kind
    finally:
        if kind == "qdrant-server":
            from branchwise.backends.qdrant import drop_collections
            drop_collections(os.environ["QDRANT_URL"], prefix, os.environ.get("QDRANT_API_KEY"))
        if kind != "faiss":
            from branchwise.backends.qdrant import close_clients
            close_clients(os.environ.get("BRANCHWISE_QDRANT_PATH") or os.environ.get("BRANCHWISE_QDRANT_URL"))
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
