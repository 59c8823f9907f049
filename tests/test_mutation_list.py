"""The mutation check's list stays applicable: every mutant still matches the code.

The check itself takes minutes and runs as a separate command (tests/mutations/run.py); this
test runs with every test run so that a refactor which moves a mutated snippet, or renames a
guarding test, fails at once instead of when the check is next run. It also checks the
runner's own verdicts on a stale mutant and on a survivor, and that each mutated module still
parses (a snippet that leaves half a block behind is an error, not a killed mutant).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _runner():
    spec = importlib.util.spec_from_file_location("branchwise_mutation_runner", ROOT / "tests/mutations/run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


RUNNER = _runner()
MUTANTS = RUNNER.load_mutants()


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["id"] for m in MUTANTS])
def test_each_mutant_applies_once_and_names_existing_tests(mutant):
    text = (ROOT / mutant["file"]).read_text(encoding="utf-8")
    assert text.count(mutant["find"]) == 1, f"{mutant['id']}: snippet not found exactly once in {mutant['file']}"
    if mutant["file"].endswith(".py"):  # a mutant that does not parse breaks every test, not its guard's
        compile(text.replace(mutant["find"], mutant["replace"]), mutant["file"], "exec")
    for test in mutant["tests"]:
        path, _, name = test.partition("::")
        assert (ROOT / path).is_file(), f"{mutant['id']}: no test file {path}"
        if name:
            function = re.sub(r"\[.*\]$", "", name)
            assert re.search(rf"^(?:async )?def {re.escape(function)}\(", (ROOT / path).read_text(), re.M), (
                f"{mutant['id']}: no test {function} in {path}")


def test_the_list_covers_every_guarantee_the_check_promises():
    behaviours = " ".join(m["behaviour"] for m in MUTANTS).lower()
    for words in ("filter before ranking (faiss)", "fts5", "name channel", "qdrant", "aws", "private key",
                  "github", "slack", "random-looking", "indexed text", "--wait", "write lock",
                  "garbage collection", "tombstones", "verdicts", "header markers", "excluded results listed"):
        assert words in behaviours, words


def test_a_stale_snippet_and_a_surviving_mutant_are_reported(tmp_path):
    (tmp_path / "core").mkdir()
    (tmp_path / "core/thing.py").write_text("VALUE = 1\n")
    stale = {"id": "s", "behaviour": "b", "file": "core/thing.py", "find": "VALUE = 2", "replace": "VALUE = 3",
             "tests": ["tests/test_thing.py"]}
    assert RUNNER.run_mutant(stale, tmp_path).status == "stale"
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_thing.py").write_text(
        "import sys\nsys.path.insert(0, 'core')\nimport thing\n\n\ndef test_value():\n    assert thing.VALUE >= 1\n")
    survivor = {**stale, "find": "VALUE = 1", "replace": "VALUE = 5"}
    outcome = RUNNER.run_mutant(survivor, tmp_path)
    assert outcome.status == "survived"
    assert (tmp_path / "core/thing.py").read_text() == "VALUE = 1\n"  # restored after the run
    killed = {**stale, "find": "VALUE = 1", "replace": "VALUE = 0"}
    outcome = RUNNER.run_mutant(killed, tmp_path)
    assert outcome.status == "killed" and outcome.detail == "tests/test_thing.py::test_value"
