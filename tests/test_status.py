"""`branchwise status` and stale records, on repositories built in the test.

The deterministic hashing embedder is enough here: what is tested is coverage bookkeeping
(skipped files, commits behind, counts) and which files an index run parses, not ranking.
"""

from __future__ import annotations

import json

import pytest
from gittools import GitBuilder

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_cli.main import main


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "proj")
    git.write("src/alpha.py", "def alpha():\n    return 'alpha'\n")
    git.write("src/beta.py", "def beta():\n    return 'beta'\n")
    git.write("web/app.ts", "export function gamma(): number {\n  return 3;\n}\n")
    git.write(".env", "API_TOKEN=do-not-index-me\n")
    git.commit("start")
    git.branch("feature")
    return git


def status_json(capsys, repo_path) -> dict:
    capsys.readouterr()
    assert main(["status", "--repo", str(repo_path), "--json"]) == 0
    [status] = json.loads(capsys.readouterr().out)["repositories"]
    return status


def branch_of(status: dict, name: str) -> dict:
    return next(b for b in status["branches"] if b["branch"] == name)


def test_status_lists_skipped_secret_and_a_branch_behind_its_tip(repo, capsys):
    assert main(["index", str(repo.path), "--all-branches"]) == 0
    repo.checkout("feature")
    repo.write("src/beta.py", "def beta():\n    return 'beta, changed'\n")
    repo.commit("feature moves on")
    repo.write("NOTES.txt", "not code\n")
    repo.commit("feature moves again")
    repo.checkout("main")

    status = status_json(capsys, repo.path)
    main_branch, feature = branch_of(status, "main"), branch_of(status, "feature")
    assert main_branch["tip_moved"] is False and main_branch["reindex_recommended"] is False
    assert feature["tip_moved"] is True and feature["commits_behind"] == 2
    assert feature["indexed_files_changed"] == 1 and feature["changed_files"] == ["src/beta.py"]
    assert feature["reindex_recommended"] is True
    assert {"path": ".env", "reason": "secret: name matches .env"} in main_branch["skipped_files"]
    assert main_branch["skipped_by_reason"] == {"secret": 1}
    assert main_branch["by_language"] == {"python": 2, "typescript": 1}
    assert main_branch["files"] == 3 and status["embedding"]["model"] == "hashing-384"
    assert status["checked_out"] == "main" and status["stale_records"] == []

    assert main(["status", "--repo", str(repo.path)]) == 0
    text = capsys.readouterr().out
    assert ".env: secret: name matches .env" in text
    assert "2 commit(s) ahead; 1 indexed file(s) changed" in text
    assert ("re-index recommended: index behind feature tip by 2 commits: run `branchwise index` "
            "(1 indexed file(s) changed in 2 commit(s)") in text


def test_a_failed_verification_is_listed_and_only_its_file_is_parsed_again(repo, capsys):
    ws = Workspace(repo.path)
    [first] = ws.index(["main"])
    assert first.files_parsed == 4  # .env is read, then skipped as a secret
    # work-tree drift: the tip does not move, the checked-out code does
    repo.write("src/alpha.py", "def alpha():\n    return 'alpha, edited'\n")
    results = ws.search(SearchRequest("alpha", "main", top_k=5))
    alpha = next(r for r in results if r.identity.qualified_name == "alpha")
    assert alpha.verdict.value == "changed"

    status = status_json(capsys, repo.path)
    [record] = status["stale_records"]
    assert (record["path"], record["verdict"], record["version_id"]) == ("src/alpha.py", "changed", alpha.version_id)
    assert record["time"] and record["uncommitted"] is True and branch_of(status, "main")["stale_records"] == 1
    # the index holds committed code: re-indexing cannot settle an uncommitted edit
    assert branch_of(status, "main")["reindex_recommended"] is False
    assert branch_of(status, "main")["work_tree"].startswith("work tree differs from the index: commit, then index")

    [again] = Workspace(repo.path).index(["main"])
    assert again.files_parsed == 1 and again.commit == first.commit
    assert again.base.startswith("stale files re-parsed")
    assert status_json(capsys, repo.path)["stale_records"] == []
    [idle] = Workspace(repo.path).index(["main"])
    assert idle.files_parsed == 0 and idle.base == "up to date"


def test_an_index_run_compacts_the_stale_file_to_the_failures_still_pending(repo):
    from branchwise.store import stale

    ws = Workspace(repo.path)
    ws.index(["main", "feature"])
    repo.write("src/alpha.py", "def alpha():\n    return 'alpha, edited'\n")
    for _ in range(3):  # every search that meets the drift appends a line
        ws.search(SearchRequest("alpha", "main", top_k=5))
    repo.git("stash")
    repo.checkout("feature")
    repo.write("src/beta.py", "def beta():\n    return 'beta, edited'\n")
    Workspace(repo.path).search(SearchRequest("beta", "feature", top_k=5))
    repo.git("checkout", "--", "src/beta.py")
    repo.checkout("main")
    repo.git("stash", "pop")
    lines = stale.stale_path(ws.index_dir).read_text().splitlines()
    assert len(lines) == 4

    Workspace(repo.path).index(["main"])  # re-parses alpha.py of main: its three lines go
    kept = [json.loads(line) for line in stale.stale_path(ws.index_dir).read_text().splitlines()]
    assert [(k["kind"], k["branch"], k["path"]) for k in kept] == [("failure", "feature", "src/beta.py")]
    assert stale.pending(ws.index_dir) == kept
    Workspace(repo.path).index(["feature"])
    assert stale.stale_path(ws.index_dir).read_text() == ""


