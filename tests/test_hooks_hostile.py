"""Hook install and the state files under hostile input (issue 46): a planted link is never
written through, `GIT_DIR` in the environment cannot redirect the install, hooks turned off
with `core.hooksPath=/dev/null` are one line, a chained non-shell hook still sees its own name,
and records with odd values (or naming some other process) neither crash a reader nor get a
stranger signalled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.errors import UsageError
from branchwise.index import hooks
from branchwise.review import status as status_module
from branchwise.store import worker_record


@pytest.fixture
def repo(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "repo")
    builder.write("a.py", "def a():\n    return 1\n")
    builder.commit("first")
    return builder


def test_install_replaces_a_planted_link_instead_of_writing_through_it(repo, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    outside.chmod(0o600)
    folder = repo.path / ".githooks"
    folder.mkdir()
    for name in hooks.HOOKS:  # every temporary name an install could pick, and the hook itself
        os.symlink(outside, folder / f".{name}.branchwise-tmp")
    os.symlink(outside, folder / "post-merge")
    repo.git("config", "core.hooksPath", ".githooks")

    done = hooks.install(repo.path, tmp_path / "index")

    assert outside.read_text() == "precious\n"
    assert (outside.stat().st_mode & 0o777) == 0o600
    assert hooks.is_ours(folder / "post-commit") and not (folder / "post-commit").is_symlink()
    assert "chaining" in done["post-merge"]
    assert (folder / hooks.CHAINED_FOLDER / "post-merge").is_symlink()  # the link moved, untouched
    hooks.uninstall(repo.path)
    assert (folder / "post-merge").is_symlink() and outside.read_text() == "precious\n"


def test_git_dir_in_the_environment_does_not_redirect_the_install(repo, tmp_path, monkeypatch):
    other = GitBuilder(tmp_path / "other")
    other.write("b.py", "x = 1\n")
    other.commit("other")
    monkeypatch.setenv("GIT_DIR", str(other.path / ".git"))
    hooks.install(repo.path, tmp_path / "index")
    assert hooks.is_ours(repo.path / ".git" / "hooks" / "post-commit")
    assert not (other.path / ".git" / "hooks" / "post-commit").exists()


@pytest.mark.parametrize("setting", ["/dev/null", "a-file"])
def test_hooks_turned_off_or_pointing_at_a_file_is_one_clear_error(repo, tmp_path, setting):
    (repo.path / "a-file").write_text("not a folder\n")
    repo.git("config", "core.hooksPath", setting)
    with pytest.raises(UsageError, match="core.hooksPath"):
        hooks.install(repo.path, tmp_path / "index")
    result = subprocess.run([sys.executable, "-m", "branchwise_cli", "hooks", "install", "--repo", str(repo.path),
                             "--index", str(tmp_path / "index")], capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "core.hooksPath" in result.stderr


def test_a_chained_python_hook_sees_its_own_name(repo, tmp_path, monkeypatch):
    monkeypatch.setenv(hooks.DISABLE_VARIABLE, "1")  # only the chaining is under test
    seen = tmp_path / "seen.txt"
    hook = repo.path / ".git" / "hooks" / "post-commit"
    hook.write_text(f"#!{sys.executable}\nimport os, sys\n"
                    f"open({str(seen)!r}, 'w').write(os.path.basename(sys.argv[0]) + ' ' + ' '.join(sys.argv[1:]))\n")
    hook.chmod(0o755)
    hooks.install(repo.path, tmp_path / "index")
    repo.write("b.py", "def b():\n    return 2\n")
    repo.commit("second")
    assert seen.read_text().strip() == "post-commit"


def test_a_legacy_chained_hook_is_moved_and_restored(repo, tmp_path):
    folder = repo.path / ".git" / "hooks"
    legacy = folder / "post-commit.branchwise-chained"
    legacy.write_text("#!/bin/sh\necho legacy\n")
    (folder / "post-commit").write_text(hooks.wrapper("post-commit", repo.path, tmp_path / "index", sys.executable, legacy))
    hooks.install(repo.path, tmp_path / "index")
    assert (folder / hooks.CHAINED_FOLDER / "post-commit").read_text() == "#!/bin/sh\necho legacy\n"
    assert hooks.uninstall(repo.path)["post-commit"] == "restored the previous hook"
    assert (folder / "post-commit").read_text() == "#!/bin/sh\necho legacy\n"


@pytest.mark.parametrize("pid", [2 ** 40, "1234", -5, True, None, [1]])
def test_odd_pids_in_state_files_crash_no_reader(tmp_path, pid):
    index = tmp_path / "index"
    index.mkdir()
    (index / worker_record.RECORD_FILE).write_text(json.dumps(
        {"pid": pid, "state": "running", "done": "many", "total": 10, "rate": "fast", "eta_seconds": 3}))
    (index / hooks.STATUS_FILE).write_text(json.dumps({"pid": pid, "outcome": "running", "hook": "post-commit"}))
    record = worker_record.read(index)
    assert record is not None and record["state"] == "interrupted"
    assert "stopped after 0 of 10 texts" in status_module.worker_line(record)
    assert worker_record.running_worker(index) is None
    assert worker_record.ask_to_yield(index) is False
    assert hooks.last_refresh(index)["outcome"] == "interrupted"


@pytest.mark.parametrize("content", ["[1, 2]", '"text"', "3", "[" * 5000 + "]" * 5000],
                         ids=["list", "string", "number", "nested-5000"])
def test_state_files_that_are_not_objects_read_as_none(tmp_path, content):
    (tmp_path / worker_record.RECORD_FILE).write_text(content)
    (tmp_path / hooks.STATUS_FILE).write_text(content)
    assert worker_record.read(tmp_path) is None
    assert hooks.last_refresh(tmp_path) is None


def test_a_record_naming_an_unrelated_process_gets_no_signal(tmp_path):
    """A stale record whose pid now belongs to someone else: `index` must not send it SIGUSR1."""
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.2)
        record = {"pid": stranger.pid, "state": "running", "done": 1, "total": 2}
        (tmp_path / worker_record.RECORD_FILE).write_text(json.dumps(record))
        assert worker_record.running_worker(tmp_path) is None
        assert worker_record.ask_to_yield(tmp_path) is False
        assert worker_record.read(tmp_path)["state"] == "interrupted"
        (tmp_path / worker_record.RECORD_FILE).write_text(json.dumps({**record, "process_start": 1}))
        assert worker_record.ask_to_yield(tmp_path) is False
        time.sleep(0.2)
        assert stranger.poll() is None  # still alive: nothing was sent
        own = {**record, **worker_record.identity(stranger.pid)}
        (tmp_path / worker_record.RECORD_FILE).write_text(json.dumps(own))
        assert worker_record.running_worker(tmp_path) == stranger.pid  # the record's own process is trusted
    finally:
        stranger.kill()
        stranger.wait()
