"""Odd and hostile repositories: whatever a repository holds, branchwise neither crashes nor leaks.

A repository is input from someone else. A symbolic link may point at /etc/passwd, a file
name may hold a newline, a blob may be binary or huge, the repository may be empty, bare,
shallow or on a detached HEAD. Each case asserts the behaviour (skipped and reported, indexed
correctly, or refused with one clear line and the contract's exit code) and that no traceback
ever reaches the user.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

GOOD = "def real_function(x):\n    return x + 1\n"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def cli(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True, cwd=cwd
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


def assert_one_line_error(out: subprocess.CompletedProcess, code: int, message: str) -> None:
    assert out.returncode == code, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert message in out.stderr


def index_main(builder: GitBuilder, tmp_path: Path) -> Workspace:
    out = cli("index", builder.path, "--branch", "main", "--index", tmp_path / "index")
    assert out.returncode == 0, out.stderr
    return Workspace(builder.path, tmp_path / "index")


def live_paths(workspace: Workspace, branch: str = "main") -> set[str]:
    return {row["path"] for row in workspace.inspect(branch)}


def skipped(workspace: Workspace, branch: str = "main") -> dict[str, str]:
    return dict(
        workspace.store.conn.execute(
            "SELECT s.path, s.reason FROM skipped_files s JOIN branches b ON b.id = s.branch_id "
            "WHERE b.name = ?",
            (branch,),
        ).fetchall()
    )


@pytest.fixture
def builder(tmp_path) -> GitBuilder:
    repo = GitBuilder(tmp_path / "hostile")
    repo.write("src/real.py", GOOD)
    return repo


# links and submodules ----------------------------------------------------------------------


def test_symbolic_links_are_never_followed_nor_read(builder, tmp_path):
    os.symlink("real.py", builder.path / "src/inside.py")
    os.symlink("/etc/passwd", builder.path / "src/passwd.py")
    os.symlink("src", builder.path / "linked_dir")
    builder.commit("links")
    workspace = index_main(builder, tmp_path)
    assert live_paths(workspace) == {"src/real.py"}
    reasons = skipped(workspace)
    for link in ("src/inside.py", "src/passwd.py", "linked_dir"):
        assert reasons[link].startswith("symbolic link"), link
    texts = " ".join(r.text for r in workspace.search(SearchRequest("root bin bash", "main", top_k=20)))
    assert "root:" not in texts


def test_a_tracked_file_swapped_for_a_link_in_the_work_tree_is_not_read(builder, tmp_path):
    builder.commit("one file")
    workspace = index_main(builder, tmp_path)
    target = builder.path / "src/real.py"
    target.unlink()
    os.symlink("/etc/passwd", target)
    [result] = [r for r in workspace.search(SearchRequest("real function", "main", top_k=5))
                if r.path == "src/real.py"]
    assert result.verdict.value != "current"
    assert "root:" not in (result.current_text or "") + result.text


def test_submodules_are_skipped_and_reported(builder, tmp_path):
    sha = builder.commit("first")
    builder.git("update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/lib")
    builder.git("commit", "-q", "-m", "add submodule")
    workspace = index_main(builder, tmp_path)
    assert skipped(workspace)["vendor/lib"].startswith("submodule")
    assert live_paths(workspace) == {"src/real.py"}


# file contents --------------------------------------------------------------------------------


def test_binary_huge_and_minified_files(builder, tmp_path):
    builder.write("src/blob.py", b"def x():\n    return 1\n\0\x01\x02" * 10)
    builder.write("src/huge.py", "def big():\n    return 1\n" + "# padding\n" * 120_000)
    builder.write("web/app.min.js", "function a(b){return b+1};" * 200 + "\n")
    builder.commit("odd contents")
    workspace = index_main(builder, tmp_path)
    reasons = skipped(workspace)
    assert reasons["src/blob.py"].startswith("binary")
    assert reasons["src/huge.py"].startswith("too large")
    classes = {row["path_class"] for row in workspace.inspect("main") if row["path"] == "web/app.min.js"}
    assert classes <= {"generated"}
    results = workspace.search(SearchRequest("function return", "main", top_k=10))
    minified = [r for r in results if r.path == "web/app.min.js"]
    assert all(r.verdict.value == "excluded" for r in minified)


def test_invalid_utf8_crlf_and_bom_are_indexed_and_verify_current(builder, tmp_path):
    builder.write("src/latin1.py", b"# caf\xe9 \xff\xfe\ndef latin_function():\n    return '\xe9'\n")
    builder.write("src/crlf.py", b"def crlf_function(a):\r\n    return a\r\n\r\n\r\ndef second_crlf():\r\n    return 2\r\n")
    builder.write("src/bom.py", "\ufeffdef bom_function():\n    return 3\n".encode("utf-8"))
    builder.commit("encodings")
    workspace = index_main(builder, tmp_path)
    names = {row["qualified_name"]: row for row in workspace.inspect("main")}
    assert {"latin_function", "crlf_function", "second_crlf", "bom_function"} <= set(names)
    assert (names["second_crlf"]["start_line"], names["second_crlf"]["end_line"]) == (5, 6)
    for query, name in (("latin function", "latin_function"), ("crlf function", "crlf_function"),
                        ("bom function", "bom_function")):
        hit = next(r for r in workspace.search(SearchRequest(query, "main", top_k=10))
                   if r.identity.qualified_name == name)
        assert hit.verdict.value == "current", (name, hit.reason)


ODD_NAMES = ("src/with space.py", 'src/quote"d.py', "src/it's.py", "src/new\nline.py", "src/naïve_ünï.py",
             "src/tab\tname.py")


def test_odd_file_names_survive_full_and_incremental_indexing(builder, tmp_path):
    for number, name in enumerate(ODD_NAMES):
        builder.write(name, f"def odd_{number}():\n    return {number}\n")
    builder.commit("odd names")
    workspace = index_main(builder, tmp_path)
    assert live_paths(workspace) == {"src/real.py", *ODD_NAMES}

    builder.branch("feature/odd/names")
    builder.checkout("feature/odd/names")
    for number, name in enumerate(ODD_NAMES[1:], 1):
        builder.write(name, f"def odd_{number}():\n    return {number} * 2\n")
    (builder.path / ODD_NAMES[0]).unlink()
    builder.commit("edit odd names")
    out = cli("index", builder.path, "--branch", "feature/odd/names", "--index", tmp_path / "index", "--json")
    assert out.returncode == 0, out.stderr
    [summary] = json.loads(out.stdout)["branches"]
    assert summary["base"] == "inherited from main"
    assert summary["files_parsed"] == len(ODD_NAMES) - 1
    assert summary["tombstoned"] == 1
    workspace = Workspace(builder.path, tmp_path / "index")
    assert live_paths(workspace, "feature/odd/names") == {"src/real.py", *ODD_NAMES[1:]}
    results = workspace.search(SearchRequest("odd", "feature/odd/names", top_k=20))
    odd = [r for r in results if r.path in ODD_NAMES]
    assert len(odd) == len(ODD_NAMES) - 1
    assert all(r.verdict.value == "current" for r in odd), [(r.path, r.reason) for r in odd]


# repository shapes ----------------------------------------------------------------------------


def test_an_empty_repository_is_one_clear_line_and_exit_2(tmp_path):
    GitBuilder(tmp_path / "empty")
    out = cli("index", tmp_path / "empty", "--index", tmp_path / "index")
    assert_one_line_error(out, 2, "no commits")


def test_a_detached_head_takes_the_branch_at_its_commit_or_needs_one(builder, tmp_path):
    first = builder.commit("first")
    builder.commit("second")
    builder.git("checkout", "-q", "--detach")  # at main's tip: main is meant, and it says so
    taken = cli("index", builder.path, "--index", tmp_path / "at-tip")
    assert taken.returncode == 0 and "HEAD is detached at" in taken.stderr and "using main" in taken.stderr
    builder.git("checkout", "-q", first)  # at no branch's tip: a branch must be named
    assert_one_line_error(cli("index", builder.path, "--index", tmp_path / "index"), 2, "detached")
    workspace = index_main(builder, tmp_path)
    assert live_paths(workspace) == {"src/real.py"}
    results = workspace.search(SearchRequest("real function", "main", top_k=3))
    assert results[0].verdict.value == "current"


def test_a_shallow_clone_indexes(builder, tmp_path):
    builder.commit("first")
    builder.write("src/more.py", "def more():\n    return 2\n")
    builder.commit("second")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{builder.path}", str(shallow)], check=True)
    out = cli("index", shallow, "--all-branches", "--index", tmp_path / "index")
    assert out.returncode == 0, out.stderr
    assert live_paths(Workspace(shallow, tmp_path / "index")) == {"src/real.py", "src/more.py"}


def test_a_bare_repository_indexes_searches_and_verifies_against_the_tip(builder, tmp_path):
    builder.commit("first")
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(builder.path), str(bare)], check=True)
    index = tmp_path / "index"
    assert_one_line_error(cli("index", bare, "--index", index), 2, "bare")
    assert cli("index", bare, "--branch", "main", "--index", index).returncode == 0
    out = cli("search", "real function", "--repo", bare, "--branch", "main", "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["target_commit"] == builder.head("main")
    assert answer["results"][0]["verdict"] == "current"
    saved = tmp_path / "results.json"
    saved.write_text(out.stdout)
    verified = cli("verify", saved, "--repo", bare, "--branch", "main", "--json")
    assert verified.returncode == 0, verified.stderr
    assert {row["verdict"] for row in json.loads(verified.stdout)} == {"current"}


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["index", "{repo}", "--branch", "nope"], 2, "unknown branch"),
        (["search", "q", "--repo", "{repo}", "--branch", "nope"], 2, "unknown branch"),
        (["inspect", "--repo", "{repo}", "--branch", "nope"], 2, "not indexed"),
        (["index", "{plain}"], 2, "not a git repository"),
        (["search", "q", "--repo", "{plain}", "--branch", "main"], 2, "not a git repository"),
    ],
)
def test_unknown_branches_and_non_repositories(builder, tmp_path, argv, code, message):
    builder.commit("first")
    index_main(builder, tmp_path)
    (tmp_path / "plain").mkdir()
    filled = [a.format(repo=builder.path, plain=tmp_path / "plain") for a in argv]
    assert_one_line_error(cli(*filled, "--index", tmp_path / "index"), code, message)


# secrets --------------------------------------------------------------------------------------

SECRET_FILES = (".env", "config/server.pem", "deploy/tls.key", "keys/id_rsa", "keys/id_ed25519.pub",
                "credentials.json", ".aws/credentials", "config/secrets.yml")


def test_secret_files_are_never_indexed_and_are_reported(builder, tmp_path):
    for name in SECRET_FILES:
        builder.write(name, "def leaked():\n    return 'AKIAIOSFODNN7EXAMPLE'\n")
    builder.write(".env.example", "API_KEY=\n")
    builder.commit("secrets")
    workspace = index_main(builder, tmp_path)
    reasons = skipped(workspace)
    for name in SECRET_FILES:
        assert reasons[name].startswith("secret: "), name
    assert not reasons.get(".env.example", "").startswith("secret")
    stored = {row[0] for row in workspace.store.conn.execute("SELECT path FROM identities")}
    assert stored.isdisjoint(SECRET_FILES)


def test_an_aws_key_in_code_is_redacted_in_the_index_and_the_bundle(builder, tmp_path):
    builder.write("src/aws.py", 'def aws_client():\n    key = "AKIAIOSFODNN7EXAMPLE"\n    return connect(key)\n')
    builder.commit("aws")
    index_main(builder, tmp_path)
    argv = ("export", "aws client", "--repo", builder.path, "--branch", "main", "--index", tmp_path / "index")
    for number, extra in enumerate(((), ("--allow-secrets",))):  # the key is not in the index: nothing to allow
        bundle = tmp_path / f"bundle-{number}.md"
        written = cli(*argv, "--out", bundle, *extra)
        assert written.returncode == 0, written.stderr
        assert "AKIAIOSFODNN7EXAMPLE" not in bundle.read_text()
        assert 'key = "<redacted>"' in bundle.read_text()


# outputs ----------------------------------------------------------------------------------------


def files_under(root: Path) -> set[Path]:
    return {path for path in root.rglob("*") if path.is_file() and ".git" not in path.relative_to(root).parts}


def test_commands_write_only_where_they_are_pointed(builder, tmp_path):
    builder.commit("first")
    before = files_under(tmp_path)
    out_dir = tmp_path / "exports"
    out_dir.mkdir()
    assert cli("index", builder.path).returncode == 0  # the default index lives in .git/branchwise
    assert cli("search", "real function", "--repo", builder.path, "--branch", "main").returncode == 0
    assert cli("export", "real function", "--repo", builder.path, "--branch", "main",
               "--out", out_dir / "bundle.md").returncode == 0
    assert files_under(tmp_path) - before == {out_dir / "bundle.md", out_dir / "bundle.md.manifest.json"}
    assert builder.git("status", "--porcelain", "--ignored", "--untracked-files=all") == ""
    assert (builder.path / ".git" / "branchwise" / "index.sqlite3").exists()
