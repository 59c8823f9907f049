"""Golden tests: chunk identities, lines, signatures, docs and parents per language.

Regenerate on purpose with BRANCHWISE_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import pytest

from branchwise.chunking import chunk_file
from chunking_support import DATA, check_golden, data_files, git


@pytest.mark.parametrize("path", data_files(), ids=lambda p: p.name)
def test_data_file_matches_golden(path):
    relative = path.relative_to(DATA).as_posix()
    check_golden(f"data/{relative}", chunk_file("shop", relative, path.read_bytes()))


@pytest.mark.parametrize("repo_name", ["shop", "engine", "webapp"])
def test_sample_repo_main_matches_golden(sample_repos, repo_name):
    repo = sample_repos[repo_name]
    paths = [p.decode() for p in git(repo, "ls-tree", "-r", "--name-only", "-z", "main").split(b"\0") if p]
    assert paths
    for path in paths:
        data = git(repo, "show", f"main:{path}")
        check_golden(f"sample_repos/{repo_name}/{path}", chunk_file(repo_name, path, data))
