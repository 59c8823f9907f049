"""A cold `search` with the static stage loads only what that path needs (issue 47).

A cold CLI search is mostly import time, so each heavy module it does not need is time every
question pays: the chunker and its grammars (needed only to outline a large result), the
write side of the index, the bundle, the other commands' modules, a colouring library, a
neural runtime, GitPython. This runs a real `python -X importtime -m branchwise_cli search` on a small
static-only index (`transformer = false`) and reads which modules it imported: a re-added
top-level import anywhere on the path fails here, with no clock involved. The repository holds
functions only: a class among the results (stored as its skeleton) or a result long enough to
be outlined is cut again by the chunker, so that search does load it, by design.
"""

from __future__ import annotations

import os
import subprocess
import sys

from gittools import GIT_ENV, GitBuilder

#: modules a static-stage search must not import (a name or its submodules)
HEAVY = ("tree_sitter", "tree_sitter_language_pack", "branchwise.chunking.chunker", "branchwise.chunking.grammars",
         "branchwise.index.run", "branchwise.index.indexer", "branchwise.index.parsing", "branchwise.review.bundle",
         "branchwise.review.branchdiff", "branchwise_cli.commands.diff", "branchwise_cli.commands.review",
         "pathspec", "pygments", "textual", "branchwise_tui", "onnxruntime", "torch", "transformers",
         "sentence_transformers", "model2vec", "qdrant_client",
         # GitPython (its imports and two `git version` processes: git/command.py runs git), the
         # TOML writer (a search reads labels, never writes them)
         "git", "tomli_w")
#: what the static path does need: seeing these proves the import log was read
NEEDED = ("numpy", "faiss", "tokenizers", "sqlite3", "branchwise.embedding.static_model")


def _imported(stderr: str) -> set[str]:
    """Module names from `-X importtime` lines: `import time: self | cumulative | name`."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_the_import_log_is_read_and_would_catch_a_heavy_import():
    log = "import time: self [us] | cumulative | imported package\nimport time:  5 |  9 |   tree_sitter._binding\n"
    assert _heavy(_imported(log)) == ["tree_sitter._binding"]


def _search_imports(tmp_path, files: dict[str, str], question: str, expected: str) -> set[str]:
    """The modules a cold static search of a fresh index of `files` imported."""
    repo = GitBuilder(tmp_path / "shop")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("shop")
    index = tmp_path / "index"
    index.mkdir()
    (index / "config.toml").write_text("transformer = false\n")
    env = {key: value for key, value in os.environ.items() if not key.startswith("BRANCHWISE_MODEL")}
    env.update(GIT_ENV)
    cli = [sys.executable, "-m", "branchwise_cli"]
    subprocess.run([*cli, "index", str(repo.path), "--index", str(index), "--quiet"], env=env, check=True,
                   capture_output=True)
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "branchwise_cli", "search",
                           question, "--repo", str(repo.path), "--index", str(index), "--color", "never"],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0 and expected in done.stdout, done.stderr[-2000:]
    imported = _imported(done.stderr)
    assert set(NEEDED) <= imported
    return imported


def test_a_cold_static_search_imports_no_heavy_module(tmp_path):
    imported = _search_imports(tmp_path, {
        "shop/payments.py": 'def refund(payment, amount):\n    """Give money back to the card."""\n'
                            '    return payment.card.credit(amount)\n',
        "shop/orders.py": "def cancel(order):\n    order.status = 'cancelled'\n",
    }, "refund a payment", "refund")
    assert _heavy(imported) == []


def test_a_class_result_reads_its_file_without_gitpython(tmp_path):
    """A class is stored as its skeleton: its whole text is cut from the file's blob again
    (the chunker loads, by design), and the blob comes from git without GitPython."""
    members = "".join(f"    def step_{n}(self):\n        return {n}\n\n" for n in range(12))
    imported = _search_imports(tmp_path, {"shop/ledger.py": f'class Ledger:\n    """Money in and out."""\n\n{members}'},
                               "ledger of money in and out", "Ledger")
    assert "branchwise.chunking.chunker" in imported  # the blob was read and cut
    assert not {m for m in imported if m == "git" or m.startswith("git.")}
