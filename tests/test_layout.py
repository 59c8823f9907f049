"""The house's shape holds (issue 50): the core's top floor stays small, every layer has a
face, no module grows past what a reader takes in at once, the facade and the review app
stay thin, and the benchmark record holds only what is cited plus the dated full runs.

The arrows between the layers are checked by the import-linter contracts in pyproject.toml
(tests/test_architecture.py runs them); this file checks what an import graph cannot see.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core" / "branchwise"
LAYERS = ("git", "index", "search", "verify", "review", "store", "backends", "chunking", "embedding", "mcp_server")
#: generated tables, not written by hand
GENERATED = {"core/branchwise/review/bundle/o200k_classes.py"}
RESULTS = ROOT / "bench" / "results"
#: where a benchmark result is cited for readers
CITERS = [ROOT / "README.md", ROOT / "train" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def tracked(pattern: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", pattern], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / line for line in out.split()]


def test_the_core_top_floor_holds_at_most_fifteen_modules():
    top = sorted(p.name for p in CORE.glob("*.py"))
    assert len(top) <= 15, top


def test_every_layer_is_a_folder_whose_face_says_what_it_offers():
    for layer in LAYERS:
        face = CORE / layer / "__init__.py"
        text = face.read_text(encoding="utf-8")
        assert text.startswith('"""') and len(text.split('"""')[1].split()) >= 20, f"{layer}/__init__.py says too little"


def test_no_module_is_over_five_hundred_lines():
    long = {str(p.relative_to(ROOT)): n for p in tracked("*.py")
            if str(p.relative_to(ROOT)) not in GENERATED and not str(p.relative_to(ROOT)).startswith("sample_repos/")
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert long == {}


def test_the_facade_and_the_review_app_stay_thin():
    assert len((CORE / "workspace.py").read_text().splitlines()) <= 300
    assert len((ROOT / "tui" / "branchwise_tui" / "app.py").read_text().splitlines()) <= 350


def cited_results() -> set[str]:
    """Every bench/results file that the README, train/README.md or docs/ name."""
    names = set()
    for citer in CITERS:
        names |= set(re.findall(r"bench/results/([\w./-]+\.(?:md|json))", citer.read_text(encoding="utf-8")))
        names |= {f"{stem}.md" for stem in re.findall(r"`(20\d\d-\d\d-\d\d-[\w-]+?)(?:\.md)?`", citer.read_text())
                  if (RESULTS / f"{stem}.md").exists() or not (RESULTS / f"{stem}.json").exists()}
    return names


def test_every_cited_result_exists():
    missing = sorted(name for name in cited_results() if not (RESULTS / name).exists()
                     and not (RESULTS / name.replace(".md", ".json")).exists())
    assert missing == []


def test_the_results_top_level_holds_what_is_cited_and_the_dated_full_runs():
    """Everything else is in archive/ (its README lists each run): a run nobody cites is one
    of many one-off measurements, not part of the record a reader is sent to."""
    corpus = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                       for p in [*CITERS, RESULTS / "README.md", *tracked("*.py")])
    stray = [p.name for p in sorted(RESULTS.iterdir())
             if p.is_file() and p.name not in ("README.md", "latest.md", "latest.json")
             and not re.search(r"-full\.(md|json)$", p.name) and p.name.rsplit(".", 1)[0] not in corpus]
    assert stray == []
    archived = {p.name.rsplit(".", 1)[0] for p in (RESULTS / "archive").iterdir() if p.name != "README.md"}
    index = (RESULTS / "archive" / "README.md").read_text(encoding="utf-8")
    assert all(f"`{stem}`" in index for stem in archived)
