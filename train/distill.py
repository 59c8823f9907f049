"""Distilling the shipped encoder into a static embedding, the Model2Vec way.

Every token of the encoder's vocabulary goes through the encoder once; the token vectors are
reduced by PCA and weighted by a frequency prior (SIF), so that a text's vector is the mean of
its tokens' vectors: embedding costs a table lookup, and `index` can give every version a dense
vector in the same pass as parsing (issue 47). `model2vec` does the distillation from the local
folder (nothing is downloaded); the product reads the result with numpy and the `tokenizers`
package alone (core/branchwise/embedding/static_model.py).

The shipped folder holds `model.safetensors` (one fp16 matrix, `embeddings`: a row per token),
`tokenizer.json` (model2vec's copy of the encoder's, which the runtime must use), `config.json`
(model2vec's, so `StaticModel.from_pretrained` reads the folder too), `training.json` (the
recipe) and `files.json` (sha256 and size of every file, as ship.py writes it).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
from pathlib import Path

#: the distillation's settings, recorded in training.json
PCA_DIMS = 256
#: model2vec's default SIF weighting: a token's vector scaled by sif / (sif + its frequency prior)
SIF_COEFFICIENT = 1e-4
#: the files model2vec writes that the product needs (its README is a generated model card)
KEPT = ("model.safetensors", "tokenizer.json", "config.json")


def distill_model(encoder: Path, target: Path, pca_dims: int = PCA_DIMS,
                  sif_coefficient: float = SIF_COEFFICIENT) -> dict:
    """Replace `target` with the static model distilled from the encoder folder `encoder`;
    returns its files manifest."""
    import model2vec
    from model2vec.distill import distill

    from branchwise.embedding.location import SHIPPED_MANIFEST
    from train.ship import put_in_place

    began = time.perf_counter()
    model = distill(model_name=str(encoder), pca_dims=pca_dims, sif_coefficient=sif_coefficient,
                    quantize_to="float16")
    seconds = time.perf_counter() - began
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        saved = work / "saved"
        model.save_pretrained(str(saved))
        folder = work / "model"
        folder.mkdir()
        for name in KEPT:
            shutil.copy2(saved / name, folder / name)
        config = json.loads((folder / "config.json").read_text())
        config["tokenizer_name"] = encoder.name  # not the build machine's path
        (folder / "config.json").write_text(json.dumps(config, indent=4) + "\n")
        encoder_files = json.loads((encoder / SHIPPED_MANIFEST).read_text())["files"]
        training = {
            "method": "model2vec distillation: every vocabulary token through the encoder, PCA, SIF weighting",
            "base": encoder.name,
            "base_sha256": {name: encoder_files[name]["sha256"] for name in ("model.safetensors", "tokenizer.json")},
            "pca_dims": pca_dims,
            "sif_coefficient": sif_coefficient,
            "dtype": "float16",
            "vocabulary": int(model.embedding.shape[0]),
            "dim": int(model.embedding.shape[1]),
            "pooling": "mean of the token vectors, L2-normalised",
            "max_length": model.max_length,
            "median_token_length": int(model.median_token_length),
            "model2vec": model2vec.__version__,
            "digest": hashlib.sha256(model.embedding.tobytes()).hexdigest(),
            "seconds": round(seconds, 1),
            "command": "python -m train distill",
        }
        (folder / "training.json").write_text(json.dumps(training, indent=1) + "\n")
        return put_in_place(folder, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
