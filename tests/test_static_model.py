"""The static stage (issue 47): the distilled model ships with its hashes, embeds as model2vec
does without model2vec or torch, is embedded by `index` in the same pass, and answers alone
(no ONNX session) before the transformer stage has run."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from branchwise.config import Config
from branchwise.embedding import DEFAULT_MODEL, static_companion
from branchwise.embedding.location import SHIPPED_MANIFEST, SHIPPED_MODELS_DIR, shipped_models
from branchwise.embedding.static_model import StaticEmbedder
from branchwise.errors import UsageError
from branchwise.index import run
from branchwise.search.hybrid import SearchRequest
from branchwise.search.question_shape import shape_of
from branchwise.workspace import Workspace
from branchwise_cli.main import main as cli
from test_background_embedding import review_status_after_search

STATIC = f"{DEFAULT_MODEL}-static"
TEXTS = ["def parse_args(argv):\n    return parser.parse_args(argv)", "how are two options kept exclusive",
         "Refund a payment to the customer's card", "", "héllo wörld 中文 😀 " * 300]


def test_the_static_model_ships_and_its_files_match_their_manifest():
    assert STATIC in shipped_models() and static_companion(DEFAULT_MODEL) == STATIC
    folder = SHIPPED_MODELS_DIR / STATIC
    manifest = json.loads((folder / SHIPPED_MANIFEST).read_text())
    on_disk = {p.name for p in folder.iterdir() if p.is_file()} - {SHIPPED_MANIFEST}
    assert set(manifest["files"]) == on_disk == {"model.safetensors", "tokenizer.json", "config.json", "training.json"}
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (entry["sha256"], entry["bytes"]), name
    assert sum(entry["bytes"] for entry in manifest["files"].values()) <= 16_500_000
    training = json.loads((folder / "training.json").read_text())
    assert (training["base"], training["pca_dims"], training["dtype"]) == (DEFAULT_MODEL, 256, "float16")
    encoder = json.loads((SHIPPED_MODELS_DIR / DEFAULT_MODEL / SHIPPED_MANIFEST).read_text())["files"]
    assert training["base_sha256"]["model.safetensors"] == encoder["model.safetensors"]["sha256"]


def test_static_vectors_are_unit_vectors_and_need_neither_model2vec_nor_torch():
    code = ("import sys; from branchwise.embedding import get_embedder; "
            f"v = get_embedder({STATIC!r}).embed(['def parse_args(argv): pass']); "
            "print(v.shape, round(float((v * v).sum()), 4), "
            "any(m in sys.modules for m in ('torch', 'model2vec', 'onnxruntime', 'transformers')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(1, 256) 1.0 False"


def test_static_vectors_equal_model2vec_s_own():
    model2vec = pytest.importorskip("model2vec")
    reference = model2vec.StaticModel.from_pretrained(str(SHIPPED_MODELS_DIR / STATIC))
    ours = StaticEmbedder(STATIC).embed(TEXTS)
    theirs = reference.encode(TEXTS)
    assert np.abs(ours - theirs).max() < 2e-3  # theirs sums in fp16


def test_a_large_run_s_plain_tokenizer_gives_the_same_ids_and_vectors(monkeypatch):
    """Past `PLAIN_FROM_CHARS` an index run tokenizes plain ASCII texts without BERT's normaliser:
    the ids, and the vectors bit for bit, are those of the full tokenizer, texts with control
    characters, accents or other scripts (which keep it) included."""
    from branchwise.embedding import static_model

    texts = TEXTS + ["Tab\there\x0cform\x0bfeed", "Ctl\x01A\x7fB x", "Café naïve", "[UNK] [PAD] Hello",
                     "\r\nCRLF\r\n", "ÄÖÜ straße", "ＦＵＬＬ width", "class OrderAPIClient(BaseHTTP_Client):  # x"]
    full = StaticEmbedder(STATIC)
    expected = full.embed(texts)
    assert full._plain is None  # a few texts never load the copy
    monkeypatch.setattr(static_model, "PLAIN_FROM_CHARS", 0)
    plain = StaticEmbedder(STATIC)
    got = plain.embed(texts)
    assert plain._plain and np.array_equal(got.view(np.uint32), expected.view(np.uint32))
    assert plain._token_ids(texts) == [e.ids for e in full._tokenizer.encode_batch(texts, add_special_tokens=False)]


def test_a_static_model_setting_is_checked(tmp_path):
    assert Config(static_model="none").static_identity is None
    assert Config(model="hashing-384").static_identity is None
    assert Config(transformer=False).model_identity == STATIC
    with pytest.raises(UsageError):
        Config(model="hashing-384", transformer=False).model_identity
    (tmp_path / "config.toml").write_text('static_model = "all-MiniLM-L6-v2"\n')
    with pytest.raises(UsageError, match="not a static model"):
        Config.resolve(tmp_path, environ={})


@pytest.fixture
def static_on_hashing(monkeypatch):
    """The hashing stand-in as the transformer, the shipped static model as the first stage."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    monkeypatch.setenv("BRANCHWISE_STATIC_MODEL", STATIC)


