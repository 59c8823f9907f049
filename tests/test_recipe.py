"""The embedding recipe recorded in the index, and the one-time migration when it changes.

Hashing embedder (deterministic, no weights): these tests are about what is stored, re-derived
and re-embedded, not about retrieval quality.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from gittools import GitBuilder

from branchwise.chunking import embedding_text
from branchwise.index import recipe
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

ORDERS = '''class OrderService:
    """Creates and cancels orders."""

    def cancel_order(self, order):
        order.status = "cancelled"
        return order


def total_price(items):
    return sum(item.price for item in items)
'''


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "shop")
    git.write("shop/orders.py", ORDERS)
    git.commit("orders")
    return git


def _texts(ws: Workspace) -> dict[str, str]:
    return dict(ws.store.conn.execute(
        "SELECT i.qualified_name, v.embedding_text FROM versions v JOIN identities i ON i.id = v.identity_id"))


def _embedding_count(ws: Workspace) -> int:
    return ws.store.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]


def test_a_new_index_records_the_recipe(repo, tmp_path):
    ws = Workspace(repo.path, tmp_path / "index")
    report = ws.index(["main"])
    assert ws.store.meta(recipe.META_KEY) == recipe.recipe_id(ws.config.path_weight)
    assert report.recipe_change is None


def test_a_changed_text_recipe_re_embeds_once(repo, tmp_path, monkeypatch):
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main"])
    before, count = _texts(ws), _embedding_count(ws)
    ws.close()

    original = embedding_text.compose
    monkeypatch.setattr(embedding_text, "TEXT_RECIPE", "test-recipe-2")
    monkeypatch.setattr(embedding_text, "compose", lambda *a, **k: "recipe two\n" + original(*a, **k))
    ws = Workspace(repo.path, tmp_path / "index")
    change = ws.index(["main"]).recipe_change
    assert change is not None and change.versions == len(before)
    assert change.reembedded == len(before)  # every symbol text is new; the path texts are cached
    assert "test-recipe-2" in change.message() and "texts embedded once" in change.message()
    after = _texts(ws)
    assert set(after) == set(before)
    assert all(after[name] == "recipe two\n" + before[name] for name in before)  # containers keep their outline
    assert _embedding_count(ws) == count + len(before)
    [first, *_] = ws.search(SearchRequest("cancel order", "main", top_k=3, mode="dense"))
    assert first.identity.qualified_name == "OrderService.cancel_order"
    assert ws.index(["main"]).recipe_change is None  # once


def test_an_index_from_before_recipes_counts_as_the_legacy_recipe(repo, tmp_path):
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main"])
    ws.store.conn.execute("DELETE FROM meta WHERE key = ?", (recipe.META_KEY,))
    assert recipe.stored_recipe(ws.store) == recipe.recipe_id(0.25, recipe.LEGACY_TEXT_RECIPE)


def test_a_changed_path_weight_rebuilds_vectors_without_embedding(repo, tmp_path):
    index = tmp_path / "index"
    ws = Workspace(repo.path, index)
    ws.index(["main"])
    count, generation = _embedding_count(ws), ws.store.generation()
    ws.close()
    (index / "config.toml").write_text("path_weight = 0.0\n")
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--branch", "main",
         "--index", str(index), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "embedding recipe changed" in out.stderr and "nothing re-embedded" in out.stderr
    change = json.loads(out.stdout)["embedding_recipe_change"]
    assert change["reembedded"] == 0 and change["current"].endswith("path weight 0")
    ws = Workspace(repo.path, index)
    assert _embedding_count(ws) == count
    assert ws.store.generation() > generation
    results = ws.search(SearchRequest("total price of items", "main", top_k=3, mode="dense"))
    assert results[0].identity.qualified_name == "total_price"


def test_a_new_model_identity_re_embeds_once_and_says_so(repo, tmp_path, monkeypatch):
    """A new default model (or another `model` setting) is a one-time re-embedding with a message."""
    index = tmp_path / "index"
    cli = [sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--branch", "main",
           "--index", str(index), "--json"]
    first = subprocess.run(cli, capture_output=True, text=True)
    assert first.returncode == 0 and "embedding model changed" not in first.stderr
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-256")
    out = subprocess.run(cli, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "embedding model changed (hashing-384 -> hashing-256)" in out.stderr
    change = json.loads(out.stdout)["embedding_model_change"]
    assert change["previous"] == "hashing-384" and change["current"] == "hashing-256" and change["reembedded"] > 0
    again = subprocess.run(cli, capture_output=True, text=True)
    assert again.returncode == 0 and "embedding model changed" not in again.stderr  # once
    assert "embedding_model_change" not in json.loads(again.stdout)
    ws = Workspace(repo.path, index)
    assert ws.embedder.name == "hashing-256"
    assert ws.search(SearchRequest("total price of items", "main", top_k=3, mode="dense"))


def test_an_index_made_with_a_model_this_installation_lacks_asks_for_one_index_run(repo, tmp_path):
    """A release that stops shipping the previous default model: searches say in one line what
    to do (no traceback, no download attempt), and one `index` re-embeds with the configured model."""
    index = tmp_path / "index"
    ws = Workspace(repo.path, index)
    ws.index(["main"])
    with ws.store.transaction():
        ws.store.set_meta("embedding_model", "branchwise-code-v0+onnx-int8")  # shipped by no release here
    ws.close()
    search = [sys.executable, "-m", "branchwise_cli", "search", "total price", "--repo", str(repo.path),
              "--branch", "main", "--index", str(index)]
    refused = subprocess.run(search, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "embedded with branchwise-code-v0" in refused.stderr and "branchwise index" in refused.stderr
    reindex = subprocess.run([sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--branch", "main",
                              "--index", str(index)], capture_output=True, text=True)
    assert reindex.returncode == 0, reindex.stderr
    assert "embedding model changed (branchwise-code-v0+onnx-int8 -> hashing-384)" in reindex.stderr
    answered = subprocess.run(search, capture_output=True, text=True)
    assert answered.returncode == 0 and "total_price" in answered.stdout, answered.stderr


def test_an_index_keyed_before_outlines_is_re_keyed_once(repo, tmp_path, monkeypatch):
    """An index whose classes were keyed by all their lines (methods included): the recipe change
    gives them their outline key, merges the versions that differed in method bodies only, and
    keeps labels, live sets and verification right."""
    from branchwise.chunking import chunker
    from branchwise.models import Label, Verdict

    repo.branch("faster", "main")
    repo.checkout("faster")
    repo.write("shop/orders.py", ORDERS.replace('order.status = "cancelled"', 'order.cancel()'))
    repo.commit("cancel through the order")
    repo.checkout("main")
    with monkeypatch.context() as old:
        old.setattr(embedding_text, "TEXT_RECIPE", "outline-1")
        old.setattr(chunker._FileChunker, "_key_by_outline", lambda self, container, chunks: None)
        ws = Workspace(repo.path, tmp_path / "index")
        ws.index(["main", "faster"])
        classes = lambda: ws.store.conn.execute(  # noqa: E731
            "SELECT count(*) FROM versions v JOIN identities i ON i.id = v.identity_id "
            "WHERE i.qualified_name = 'OrderService'").fetchone()[0]
        assert classes() == 2
        [service] = [r for r in ws.search(SearchRequest("order service", "faster", top_k=10, mode="lexical"))
                     if r.identity.qualified_name == "OrderService"]
        ws.review.set_label(service, Label.USE)
        ws.close()

    ws = Workspace(repo.path, tmp_path / "index")
    change = ws.index(["main", "faster"]).recipe_change
    assert change is not None and (change.rekeyed, change.merged) == (2, 1)
    assert "keyed by their outline" in change.message()
    assert classes() == 1
    hashes = [{r["qualified_name"]: r["content_hash"] for r in ws.inspect(b)} for b in ("main", "faster")]
    assert hashes[0]["OrderService"] == hashes[1]["OrderService"]
    for branch, body in (("main", 'order.status = "cancelled"'), ("faster", "order.cancel()")):
        [service] = [r for r in ws.search(SearchRequest("order service", branch, top_k=10, mode="lexical"))
                     if r.identity.qualified_name == "OrderService"]
        assert body in service.text and service.verdict is Verdict.CURRENT, service.reason
        assert service.label is Label.USE
    assert ws.index(["main", "faster"]).recipe_change is None  # once
