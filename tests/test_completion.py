"""Shell completion: `branchwise completion bash|zsh|fish` prints a script each shell accepts,
and the bash one completes branch names from the repository on the line and the fixed
vocabularies (`--language`, actions) from the parser."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from branchwise.chunking import vocabulary
from gittools import GitBuilder


def completion_script(shell: str) -> str:
    result = subprocess.run([sys.executable, "-m", "branchwise_cli", "completion", shell],
                            capture_output=True, text=True, check=True)
    return result.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_script_is_valid_for_its_shell(shell, tmp_path):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    path = tmp_path / f"branchwise.{shell}"
    path.write_text(completion_script(shell))
    result = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def complete_in_bash(script: str, words: list[str]) -> list[str]:
    """What the bash completion offers for the last of `words` (COMP_WORDS as bash sets it)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = f"{script}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; _branchwise; printf '%s\\n' \"${{COMPREPLY[@]}}\""
    result = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True)
    return [line for line in result.stdout.splitlines() if line]


def test_bash_completes_branches_of_the_repo_on_the_line_and_the_languages(tmp_path):
    repo = GitBuilder(tmp_path / "r")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("first")
    repo.git("branch", "release/7.x")
    repo.git("branch", "feature/x")
    script = completion_script("bash")
    assert complete_in_bash(script, ["branchwise", "search", "--repo", str(repo.path), "--branch", "rel"]) == ["release/7.x"]
    assert set(complete_in_bash(script, ["branchwise", "diff", "--repo", str(repo.path), ""])) >= {"release/7.x", "feature/x"}
    assert complete_in_bash(script, ["branchwise", "search", "--language", ""]) == list(vocabulary.languages())
    assert complete_in_bash(script, ["branchwise", "tour", "export-"]) == ["export-codetour"]
    offered = complete_in_bash(script, ["branchwise", "export", "--max-"])
    assert offered == ["--max-tokens"]
    assert "completion" in complete_in_bash(script, ["branchwise", "comp"])


def test_an_unknown_shell_is_one_line_and_exit_2():
    result = subprocess.run([sys.executable, "-m", "branchwise_cli", "completion", "tcsh"], capture_output=True, text=True)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "tcsh" in result.stderr


def test_bash_completion_never_executes_a_branch_name(tmp_path):
    """A branch named `$(touch ...)` or with backticks is offered as text, never run (issue 46)."""
    repo = GitBuilder(tmp_path / "r")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("first")
    dollar, backtick = tmp_path / "dollar-ran", tmp_path / "backtick-ran"
    hostile = ["$(touch${IFS}" + str(dollar) + ")", "x`touch${IFS}" + str(backtick) + "`"]
    for name in hostile:
        repo.git("branch", name)
    script = completion_script("bash")
    offered_for_option = complete_in_bash(script, ["branchwise", "search", "--repo", str(repo.path), "--branch", ""])
    offered_for_diff = complete_in_bash(script, ["branchwise", "diff", "--repo", str(repo.path), ""])
    offered_for_base = complete_in_bash(script, ["branchwise", "diff", "--repo", str(repo.path), "--base", "$("])
    assert not dollar.exists() and not backtick.exists()
    assert set(hostile) <= set(offered_for_option) and set(hostile) <= set(offered_for_diff)
    assert offered_for_base == [hostile[0]]
