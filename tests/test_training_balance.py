"""`python -m train balance`: one training set from several corpora, at most N pairs a language."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def corpus(folder: Path, manifest: dict, sources: list[str]) -> Path:
    folder.mkdir(parents=True)
    (folder / "data-manifest.json").write_text(json.dumps(manifest))
    (folder / "pairs.jsonl").write_text("".join(json.dumps({"query": f"q{i}", "code": f"c{i} {s}", "source": s,
                                                            "negative": "n"}) + "\n" for i, s in enumerate(sources)))
    return folder


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "train", *args], cwd=ROOT, capture_output=True, text=True)


def test_each_language_gives_at_most_n_pairs_and_the_manifest_says_so(tmp_path):
    stdlib = corpus(tmp_path / "std", {"sources": [{"name": "python-stdlib", "language": "python"},
                                                   {"name": "go-stdlib", "language": "go"}]},
                    ["python-stdlib"] * 30 + ["go-stdlib"] * 4)
    debian = corpus(tmp_path / "deb", {"packages": [{"package": "python3-six", "language": "python"},
                                                    {"package": "lua-json", "language": "lua"}],
                                       "files": [{"source": "debian:lua-json", "path": "json.lua", "sha256": "0"}]},
                    ["debian:python3-six"] * 5 + ["debian:lua-json"] * 2)
    out = balance("--work", str(tmp_path / "set"), "balance", "--from", str(stdlib), "--from", str(debian),
                  "--per-language", "10")
    assert out.returncode == 0, out.stderr
    manifest = json.loads((tmp_path / "set" / "data-manifest.json").read_text())
    assert manifest["languages"] == {"go": {"available": 4, "taken": 4}, "lua": {"available": 2, "taken": 2},
                                     "python": {"available": 35, "taken": 10}}
    pairs = [json.loads(line) for line in (tmp_path / "set" / "pairs.jsonl").read_text().splitlines()]
    assert len(pairs) == manifest["pairs"] == 16 and manifest["files"][0]["path"] == "json.lua"
    again = balance("--work", str(tmp_path / "again"), "balance", "--from", str(stdlib), "--from", str(debian),
                    "--per-language", "10")
    assert again.returncode == 0 and (tmp_path / "again" / "pairs.jsonl").read_text() == \
        (tmp_path / "set" / "pairs.jsonl").read_text()  # seeded: the same set every time


def test_a_source_without_a_language_or_a_missing_corpus_is_one_line(tmp_path):
    odd = corpus(tmp_path / "odd", {"sources": []}, ["mystery"])
    out = balance("--work", str(tmp_path / "set"), "balance", "--from", str(odd))
    assert out.returncode == 2 and "no language for source 'mystery'" in out.stderr and "Traceback" not in out.stderr
    out = balance("--work", str(tmp_path / "set"), "balance", "--from", str(tmp_path / "nothing"))
    assert out.returncode == 2 and "holds no mined corpus" in out.stderr and "Traceback" not in out.stderr
