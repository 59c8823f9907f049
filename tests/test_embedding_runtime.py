"""Embedding runtimes: the int8 ONNX export against the torch reference, identities, batching,
and an index that re-embeds when its model identity changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gittools import GitBuilder

from branchwise.config import Config
from branchwise.embedding import DEFAULT_MODEL, get_embedder, model_identity
from branchwise.embedding.location import BASE_MODEL
from branchwise.embedding.onnx_export import MANIFEST, MODEL_FILE, ensure_export, export_dir
from branchwise.embedding.onnx_model import OnnxEmbedder
from branchwise.errors import UsageError
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

CODE = [
    "def cancel_order(order_id):\n    \"\"\"Cancel an order once; a second call does nothing.\"\"\"",
    "func (c *Command) ExecuteC() (cmd *Command, err error)",
    "class RetryPolicy:\n    max_attempts: int\n    backoff_seconds: float",
    "src orders services order service",
    "x",
]


def test_identities_name_their_runtime_and_bad_runtimes_are_usage_errors(tmp_path):
    assert model_identity(DEFAULT_MODEL, "torch") == DEFAULT_MODEL
    assert model_identity(DEFAULT_MODEL, "onnx-int8") == f"{DEFAULT_MODEL}+onnx-int8"
    assert model_identity("hashing-384", "onnx-int8") == "hashing-384"
    assert isinstance(get_embedder(f"{DEFAULT_MODEL}+onnx-int8"), OnnxEmbedder)
    with pytest.raises(UsageError, match="unknown embedding runtime"):
        get_embedder(f"{DEFAULT_MODEL}+gguf")
    (tmp_path / "config.toml").write_text('runtime = "tensorrt"\n')
    with pytest.raises(UsageError, match="unknown embedding runtime 'tensorrt'"):
        Config.resolve(tmp_path, environ={})
    (tmp_path / "config.toml").write_text('runtime = "torch"\n')
    assert Config.resolve(tmp_path, environ={}).model_identity == DEFAULT_MODEL
    assert Config.resolve(tmp_path, environ={"BRANCHWISE_RUNTIME": "onnx-int8"}).runtime == "onnx-int8"


@pytest.mark.model
def test_onnx_vectors_match_the_torch_reference_closely():
    fast = get_embedder(model_identity(DEFAULT_MODEL, "onnx-int8")).embed(CODE)
    reference = get_embedder(model_identity(DEFAULT_MODEL, "torch")).embed(CODE)
    assert fast.shape == reference.shape == (len(CODE), 384) and fast.dtype == np.float32
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    cosine = np.sum(fast * reference, axis=1)
    assert cosine.min() > 0.97, cosine
    # a text's vector depends on the text only, not on what else is embedded with it
    alone = get_embedder(model_identity(DEFAULT_MODEL, "onnx-int8")).embed(CODE[:1])
    assert np.allclose(alone[0], fast[0], atol=1e-6)


@pytest.mark.model
def test_texts_embedded_side_by_side_get_the_vectors_they_get_one_by_one(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_THREADS", "2")
    shipped = get_embedder(model_identity(DEFAULT_MODEL, "onnx-int8"))
    side_by_side = OnnxEmbedder(shipped.model, shipped.name)
    one_by_one = OnnxEmbedder(shipped.model, shipped.name, side_by_side=False)
    texts = CODE * 3
    together = side_by_side.embed(texts)
    assert side_by_side._pool is not None  # the texts really ran on two workers
    assert np.array_equal(together, one_by_one.embed(texts))
    assert np.array_equal(together[::-1], side_by_side.embed(texts[::-1]))


@pytest.mark.model
def _embed_in_a_fresh_interpreter(identity: str, cache: Path) -> list[str]:
    script = ("import sys; from branchwise.embedding import get_embedder; "
              f"v = get_embedder({identity!r}).embed(['open a file']); "
              "print(v.shape[1], 'torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1",
                               "BRANCHWISE_CACHE_DIR": str(cache)})
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_shipped_model_never_imports_torch_even_with_an_empty_cache(tmp_path):
    # the default model carries its own int8 export: nothing is made at run time
    identity = model_identity(DEFAULT_MODEL, "onnx-int8")
    assert _embed_in_a_fresh_interpreter(identity, tmp_path / "cache") == ["384", "False", "False"]


@pytest.mark.model
def test_an_exported_base_model_embeds_without_torch(tmp_path, monkeypatch):
    # the base model has no shipped export: torch makes it once, then it is never needed again
    cache = tmp_path / "cache"
    monkeypatch.setenv("BRANCHWISE_CACHE_DIR", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ensure_export(BASE_MODEL)
    identity = model_identity(BASE_MODEL, "onnx-int8")
    assert _embed_in_a_fresh_interpreter(identity, cache) == ["384", "False", "False"]


@pytest.mark.model
def test_export_is_made_offline_into_the_cache_directory_once(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # the base model ships no export of its own (the default model does: test_shipped_model.py)
    folder = ensure_export(BASE_MODEL)
    assert folder == export_dir(BASE_MODEL) and folder.is_relative_to(tmp_path / "cache")
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["max_seq_length"] == 256 and manifest["pooling"] == "mean" and manifest["dim"] == 384
    made = (folder / MODEL_FILE).stat().st_mtime_ns
    assert ensure_export(BASE_MODEL) == folder and (folder / MODEL_FILE).stat().st_mtime_ns == made
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".export-")]  # no leftovers


def _repo(tmp_path: Path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "repo")
    builder.write("src/orders.py", "def cancel_order(order):\n    return order\n\n\n"
                                   "def refund_payment(payment):\n    return payment\n")
    builder.write("src/users.py", "class Account:\n    def close(self):\n        pass\n")
    builder.commit("first")
    return builder


def test_a_new_model_identity_re_embeds_every_version(tmp_path, monkeypatch):
    repo = _repo(tmp_path)
    index = tmp_path / "index"
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    first = Workspace(repo.path, index)
    first.index(["main"])
    versions = first.store.conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    first.close()

    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-256")
    reader = Workspace(repo.path, index)
    assert reader.embedder.name == "hashing-384"  # answers with the identity of its vectors until re-indexed
    assert reader.search(SearchRequest("cancel order", "main", mode="dense"))
    reader.close()

    writer = Workspace(repo.path, index)
    report = writer.index(["main"])
    assert report[0].base == "up to date"
    conn = writer.store.conn
    assert writer.store.meta("embedding_model") == "hashing-256"
    missing = conn.execute(
        "SELECT count(*) FROM versions v WHERE NOT EXISTS (SELECT 1 FROM embeddings e "
        "WHERE e.model = 'hashing-256' AND e.key = v.embed_key)").fetchone()[0]
    assert versions > 0 and missing == 0
    assert writer.embedder.name == "hashing-256" and writer.embedder.dim == 256
    results = writer.search(SearchRequest("cancel order", "main", mode="dense"))
    assert results and results[0].identity.qualified_name == "cancel_order"
    assert (index / "vectors-hashing-256.faiss").exists()
    writer.close()


def test_index_json_reports_rate_and_embedding_time(tmp_path):
    repo = _repo(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--index", str(tmp_path / "i"), "--json"],
        capture_output=True, text=True, env={**os.environ, "BRANCHWISE_MODEL": "hashing-384"})
    assert out.returncode == 0, out.stderr
    branch = json.loads(out.stdout)["branches"][0]
    assert branch["symbols_parsed"] == 4  # cancel_order, refund_payment, Account, Account.close
    assert 0 <= branch["embed_seconds"] <= branch["seconds"]  # the hashing embedder takes well under 1 ms
    assert branch["symbols_per_second"] == pytest.approx(4 / branch["seconds"], rel=0.05)


def test_export_settings_read_both_sentence_transformers_formats(tmp_path):
    from branchwise.embedding.onnx_export import _sentence_settings
    from branchwise.errors import BranchwiseError

    def model(pooling: dict, bert: dict, tokenizer: dict) -> Path:
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        (folder / "1_Pooling").mkdir(parents=True)
        (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
        (folder / "sentence_bert_config.json").write_text(json.dumps(bert))
        (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer))
        (folder / "config.json").write_text(json.dumps({"hidden_size": 384}))
        return folder

    old = model({"word_embedding_dimension": 384, "pooling_mode_mean_tokens": True}, {"max_seq_length": 256}, {})
    # sentence-transformers 6: one `pooling_mode`, the length kept by the tokenizer
    new = model({"embedding_dimension": 384, "pooling_mode": "mean", "include_prompt": True},
                {"transformer_task": "feature-extraction"}, {"model_max_length": 200, "max_length": 128})
    assert _sentence_settings(old)["max_seq_length"] == 256
    assert _sentence_settings(new) == {"max_seq_length": 200, "pooling": "mean", "normalize": True, "dim": 384}
    for pooling in ({"pooling_mode": "cls"}, {"pooling_mode": ["mean", "max"]},
                    {"pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": True}):
        with pytest.raises(BranchwiseError, match="mean-pooling models only"):
            _sentence_settings(model(pooling, {}, {}))
