"""Talking to Qdrant: one client per server or folder, one-line errors, and the names of
things (collections, point ids, path prefixes) that the publisher and the searcher share.

See branchwise/backends/qdrant/__init__.py for the layout of the collections.
"""

from __future__ import annotations

import atexit
import uuid
import warnings
from contextlib import contextmanager
from typing import Any

from branchwise.errors import BranchwiseError, UsageError

_NAMESPACE = uuid.UUID("6c1d2f0e-3b5a-4c57-9d1e-b2a9f0c4e7aa")
_clients: dict[str, Any] = {}


def qdrant_models():
    try:
        from qdrant_client import models
    except ImportError:
        raise UsageError("the qdrant backend needs qdrant-client: pip install 'branchwise[qdrant]'") from None
    return models


def client_for(backend) -> Any:
    """One client per server or local directory per process (local mode locks its directory)."""
    where = backend.qdrant_url or backend.qdrant_path
    if where not in _clients:
        qdrant_models()
        from qdrant_client import QdrantClient

        if not _clients:
            atexit.register(close_clients)  # before interpreter teardown, which local mode dislikes
        with talking(backend):
            if backend.qdrant_url:
                _clients[where] = QdrantClient(url=backend.qdrant_url, api_key=backend.api_key, timeout=120)
            else:
                _clients[where] = QdrantClient(path=backend.qdrant_path)
    return _clients[where]


def close_clients(where: str | None = None) -> None:
    """Close the client of one server or folder (None: every client), e.g. before another
    process opens the same local folder, and at exit."""
    for key in [where] if where is not None else list(_clients):
        client = _clients.pop(key, None)
        if client is not None:
            client.close()


def drop_collections(url: str, prefix: str, api_key: str | None = None) -> None:
    """Delete every collection whose name starts with `prefix-` on a server (test clean-up)."""
    from qdrant_client import QdrantClient

    client = QdrantClient(url=url, api_key=api_key)
    for collection in client.get_collections().collections:
        if collection.name.startswith(prefix + "-"):
            client.delete_collection(collection.name)
    client.close()


@contextmanager
def talking(backend):
    """Turn the client's errors (server down, refused, local folder locked) into one line."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    where = backend.qdrant_url or backend.qdrant_path
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*[Ll]ocal mode.*")
            yield
    except (ResponseHandlingException, UnexpectedResponse, ConnectionError, TimeoutError) as error:
        raise BranchwiseError(f"Qdrant at {where}: {_first_line(error)}") from None
    except RuntimeError as error:  # local mode: the folder is in use by another process
        if "already accessed" in str(error):
            raise BranchwiseError(f"Qdrant folder {where} is in use by another process") from None
        raise


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


#: the named vector of the static stage's model on each point (beside `dense` and `lexical`)
STATIC_VECTOR = "static"


def vector_names(client, collection: str) -> set[str]:
    """The dense named vectors a collection was made with."""
    vectors = client.get_collection(collection).config.params.vectors
    return set(vectors) if isinstance(vectors, dict) else set()


def versions_collection(prefix: str, model: str) -> str:
    return f"{prefix}-versions-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in model)


def terms_collection(prefix: str, model: str) -> str:
    return versions_collection(prefix, model).replace("-versions-", "-terms-", 1)


def branches_collection(prefix: str) -> str:
    return f"{prefix}-branches"


def point_id(version_id: str) -> str:
    return str(uuid.UUID(hex=version_id[:32]))


def record_id(*parts: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join(parts)))


def path_prefixes(path: str) -> list[str]:
    """`src/shop/orders.py` -> src, src/, src/shop, src/shop/, src/shop/orders.py."""
    parts = path.split("/")
    out = []
    for i in range(1, len(parts)):
        head = "/".join(parts[:i])
        out += [head, head + "/"]
    return out + [path]


def scroll_all(client, collection: str, query_filter, with_payload: bool = False, limit: int = 1000):
    offset = None
    while True:
        points, offset = client.scroll(collection, scroll_filter=query_filter, limit=limit, offset=offset,
                                       with_payload=with_payload, with_vectors=False)
        yield from points
        if offset is None:
            return
