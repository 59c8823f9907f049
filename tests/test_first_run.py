"""A new user's first run, scripted on a real project cloned the way anyone clones it (its
release lines remote-only): inside the clone, with no other flag, `index --all-branches`
indexes every line, `search` answers on the checked-out branch with `path:line:` and code,
a new commit makes `search` say so and `stats`/`status` agree, and `--branch mian` suggests
`main`. Needs sinatra's bundle from ../shared/realrepos (skipped, with that reason, elsewhere)."""

from __future__ import annotations

import json
import re
import subprocess

from cli_run import ENV, branchwise
from shared_data import realrepo_bundle


def git(*argv, cwd) -> str:
    return subprocess.run(["git", *argv], cwd=cwd, env=ENV, check=True, capture_output=True, text=True).stdout


def test_the_first_ten_minutes_on_a_fresh_clone(tmp_path):
    clone = tmp_path / "sinatra"
    git("clone", "-q", str(realrepo_bundle("sinatra")), str(clone), cwd=tmp_path)
    lines = sorted(ref.removeprefix("origin/") for ref in git("branch", "-r", "--format=%(refname:short)",
                                                                  cwd=clone).split() if ref != "origin/HEAD")
    assert len(lines) > 1 and git("branch", "--format=%(refname:short)", cwd=clone).split() == ["main"]

    indexed = branchwise("index", "--all-branches", "--json", "--quiet", cwd=clone)
    assert indexed.returncode == 0, indexed.stderr
    assert sorted(b["branch"] for b in json.loads(indexed.stdout)["branches"]) == lines

    found = branchwise("search", "render a template", "--top-k", "3", "--no-stats", cwd=clone / "lib")
    assert found.returncode == 0, found.stderr
    first = found.stdout.splitlines()
    assert first[0].startswith("# render a template  (main, ")
    assert re.match(r"^  1\. current +\S+\.rb:\d+: \S", first[1]) and first[2].startswith("       ")

    (clone / "lib" / "sinatra" / "base.rb").write_text("# rewritten\n", encoding="utf-8")
    git("commit", "-qam", "a new commit", cwd=clone)
    behind = "index behind main tip by 1 commit: run `branchwise index`"
    assert f"# {behind}" in branchwise("search", "render a template", "--no-stats", cwd=clone).stdout
    assert f"re-index recommended: {behind}" in branchwise("status", cwd=clone).stdout
    assert f"Re-index recommended: main: {behind}" in branchwise("stats", cwd=clone).stdout

    typo = branchwise("search", "render", "--branch", "mian", cwd=clone)
    assert typo.returncode == 2 and "did you mean main?" in typo.stderr
