"""The core stays usable without the UI, and model-free commands start without torch."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE_MODULES = [
    p.relative_to(ROOT / "core").with_suffix("").as_posix().replace("/", ".")
    for p in sorted((ROOT / "core" / "branchwise").rglob("*.py"))
    if p.name != "__main__.py"
]


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print('\\n'.join(sys.modules))"],
        capture_output=True, text=True, check=True,
    ).stdout
    return set(out.split())


def test_importing_every_core_module_never_imports_textual():
    imports = "\n".join(f"import {name}" for name in CORE_MODULES)
    loaded = _loaded_after(imports)
    assert "textual" not in loaded
    assert "branchwise_tui" not in loaded


def test_model_free_commands_do_not_import_torch():
    loaded = _loaded_after("import branchwise.cli, branchwise.commands, branchwise.workspace")
    assert "torch" not in loaded
    assert "sentence_transformers" not in loaded


def test_import_linter_contract_holds():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
