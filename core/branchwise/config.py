"""Settings, read from `config.toml` in the index directory, with sensible defaults.

One file per index keeps a shared index consistent for everyone who queries it: the model
that embedded the vectors must be the model that embeds the queries. `BRANCHWISE_MODEL`
overrides the model for one process (tests use the hashing embedder this way), and
`BRANCHWISE_QDRANT_COLLECTION` the Qdrant collections' prefix (backend.py reads the others).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from branchwise.embedding import DEFAULT_MODEL
from branchwise.errors import UsageError

CONFIG_FILE = "config.toml"


@dataclass
class Config:
    model: str = DEFAULT_MODEL
    #: weight of the file path's vector added to each symbol's vector (see docs/chunking.md)
    path_weight: float = 0.25
    #: days an unreferenced version (and its vector) is kept before `gc` removes it
    retention_days: float = 30.0
    #: failure ratio above which `stats` recommends re-indexing
    failure_threshold: float = 0.4
    #: consecutive rising sessions after which `stats` recommends re-indexing
    rising_sessions: int = 3
    #: where the searchable index lives: "faiss" (beside the database) or "qdrant" (see backend.py)
    backend: str = "faiss"
    qdrant_url: str | None = None
    qdrant_path: str | None = None
    #: prefix of the Qdrant collections, so several teams' indexes can share one server
    qdrant_collection: str = "branchwise"
    #: Qdrant's HNSW search breadth (None: the server's default) or an exact scan; recall
    #: against latency, measured in bench/results/README.md
    qdrant_hnsw_ef: int | None = None
    qdrant_exact: bool = False
    #: raw `[chunking]` table, handed to branchwise.chunking.ChunkingRules.from_mapping
    chunking: dict[str, Any] = field(default_factory=dict)
    #: raw `[ranking]` table (fusion weights, source-first prior), see branchwise.ranking
    ranking: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, index_dir: Path) -> "Config":
        path = index_dir / CONFIG_FILE
        data: dict[str, Any] = {}
        if path.exists():
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
                raise UsageError(f"bad configuration file {path}: {error}") from None
        known = {name for name in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise UsageError(f"unknown setting(s) in {path}: {', '.join(sorted(unknown))}")
        config = cls(**data)
        config.ranking_settings()  # a bad [ranking] table is reported when the index is opened
        config.model = os.environ.get("BRANCHWISE_MODEL", config.model)
        config.qdrant_collection = os.environ.get("BRANCHWISE_QDRANT_COLLECTION", config.qdrant_collection)
        return config

    def chunking_rules(self):
        from branchwise.chunking import ChunkingRules

        return ChunkingRules.from_mapping(self.chunking) if self.chunking else ChunkingRules()

    def ranking_settings(self):
        from branchwise.ranking import RankingSettings

        return RankingSettings.from_mapping(self.ranking)
