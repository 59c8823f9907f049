"""git/command.py opens a repository and runs git as GitPython would, without importing it.

Every shape of repository is opened both ways: where `find_plain` takes it, its directories
must be GitPython's; where it declines, GitRepo falls back to GitPython. A failed command must
still be GitPython's `GitCommandError` (callers catch it), and the index reader of
worktree_status.py must read what GitPython's `read_cache` reads.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import git
import pytest
from git.exc import GitCommandError
from git.index.fun import read_cache

from branchwise.errors import UsageError
from branchwise.git.command import GitFailed, find_plain
from branchwise.git.repo import GitRepo
from branchwise.git.worktree_status import read_index
from gittools import GitBuilder


def _gitpython_view(path: Path) -> tuple[Path, Path | None, bool]:
    repo = git.Repo(path, search_parent_directories=False, expand_vars=False)
    tree = None if repo.bare or repo.working_tree_dir is None else Path(repo.working_tree_dir).resolve()
    return Path(repo.git_dir).resolve(), tree, repo.bare


def _shapes(tmp_path: Path) -> dict[str, Path]:
    main = GitBuilder(tmp_path / "main")
    main.write("a.py", "def a():\n    return 1\n")
    main.commit("a")
    main.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "side")
    main.git("clone", "-q", "--bare", str(main.path), str(tmp_path / "bare.git"))
    flagged = GitBuilder(tmp_path / "flagged")
    flagged.write("b.py", "x = 1\n")
    flagged.commit("b")
    flagged.git("config", "core.bare", "true")
    included = GitBuilder(tmp_path / "included")
    included.write("c.py", "y = 2\n")
    included.commit("c")
    (tmp_path / "extra.cfg").write_text("[user]\n\tname = someone\n")
    included.git("config", "include.path", str(tmp_path / "extra.cfg"))
    return {"plain": main.path, "linked": tmp_path / "linked", "bare": tmp_path / "bare.git",
            "flagged": flagged.path, "included": included.path, "dotgit": main.path / ".git"}


def test_find_plain_opens_only_what_gitpython_would_open_the_same_way(tmp_path):
    shapes = _shapes(tmp_path)
    taken = {name for name, path in shapes.items() if find_plain(path) is not None}
    assert taken == {"plain"}
    plain = find_plain(shapes["plain"])
    assert (plain.git_dir, plain.work_tree, False) == _gitpython_view(shapes["plain"])
    for name, path in shapes.items():
        opened = GitRepo(path)
        assert (opened.git_dir, opened.work_tree, opened.bare) == _gitpython_view(path), name
        assert ("_repo" in opened.__dict__) == (name != "plain"), name
        assert opened.head_commit() == git.Repo(path).head.commit.hexsha, name


def test_a_variable_pointing_git_elsewhere_leaves_the_opening_to_gitpython(tmp_path, monkeypatch):
    path = _shapes(tmp_path)["plain"]
    monkeypatch.setenv("GIT_DIR", str(path / ".git"))
    assert find_plain(path) is None


def test_a_missing_directory_or_a_plain_folder_is_not_a_repository(tmp_path):
    (tmp_path / "folder").mkdir()
    for path in (tmp_path / "missing", tmp_path / "folder"):
        with pytest.raises(UsageError, match="not a git repository"):
            GitRepo(path)


def test_a_failed_command_is_gitpythons_error_and_ours(tmp_path):
    path = _shapes(tmp_path)["plain"]
    opened = GitRepo(path)
    with pytest.raises(GitCommandError) as caught:
        opened._git("rev-parse", "--verify", "no-such-ref")
    assert isinstance(caught.value, GitFailed) and caught.value.status == 128
    with pytest.raises(GitCommandError) as theirs:
        git.Repo(path).git.execute(["git", "rev-parse", "--verify", "no-such-ref"])
    assert str(caught.value) == str(theirs.value)
    assert opened._git_or_none("rev-parse", "--verify", "no-such-ref") is None


def test_output_is_what_gitpython_returns(tmp_path):
    path = _shapes(tmp_path)["plain"]
    opened, theirs = GitRepo(path), git.Repo(path)
    for args in (["log", "-1", "--format=%H%n%s"], ["ls-tree", "-r", "-z", "HEAD"], ["status", "--porcelain=v1"]):
        assert opened._git(*args) == theirs.git.execute(["git", *args])
    assert opened._git("ls-tree", "HEAD", strip_newline_in_stdout=False).endswith("\n")


def test_a_detached_or_unborn_head_names_its_commit_or_none(tmp_path):
    repo = GitBuilder(tmp_path / "r")
    assert GitRepo(repo.path).head_commit() is None  # no commit yet
    repo.write("a.py", "a = 1\n")
    first = repo.commit("one")
    repo.write("a.py", "a = 2\n")
    repo.commit("two")
    repo.git("checkout", "-q", "--detach", first)
    opened = GitRepo(repo.path)
    assert opened.current_branch() is None and opened.head_commit() == first


def test_the_index_reader_reads_what_gitpython_reads(tmp_path):
    repo = GitBuilder(tmp_path / "r")
    for number in range(40):  # names of many lengths: every padding of an entry
        repo.write(f"{'d/' * (number % 3)}{'n' * (number + 1)}.py", f"v = {number}\n")
    repo.write("c.py", "base\n")
    repo.commit("files")
    repo.branch("other")
    repo.checkout("other")
    repo.write("c.py", "theirs\n")
    repo.commit("theirs")
    repo.checkout("main")
    repo.write("c.py", "ours\n")
    repo.commit("ours")
    with pytest.raises(Exception):
        repo.git("merge", "-q", "other")  # a conflict: stages 1 to 3 of c.py
    repo.write("added.py", "n = 1\n")
    repo.git("add", "--intent-to-add", "--", "added.py")  # an extended entry: index version 3
    blob = repo.git("rev-parse", "HEAD:n.py")
    long_name = "/".join(["y" * 200] * 25)  # past the 12-bit name length (only the index holds it)
    repo.git("update-index", "--add", "--cacheinfo", f"100644,{blob},{long_name}")
    data = (repo.path / ".git" / "index").read_bytes()
    with open(repo.path / ".git" / "index", "rb") as stream:
        _version, entries, extensions, _sha = read_cache(stream)
    expected = sorted((str(path), stage, (e.mtime[0] * 10**9 + e.mtime[1], e.ctime[0] * 10**9 + e.ctime[1], e.size,
                                          e.inode), e.binsha) for (path, stage), e in entries.items())
    assert int.from_bytes(data[4:8], "big") == 3
    mine, mine_extensions = read_index(data)
    assert sorted(mine) == expected and mine_extensions == extensions
    assert {stage for _path, stage, _stat, _oid in mine} == {0, 1, 2, 3}
    assert long_name in {p for p, _s, _t, _o in mine}


def test_the_index_reader_refuses_what_it_does_not_read(tmp_path):
    repo = GitBuilder(tmp_path / "r")
    repo.write("a.py", "a = 1\n")
    repo.commit("a")
    repo.git("update-index", "--index-version", "4")
    with pytest.raises(ValueError):
        read_index((repo.path / ".git" / "index").read_bytes())
    with pytest.raises(ValueError):
        read_index(b"DIRC" + bytes(8))


def _symbolic_ref(path: Path) -> str | None:
    done = subprocess.run(["git", "symbolic-ref", "-q", "HEAD"], cwd=path, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def test_the_checked_out_branch_is_read_from_head_as_git_reads_it(tmp_path):
    shapes = _shapes(tmp_path)
    detached = GitBuilder(tmp_path / "detached")
    detached.write("a.py", "a = 1\n")
    detached.git("checkout", "-q", "--detach", detached.commit("one"))
    shapes["detached"], shapes["unborn"] = detached.path, GitBuilder(tmp_path / "unborn").path
    spaced = GitBuilder(tmp_path / "spaced")
    (spaced.path / ".git" / "HEAD").write_text("ref:   refs/heads/topic  \n")  # git reads past the spaces
    shapes["spaced"] = spaced.path
    for name, path in shapes.items():
        opened = GitRepo(path)
        expected = _symbolic_ref(path)
        assert opened._symbolic_head() in (None if expected is None else expected.encode(), expected), name
        branch = None if expected is None or not expected.startswith("refs/heads/") else expected[11:]
        assert opened._read_current_branch() == branch, name



def _git_remote(path: Path) -> list[str]:
    return subprocess.run(["git", "remote"], cwd=path, capture_output=True, text=True, check=True).stdout.split()


def test_the_remotes_come_from_the_keys_read_at_opening_as_git_remote_lists_them(tmp_path, monkeypatch):
    repo = GitBuilder(tmp_path / "r")
    repo.git("remote", "add", "origin", "https://example.com/r.git")
    repo.git("config", "remote.my.remote.url", "https://example.com/other.git")  # a name with a dot
    repo.git("config", "remote.onlyfetch.fetch", "+refs/heads/*:refs/remotes/onlyfetch/*")
    repo.git("config", "remote.pushDefault", "origin")  # no remote of its own
    repo.git("config", "remote.Zed.prune", "true")  # sorted bytewise, as git sorts
    (repo.path / ".git" / "remotes").mkdir()
    (repo.path / ".git" / "remotes" / "legacy").write_text("URL: https://example.com/l.git\n")  # not listed
    opened = GitRepo(repo.path)
    ran = []
    monkeypatch.setattr(opened, "_git_or_none", lambda *args: ran.append(args))
    assert opened.remotes() == _git_remote(repo.path) == ["Zed", "my.remote", "onlyfetch", "origin"]
    assert ran == []  # no `git remote` process


def test_a_config_changed_since_opening_is_asked_of_git(tmp_path):
    repo = GitBuilder(tmp_path / "r")
    opened = GitRepo(repo.path)
    repo.git("remote", "add", "late", "https://example.com/late.git")
    assert opened.remotes() == ["late"]


def test_a_remote_name_read_apart_is_asked_of_git():
    from branchwise.git.repo import remote_names

    assert remote_names(["remote.origin.url", "core.bare"]) == ["origin"]
    for odd in ("remote..url", "remote./x.url", "remote.\ufffd.url", "remote.a\nb.url"):
        assert remote_names(["remote.origin.url", odd]) is None


def test_blobs_are_read_as_gitpython_reads_them_without_importing_it(tmp_path):
    repo = GitBuilder(tmp_path / "r")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.write("big.bin", bytes(range(256)) * 4000)  # larger than a pipe's buffer, every byte value
    repo.commit("files")
    opened, theirs = GitRepo(repo.path), git.Repo(repo.path)
    for path in ("a.py", "big.bin"):
        blob = repo.git("rev-parse", f"HEAD:{path}")
        assert opened.read_blob(blob) == theirs.odb.stream(bytes.fromhex(blob)).read()
    assert "_repo" not in opened.__dict__
    with pytest.raises(ValueError):
        opened.read_blob("0" * 40)  # missing: the same process answers the next read
    with pytest.raises(ValueError):
        opened.read_blob("a.py\nHEAD")
    assert opened._cat_file.read(repo.git("rev-parse", "HEAD:a.py")).startswith(b"def a")


def test_a_cat_file_process_that_died_is_started_again(tmp_path):
    repo = GitBuilder(tmp_path / "r")
    repo.write("a.py", "a = 1\n")
    repo.commit("a")
    blob = repo.git("rev-parse", "HEAD:a.py")
    reader = GitRepo(repo.path)._cat_file
    assert reader.read(blob) == b"a = 1\n"
    reader._process.kill()
    reader._process.wait()
    assert reader.read(blob) == b"a = 1\n"


def test_closing_a_workspace_ends_its_object_reader(tmp_path):
    from branchwise.workspace import Workspace

    repo = GitBuilder(tmp_path / "r")
    repo.write("a.py", "a = 1\n")
    repo.commit("a")
    blob = repo.git("rev-parse", "HEAD:a.py")
    workspace = Workspace(repo.path, tmp_path / "index")
    assert workspace.repo.read_blob(blob) == b"a = 1\n"
    process = workspace.repo._cat_file._process
    assert process is not None and process.poll() is None
    workspace.close()
    assert process.poll() is not None  # not left for the collector, which may run beside a fork
    assert workspace.repo._cat_file.read(blob) == b"a = 1\n"  # a later read starts another
    workspace.close()