def test_stale_only_reparses_at_the_indexed_commit_and_the_default_run_adds_the_diff(repo, capsys):
    ws = Workspace(repo.path)
    ws.index(["main"])
    indexed = ws.repo.resolve_branch("main")
    repo.write("src/alpha.py", "def alpha():\n    return 'alpha, edited'\n")
    ws.search(SearchRequest("alpha", "main", top_k=5))
    repo.git("stash")
    repo.write("src/beta.py", "def beta():\n    return 'beta, committed'\n")
    repo.commit("tip moves")
    repo.git("stash", "pop")

    capsys.readouterr()
    assert main(["index", str(repo.path), "--stale-only", "--json"]) == 0
    [summary] = json.loads(capsys.readouterr().out)["branches"]
    assert (summary["branch"], summary["files_parsed"], summary["commit"]) == ("main", 1, indexed)
    assert branch_of(status_json(capsys, repo.path), "main")["commits_behind"] == 1

    Workspace(repo.path).search(SearchRequest("alpha", "main", top_k=5))  # still drifted: flagged again
    [run] = Workspace(repo.path).index([])
    assert run.files_parsed == 2  # beta.py from the diff, alpha.py from its stale record
    status = status_json(capsys, repo.path)
    assert status["stale_records"] == [] and branch_of(status, "main")["tip_moved"] is False


def test_status_of_every_repository_in_an_index_and_bad_input(repo, tmp_path, capsys):
    other = GitBuilder(tmp_path / "other")
    other.write("lib.py", "def helper():\n    return 1\n")
    other.commit("one")
    index = tmp_path / "shared-index"
    assert main(["index", str(repo.path), "--index", str(index)]) == 0
    assert main(["index", str(other.path), "--index", str(index)]) == 0
    capsys.readouterr()
    assert main(["status", "--index", str(index), "--json"]) == 0
    names = [s["repository"] for s in json.loads(capsys.readouterr().out)["repositories"]]
    assert names == ["other", "proj"]

    assert main(["status", "--index", str(tmp_path / "nothing-here")]) == 2  # bad input: a mistyped --index (exit 2, never a new index)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no index at" in err
    assert main(["status", "--repo", str(tmp_path)]) == 2
    assert "not a git repository" in capsys.readouterr().err


def status_text(capsys, repo_path) -> str:
    capsys.readouterr()
    assert main(["status", "--repo", str(repo_path)]) == 0
    return capsys.readouterr().out


def test_an_uncommitted_edit_says_commit_then_index_and_a_new_commit_says_run_index(repo, capsys):
    assert main(["index", str(repo.path), "--branch", "main", "--quiet"]) == 0
    repo.write("src/alpha.py", "def alpha():\n    return 'alpha, edited'\n")
    ws = Workspace(repo.path)
    [alpha] = [r for r in ws.search(SearchRequest("alpha", "main", top_k=5)) if r.identity.qualified_name == "alpha"]
    assert alpha.verdict.value == "changed"  # recorded as a stale record, against the work tree
    ws.close()

    main_branch = branch_of(status_json(capsys, repo.path), "main")
    assert main_branch["reindex_recommended"] is False
    assert main_branch["work_tree_files_changed"] == 1 and main_branch["work_tree_changed_files"] == ["src/alpha.py"]
    text = status_text(capsys, repo.path)
    assert "re-index recommended" not in text and "run `branchwise index`" not in text
    assert ("    work tree differs from the index: commit, then index (1 indexed file with uncommitted edits; "
            "1 record failed verification against them)") in text
    assert "no re-index needed: indexed at the branch tip" in text

    repo.commit("the edit, committed")
    main_branch = branch_of(status_json(capsys, repo.path), "main")
    assert main_branch["reindex_recommended"] is True and main_branch["work_tree"] is None
    text = status_text(capsys, repo.path)
    assert ("    re-index recommended: index behind main tip by 1 commit: run `branchwise index` "
            "(1 indexed file(s) changed in 1 commit(s)") in text
    assert "work tree differs" not in text

    assert main(["index", str(repo.path), "--branch", "main", "--quiet"]) == 0
    main_branch = branch_of(status_json(capsys, repo.path), "main")
    assert main_branch["reindex_recommended"] is False and main_branch["stale_records"] == 0


def test_the_model_line_names_the_path_weight_once(repo, capsys):
    assert main(["index", str(repo.path), "--branch", "main", "--quiet"]) == 0
    [model] = [line for line in status_text(capsys, repo.path).splitlines() if line.startswith("  model:")]
    assert model.count("path weight") == 1 and "recipe " in model, model
