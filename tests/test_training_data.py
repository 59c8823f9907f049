"""The training pipeline's data: no benchmark or sample code among its sources, pairs as the
product embeds them, and the product never importing the pipeline."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from train.guard import benchmark_hashes, leaked_sources  # noqa: E402
from train.mine import file_pairs, first_sentence, mine  # noqa: E402
from train.sources import Source  # noqa: E402

COBRA = ROOT / "bench" / "realrepos" / "cobra.bundle"


def _source(root: Path, language: str = "python", suffix: str = ".py") -> Source:
    return Source("planted", language, root, "test", suffix, "0")


def _cobra_file(tmp_path: Path, name: str) -> bytes:
    clone = tmp_path / "cobra"
    subprocess.run(["git", "clone", "-q", str(COBRA), str(clone)], check=True)
    return (clone / name).read_bytes()


def test_the_committed_manifest_names_no_benchmark_or_sample_file():
    manifest = json.loads((ROOT / "train" / "data-manifest.json").read_text())
    assert manifest["pairs"] > 1000 and len(manifest["files"]) > 100
    assert all(re.fullmatch(r"[0-9a-f]{64}", f["sha256"]) for f in manifest["files"])
    assert leaked_sources(manifest["files"], benchmark_hashes()) == []


def test_a_planted_benchmark_file_fails_the_check(tmp_path):
    library = tmp_path / "library"
    library.mkdir()
    (library / "own.py").write_text('def parse_flags(argv):\n    """Parse the flags given on the command line."""\n'
                                    "    return [a for a in argv if a.startswith('-')]\n")
    pairs, files = mine([_source(library)], 0.2, 1)
    assert pairs and leaked_sources(files, benchmark_hashes()) == []
    # a sample repository's file under another name, and a Go file from every branch's blobs of cobra
    shop = ROOT / "sample_repos" / "shop" / "steps" / "010-march-initial" / "src" / "payments" / "refunds.py"
    shutil.copy(shop, library / "renamed_copy.py")
    (library / "command.go").write_bytes(_cobra_file(tmp_path, "command.go"))
    go_pairs, go_files = mine([_source(library, "go", ".go")], 0.2, 1)
    _pairs, py_files = mine([_source(library)], 0.2, 1)
    assert go_pairs, "cobra's command.go has documented functions"
    leaks = leaked_sources(py_files + go_files, benchmark_hashes())
    assert any("renamed_copy.py is sample_repos/shop/" in line for line in leaks)
    assert any("command.go is cobra.bundle:" in line for line in leaks)
    done = subprocess.run([sys.executable, "-m", "train", "check", str(_write_manifest(tmp_path, go_files))],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1 and "benchmark or sample code" in done.stderr


def _write_manifest(tmp_path: Path, files: list[dict]) -> Path:
    out = tmp_path / "manifest.json"
    out.write_text(json.dumps({"files": files}))
    return out


def test_pairs_are_the_text_the_index_embeds_with_and_without_the_docstring(tmp_path):
    from branchwise.chunking import chunk_file
    from branchwise.embedding.described import split_described

    code = ('class Cache:\n    def evict(self, key):\n        """Remove one entry from the cache. Later text.\n\n'
            '        More.\n        """\n        del self.items[key]\n')
    (tmp_path / "cache.py").write_text(code)
    [(query, documented, bare, name)] = file_pairs(_source(tmp_path), tmp_path / "cache.py", code.encode())
    assert (query, name) == ("Remove one entry from the cache.", "Cache.evict")
    indexed = {c.identity.qualified_name: c.embedding_text for c in chunk_file("r", "cache.py", code.encode()).chunks}
    # the passage the index embeds; its description (the docstring's first words) is left out
    passage, description = split_described(indexed["Cache.evict"])
    assert documented == passage and description.startswith("Remove one entry")
    assert "Remove one entry" not in bare and bare.endswith("del self.items[key]")
    undocumented = code.replace('        """Remove one entry from the cache. Later text.\n\n        More.\n        """\n', "")
    plain = {c.identity.qualified_name: c.embedding_text
             for c in chunk_file("r", "cache.py", undocumented.encode()).chunks}
    assert bare == split_described(plain["Cache.evict"])[0]


def test_a_rust_library_gives_pairs_from_its_code_and_none_from_its_tests_or_benchmarks(tmp_path):
    code = ("impl<T> Stack<T> {\n    /// Appends an element to the top of the stack.\n"
            "    pub fn push(&mut self, value: T) {\n        self.items.push(value)\n    }\n}\n")
    for relative in ("core/src/stack.rs", "core/src/stack/tests.rs", "core/benches/stack.rs", "core/tests/stack.rs"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(code)
    source = _source(tmp_path, "rust", ".rs")
    assert [p.relative_to(tmp_path).as_posix() for p in source.files()] == ["core/src/stack.rs"]
    pairs, files = mine([source], 0.0, 1)
    assert [(p.query, p.qualified_name) for p in pairs] == [("Appends an element to the top of the stack.", "Stack.push")]
    assert "Appends" not in pairs[0].code and [f["path"] for f in files] == ["core/src/stack.rs"]


def test_first_sentences_make_questions_or_nothing():
    assert first_sentence("Return the list of files.\n\nDetails.") == "Return the list of files."
    assert first_sentence("Return self.") == ""  # under four words
    assert first_sentence("Deprecated alias of open_file kept for now.") == ""


def test_the_product_never_imports_the_training_pipeline():
    product = [p for part in ("core", "tui", "cli") for p in (ROOT / part).rglob("*.py")]
    assert product
    pattern = re.compile(r"^\s*(from|import)\s+train(\.|\s|$)", re.M)
    assert [p for p in product if pattern.search(p.read_text())] == []
