"""`branchwise index` run by a person returns once the branch is searchable by every channel.

With the default model the static stage embeds every version beside the parsing, so on a
terminal `index` hands the transformer stage to the background worker and returns; a script
(output to a pipe) gets the whole index before `index` returns, as before, and `--foreground`
and `--background` say which explicitly. Real git repositories, the real default model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import in_terminal
from gittools import GIT_ENV, GitBuilder
from workers import wait_for_worker

from branchwise.store import worker_record
from branchwise.workspace import Workspace

pytestmark = pytest.mark.model

#: the default model (no BRANCHWISE_MODEL): it has a static stage
ENV = {key: value for key, value in os.environ.items() if key != "BRANCHWISE_MODEL"} | GIT_ENV | {"HF_HUB_OFFLINE": "1"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    repo = GitBuilder(tmp_path_factory.mktemp("ledger"))
    for name in ("invoices", "payments", "refunds"):
        repo.write(f"src/{name}.py", "".join(
            f"def {verb}_{name}(account, amount):\n    \"\"\"{verb.title()} {name} of an account.\"\"\"\n"
            f"    return [account, amount, {verb!r}]\n\n\n" for verb in ("open", "settle", "cancel", "audit")))
    repo.commit("ledger")
    return repo.path


def _transformer_coverage(repo: Path, index: Path):
    ws = Workspace(repo, index)
    try:
        return ws.dense_coverage("main")
    finally:
        ws.close()


def test_on_a_terminal_index_returns_searchable_and_the_worker_embeds_the_rest(repo, tmp_path):
    index = tmp_path / "index"
    code, drawn = in_terminal("index", repo, "--index", index, env=ENV)
    assert code == 0, drawn
    assert "in the background" in drawn and "`--foreground` waits for it" in drawn, drawn
    assert wait_for_worker(index)["state"] == "done"
    assert _transformer_coverage(repo, index).complete


def test_foreground_on_a_terminal_and_a_pipe_by_default_embed_before_returning(repo, tmp_path):
    code, drawn = in_terminal("index", repo, "--index", tmp_path / "asked", "--foreground", env=ENV)
    assert code == 0 and "in the background" not in drawn, drawn
    assert worker_record.read(tmp_path / "asked") is None
    assert _transformer_coverage(repo, tmp_path / "asked").complete
    piped = subprocess.run([sys.executable, "-m", "branchwise_cli", "index", str(repo), "--index", str(tmp_path / "piped"),
                            "--json"], capture_output=True, text=True, env=ENV, timeout=300)
    assert piped.returncode == 0, piped.stderr
    embedding = json.loads(piped.stdout)["embedding"]
    assert not embedding["background"] and embedding["embedded"] > 0


def test_background_and_foreground_together_are_refused(repo, tmp_path):
    done = subprocess.run([sys.executable, "-m", "branchwise_cli", "index", str(repo), "--index", str(tmp_path / "i"),
                           "--background", "--foreground"], capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 2 and "not allowed with argument" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "i").exists()
