"""The default model ships inside the package: its files match their manifest, the ONNX
runtime reads them as they are (no export step, no torch), and the base model stays selectable."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from branchwise.config import Config
from branchwise.embedding import DEFAULT_MODEL, get_embedder, model_identity
from branchwise.embedding.location import BASE_MODEL, SHIPPED_MANIFEST, SHIPPED_MODELS_DIR, model_location, shipped_models
from branchwise.embedding.onnx_export import MANIFEST, MODEL_FILE, ensure_export


def test_the_default_model_is_shipped_and_its_files_match_their_manifest():
    assert DEFAULT_MODEL in shipped_models()
    folder = SHIPPED_MODELS_DIR / DEFAULT_MODEL
    manifest = json.loads((folder / SHIPPED_MANIFEST).read_text())
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {SHIPPED_MANIFEST}
    assert set(manifest["files"]) == on_disk
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (entry["sha256"], entry["bytes"]), name
    for needed in (MODEL_FILE, MANIFEST, "tokenizer.json", "model.safetensors", "config.json", "modules.json"):
        assert needed in manifest["files"]


def test_a_changed_byte_is_a_mismatch(tmp_path):
    folder = SHIPPED_MODELS_DIR / DEFAULT_MODEL
    manifest = json.loads((folder / SHIPPED_MANIFEST).read_text())
    data = bytearray((folder / MANIFEST).read_bytes())
    data[-2:-1] = b" " if data[-2:-1] != b" " else b"\n"
    assert hashlib.sha256(bytes(data)).hexdigest() != manifest["files"][MANIFEST]["sha256"]


def test_the_onnx_runtime_reads_the_shipped_export_without_exporting(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_CACHE_DIR", str(tmp_path / "cache"))
    assert ensure_export(DEFAULT_MODEL) == (SHIPPED_MODELS_DIR / DEFAULT_MODEL).resolve()
    assert not (tmp_path / "cache").exists()
    export = json.loads((SHIPPED_MODELS_DIR / DEFAULT_MODEL / MANIFEST).read_text())
    assert export["pooling"] == "mean" and export["dim"] == 384 and export["max_seq_length"] == 256


@pytest.mark.model
def test_the_shipped_model_embeds_without_torch_or_an_export_step(tmp_path):
    script = ("import sys, numpy as np; from branchwise.embedding import get_embedder; "
              f"v = get_embedder('{DEFAULT_MODEL}+onnx-int8').embed(['parse the command line flags']); "
              "print(v.shape[1], round(float(np.linalg.norm(v[0])), 3), 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "BRANCHWISE_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["384", "1.0", "False"]
    assert not list(tmp_path.iterdir())  # nothing exported into the cache


@pytest.mark.model
def test_the_shipped_model_is_not_the_base_model_and_its_runtimes_agree():
    texts = ["parse the command line flags", "func (c *Command) ExecuteC() (cmd *Command, err error)"]
    shipped = get_embedder(model_identity(DEFAULT_MODEL, "onnx-int8")).embed(texts)
    reference = get_embedder(model_identity(DEFAULT_MODEL, "torch")).embed(texts)  # the fp16 weights
    base = get_embedder(model_identity(BASE_MODEL, "onnx-int8")).embed(texts)
    assert np.sum(shipped * reference, axis=1).min() > 0.97
    assert np.sum(shipped * base, axis=1).max() < 0.99


def test_the_base_model_stays_selectable(tmp_path):
    (tmp_path / "config.toml").write_text(f'model = "{BASE_MODEL}"\n')
    assert Config.resolve(tmp_path, environ={}).model_identity == model_identity(BASE_MODEL)
    assert Config.resolve(tmp_path / "elsewhere", environ={}).model_identity == model_identity(DEFAULT_MODEL)
    assert str(model_location(BASE_MODEL)) != str(model_location(DEFAULT_MODEL))
