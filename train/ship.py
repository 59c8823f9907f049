"""Writing a trained model into the package, the way the product loads it.

The folder `core/branchwise/embedding/models/<name>/` holds everything both runtimes read,
so the default model needs no export step, no download and, on the ONNX runtime, no torch:

- `model-int8.onnx`, `export.json`, `tokenizer.json`: the int8 ONNX graph made by the
  product's own exporter (embedding/onnx_export.py) and what the ONNX runtime reads;
- `model.safetensors` (fp16, half the fp32 size; loaded as fp32), `config.json`, the
  sentence-transformers module files and tokenizer files: the torch runtime's model;
- `training.json`: the recipe, the data manifest's digest and the training log;
- `files.json`: the sha256 and size of every file above (tests check the shipped files
  against it).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

#: what sentence-transformers saved besides the weights and its generated model card
NOT_COPIED = ("model.safetensors", "README.md")


def ship(trained: Path, target: Path, training: dict) -> dict:
    """Replace `target` with the shipped form of the sentence-transformers model in `trained`."""
    from branchwise.embedding.onnx_export import _export

    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        onnx_dir = work / "onnx"
        _export(trained, onnx_dir)
        folder = work / "model"
        folder.mkdir()
        for name in ("model-int8.onnx", "tokenizer.json", "export.json"):
            shutil.copy2(onnx_dir / name, folder / name)
        export = json.loads((folder / "export.json").read_text())
        export["source"] = target.name  # not the build machine's path
        (folder / "export.json").write_text(json.dumps(export, indent=1) + "\n")
        for path in sorted(trained.rglob("*")):
            relative = path.relative_to(trained)
            if path.is_dir():
                (folder / relative).mkdir(parents=True, exist_ok=True)
            elif relative.as_posix() not in NOT_COPIED and not (folder / relative).exists():
                shutil.copy2(path, folder / relative)
        _half_weights(trained / "model.safetensors", folder / "model.safetensors")
        config = json.loads((folder / "config.json").read_text())
        config["dtype"] = "float32"  # run in fp32; the file stores fp16 to halve its size
        config.pop("torch_dtype", None)
        (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        (folder / "training.json").write_text(json.dumps(training, indent=1) + "\n")
        return put_in_place(folder, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def put_in_place(folder: Path, target: Path) -> dict:
    """Write `folder`'s files manifest (sha256 and size of every file), then replace `target`
    with it; returns the manifest."""
    from branchwise.embedding.location import SHIPPED_MANIFEST

    files = {p.relative_to(folder).as_posix(): {"sha256": sha256_of(p), "bytes": p.stat().st_size}
             for p in sorted(folder.rglob("*")) if p.is_file()}
    manifest = {"name": target.name, "files": files}
    (folder / SHIPPED_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    if target.exists():
        shutil.rmtree(target)
    folder.rename(target)
    return manifest


def _half_weights(source: Path, out: Path) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(source))
    save_file({k: (v.to(torch.float16) if v.is_floating_point() else v).contiguous() for k, v in tensors.items()},
              str(out), metadata={"format": "pt"})


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
