"""Ref reads come from memory only while the ref files stand still (git/refcache.py).

A real repository: once its ref files have stood still for a moment, a second branch listing runs no git process; a
new branch, a checkout, a new remote or a commit are seen at once; and a repository whose ref
files changed just now (the same clock tick as a read could be) is read from git every time.
"""

from __future__ import annotations

import time

from gittools import GitBuilder

from branchwise.git import refcache
from branchwise.git.repo import GitRepo


def _counted(repo: GitRepo) -> list[tuple[str, ...]]:
    calls: list[tuple[str, ...]] = []
    run = repo._git

    def counting(*args, **kwargs):
        calls.append(args)
        return run(*args, **kwargs)

    repo._git = counting  # type: ignore[method-assign]
    return calls


def test_refs_are_read_once_while_they_stand_still_and_again_when_they_move(tmp_path, monkeypatch):
    monkeypatch.setattr(refcache, "RACY_SECONDS", 0.05)
    builder = GitBuilder(tmp_path / "repo")
    builder.write("a.py", "def a():\n    return 1\n")
    first = builder.commit("one")
    time.sleep(0.1)  # the ref files now stand still for longer than the racy window
    repo = GitRepo(builder.path)
    calls = _counted(repo)
    assert repo.branches() == {"main": first} and repo.current_branch() == "main" and repo.head_commit() == first
    read = len(calls)
    assert repo.branches() == {"main": first} and repo.current_branch() == "main" and repo.remotes() == []
    assert len(calls) == read  # all from memory
    listed = repo.branches()
    listed["changed by a caller"] = "x"
    assert "changed by a caller" not in repo.branches()

    builder.branch("feature")
    assert set(repo.branches()) == {"main", "feature"}
    builder.checkout("feature")
    assert repo.current_branch() == "feature"
    builder.write("a.py", "def a():\n    return 2\n")
    second = builder.commit("two")
    assert repo.branches()["feature"] == second and repo.head_commit() == second
    builder.git("remote", "add", "origin", str(tmp_path / "elsewhere"))
    assert repo.remotes() == ["origin"]


def test_refs_changed_just_now_are_read_from_git_every_time(tmp_path):
    builder = GitBuilder(tmp_path / "repo")
    builder.write("a.py", "x = 1\n")
    builder.commit("one")
    repo = GitRepo(builder.path)
    calls = _counted(repo)
    repo.branches()
    read = len(calls)
    repo.branches()
    assert len(calls) == 2 * read  # racily fresh: never kept


def test_the_folder_stamps_are_os_walks(tmp_path):
    import os

    from branchwise.git.refcache import _entry, _folder_entries

    refs = tmp_path / "refs"
    for folder in ("heads/feature/deep", "heads/release", "remotes/origin", "tags"):
        (refs / folder).mkdir(parents=True)
    (refs / "heads" / "main").write_text("0" * 40 + "\n")
    (refs / "linked").symlink_to(refs / "heads")  # a link is listed, never followed
    entries: list = []
    _folder_entries(str(refs), entries)
    assert entries == [_entry(where) for where, _, _ in os.walk(refs)] and len(entries) == 8
    missing: list = []
    _folder_entries(str(tmp_path / "absent"), missing)
    assert missing == [_entry(where) for where, _, _ in os.walk(tmp_path / "absent")] == []
