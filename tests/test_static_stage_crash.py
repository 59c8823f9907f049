"""The transformer stage replacing the static stage's dense contributions survives SIGKILL (issue 47).

`index` gives every version a static vector in the same pass as parsing; the transformer
stage follows in the detached worker, and a fused search weights the static channel by the
share the transformer has not embedded yet. The worker is killed at seeded points of its
embedding, several times over (real git, SQLite and FAISS; the hashing embedder stands in for
the transformer, the shipped static model is the first stage, as in test_static_model.py).
After every kill each channel's FAISS vectors are exactly its embedded versions, once each,
the static stage stays complete, the coverage a search reports is what the tables hold, and
the index answers; a restart embeds exactly what is missing, no static vector again, and ends
where a plain foreground index with both stages ends.
"""

from __future__ import annotations

import random

import faiss
import pytest
from test_background_embedding import MODEL, QUERIES, build_repo, ranked, restart, start_background, stepped_kill

from branchwise.embedding import DEFAULT_MODEL
from branchwise.search.hybrid import SearchRequest
from branchwise.store import worker_record
from branchwise.workspace import Workspace

STATIC = f"{DEFAULT_MODEL}-static"


@pytest.fixture(autouse=True)
def static_on_hashing(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", MODEL)
    monkeypatch.setenv("BRANCHWISE_STATIC_MODEL", STATIC)


def _ids(vectors) -> list[int]:
    return sorted(faiss.vector_to_array(vectors.index.id_map).tolist())


def _sound(ws: Workspace) -> tuple[int, int]:
    """Both channels hold exactly their embedded versions, the static one all of them, and the
    coverage says so; returns (versions, transformer-embedded versions)."""
    ws.store.check_integrity()
    rows = ws.store.all_version_rows()
    dense_rows = ws.store.embedded_versions(MODEL, rows)
    static_rows = ws.store.embedded_versions(STATIC, rows)
    assert _ids(ws.searcher.vectors) == sorted(dense_rows)  # none lost, none twice
    assert _ids(ws.searcher.static_vectors) == sorted(static_rows) == sorted(rows)
    coverage = ws.dense_coverage("main")
    assert (coverage.embedded, coverage.total) == (len(dense_rows), len(rows)) == (coverage.embedded, len(ws.inspect("main")))
    assert coverage.static is not None and coverage.static.complete
    return len(rows), len(dense_rows)


def test_killing_the_transformer_worker_loses_no_vector_and_doubles_none(tmp_path):
    repo = build_repo(tmp_path / "repo")
    index_dir = tmp_path / "index"
    rng = random.Random(47)
    partial = 0
    static_embedded = []
    for _round in range(3):
        pid, embedding = start_background(repo.path, index_dir)
        static_embedded.append(embedding["static"]["embedded"])
        stepped_kill(pid, index_dir, at_least=rng.randrange(0, max(1, embedding["missing_texts"] - 256)),
                     extra_steps=rng.randrange(0, 4))
        ws = Workspace(repo.path, index_dir)
        total, embedded = _sound(ws)
        assert (worker_record.read(index_dir) or {}).get("state") in ("interrupted", "done")
        results = ws.search(SearchRequest(QUERIES[1], "main", top_k=10))
        assert results
        if embedded < total:  # the static stage stands in where the transformer has not been
            partial += 1
            assert any(r.static_rank is not None for r in results)
            assert "static stage complete" in ws.dense_coverage("main").line()
        ws.close()
    assert partial >= 2  # the kills landed in the middle of the transformer stage
    assert static_embedded[0] > 0 and static_embedded[1:] == [0, 0]  # the static stage ran once

    ws = Workspace(repo.path, index_dir)
    assert restart(ws).embedding["static"]["embedded"] == 0
    total, embedded = _sound(ws)
    assert embedded == total and ws.dense_coverage("main").complete

    plain = Workspace(repo.path, tmp_path / "plain")
    plain.index(["main"])
    restarted = Workspace(repo.path, index_dir)
    for query in QUERIES:
        assert ranked(restarted, query) == ranked(plain, query)