def test_index_embeds_every_version_with_the_static_model_in_the_same_pass(static_on_hashing, shop_repo,
                                                                            tmp_path, monkeypatch):
    monkeypatch.setattr(run, "_embedding_stage", lambda *args, **kwargs: None)  # no transformer stage
    ws = Workspace(shop_repo, tmp_path / "index")
    report = ws.index([])
    assert report.embedding["static"]["model"] == STATIC and report.embedding["static"]["embedded"] > 0
    branch = ws.repo.current_branch()
    static, dense = ws.static_coverage(branch), ws.dense_coverage(branch)
    assert static.complete and static.total > 0
    assert dense.embedded == 0
    assert dense.to_json()["static"]["complete"] and "static stage complete" in dense.line()
    assert "(transformer stage)" in dense.line()
    results = ws.search(SearchRequest("refund a payment", branch, top_k=5))
    assert any(r.static_rank is not None for r in results)
    assert all(r.dense_rank is None for r in results)
    only = ws.search(SearchRequest("refund a payment", branch, top_k=5, mode="static"))
    assert only and all(r.static_rank is not None and r.lexical_rank is None for r in only)

    # the review app says both stages, as `search` and `status` do
    status = review_status_after_search(Workspace(shop_repo, tmp_path / "index"), branch, "refund a payment")
    assert "dense coverage 0% (static complete)" in status


def test_the_transformer_replaces_the_static_stage_once_it_has_embedded_the_branch(static_on_hashing, shop_repo,
                                                                                  tmp_path):
    ws = Workspace(shop_repo, tmp_path / "index")
    ws.index([])
    branch = ws.repo.current_branch()
    assert ws.dense_coverage(branch).complete
    results = ws.search(SearchRequest("refund a payment", branch, top_k=5))
    assert results and all(r.static_rank is None for r in results)
    assert any(r.dense_rank is not None for r in results)


@pytest.fixture
def on_qdrant(tmp_path, monkeypatch):
    """The qdrant backend in local mode, in a folder of the test's own."""
    from branchwise.backends.qdrant import close_clients

    where = tmp_path / "qdrant"
    monkeypatch.setenv("BRANCHWISE_BACKEND", "qdrant")
    monkeypatch.setenv("BRANCHWISE_QDRANT_PATH", str(where))
    yield
    close_clients(str(where))


def test_the_qdrant_backend_answers_from_the_static_stage_until_the_transformer_lands(static_on_hashing, on_qdrant,
                                                                                      shop_repo, tmp_path, monkeypatch):
    transformer_stage = run._embedding_stage
    monkeypatch.setattr(run, "_embedding_stage", lambda *args, **kwargs: None)
    ws = Workspace(shop_repo, tmp_path / "index")
    ws.index([])
    branch = ws.repo.current_branch()
    assert ws.static_embedder is not None and ws.static_coverage(branch).complete
    dense = ws.dense_coverage(branch)
    assert dense.embedded == 0 and dense.total > 0 and "static stage complete" in dense.line()
    results = ws.search(SearchRequest("refund a payment", branch, top_k=5))
    assert results and any(r.static_rank is not None for r in results) and all(r.dense_rank is None for r in results)
    monkeypatch.setattr(run, "_embedding_stage", transformer_stage)
    ws.index([])
    ws.reload()
    assert ws.dense_coverage(branch).complete
    results = ws.search(SearchRequest("refund a payment", branch, top_k=5))
    assert results and all(r.static_rank is None for r in results) and any(r.dense_rank is not None for r in results)


def test_a_qdrant_collection_made_without_the_static_stage_is_made_again_with_it(static_on_hashing, on_qdrant,
                                                                                shop_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_STATIC_MODEL", "none")
    Workspace(shop_repo, tmp_path / "index").index([])
    monkeypatch.setenv("BRANCHWISE_STATIC_MODEL", STATIC)
    ws = Workspace(shop_repo, tmp_path / "index")
    ws.index([])
    branch = ws.repo.current_branch()
    coverage = ws.dense_coverage(branch)
    assert coverage.complete and coverage.static is not None and coverage.static.complete
    only = ws.search(SearchRequest("refund a payment", branch, top_k=5, mode="static"))
    assert only and all(r.static_rank is not None for r in only)


@pytest.mark.model
def test_a_name_question_finds_the_same_first_result_before_and_after_the_transformer(shop_repo, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.delenv("BRANCHWISE_MODEL", raising=False)
    index = tmp_path / "index"
    with monkeypatch.context() as patched:
        patched.setattr(run, "_embedding_stage", lambda *args, **kwargs: None)
        early = Workspace(shop_repo, index)
        early.index([])
    branch = early.repo.current_branch()
    names = sorted({row["qualified_name"].rsplit(".", 1)[-1] for row in early.inspect(branch)
                    if row["symbol_type"] in ("function", "method", "class") and row["path_class"] == "source"})
    questions = [name for name in names if shape_of(name).bare][:6]  # names as a user types them
    assert len(questions) == 6
    assert early.dense_coverage(branch).embedded == 0 and early.static_coverage(branch).complete
    with monkeypatch.context() as patched:  # the transformer embeds no question while it has embedded nothing
        patched.setattr(early.embedder, "embed", lambda texts: pytest.fail(f"the transformer embedded {texts}"))
        before = [early.search(SearchRequest(q, branch, top_k=3))[0].identity for q in questions]
    early.close()
    later = Workspace(shop_repo, index)
    later.index([])
    assert later.dense_coverage(branch).complete
    after = [later.search(SearchRequest(q, branch, top_k=3))[0].identity for q in questions]
    assert before == after, list(zip(questions, before, after))


@pytest.mark.model
def test_transformer_off_makes_the_static_model_the_only_dense_stage(shop_repo, tmp_path, monkeypatch):
    monkeypatch.delenv("BRANCHWISE_MODEL", raising=False)
    index = tmp_path / "index"
    index.mkdir()
    (index / "config.toml").write_text("transformer = false\n")
    ws = Workspace(shop_repo, index)
    ws.index([])
    branch = ws.repo.current_branch()
    assert ws.embedder.name == STATIC and ws.static_embedder is None
    assert ws.dense_coverage(branch).complete
    assert ws.search(SearchRequest("refund a payment", branch, top_k=3))
    code = ("import sys; from branchwise.workspace import Workspace; from branchwise.search.hybrid import SearchRequest; "
            f"ws = Workspace({str(shop_repo)!r}, {str(index)!r}); "
            f"ws.search(SearchRequest('refund a payment', {branch!r}, top_k=3)); "
            "print('onnxruntime' in sys.modules, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False False"


def test_the_static_fields_of_search_json_are_in_its_schema(static_on_hashing, shop_repo, tmp_path, monkeypatch):
    """`static_rank` and the static stage's coverage are part of the JSON contract (docs/schema/):
    printed by `search --json` while the transformer stage is incomplete, and declared there."""
    monkeypatch.setattr(run, "_embedding_stage", lambda *args, **kwargs: None)  # the transformer stage left to do
    ws = Workspace(shop_repo, tmp_path / "index")
    ws.index([])
    branch = ws.repo.current_branch()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["search", "refund a payment", "--repo", str(shop_repo), "--index", str(tmp_path / "index"),
                    "--branch", branch, "--json", "--no-stats"]) == 0  # validated against the schema (conftest)
    answer = json.loads(out.getvalue())
    assert answer["dense_coverage"]["static"]["complete"] is True
    assert any(isinstance(r["static_rank"], int) for r in answer["results"])
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "schema" / "search.json").read_text())
    assert schema["properties"]["dense_coverage"]["properties"]["static"]["required"] == [
        "complete", "embedded", "share", "total"]
    assert schema["properties"]["results"]["items"]["properties"]["static_rank"]["type"] == ["integer", "null"]
