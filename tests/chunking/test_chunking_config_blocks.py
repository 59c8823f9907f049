"""Configuration files cut into top-level blocks, and what that means for verification."""

from __future__ import annotations

from gittools import GitBuilder

from branchwise.chunking import chunk_file
from branchwise.git.repo import GitRepo
from branchwise.models import Result, Verdict
from branchwise.verify.verifier import Verifier

PYPROJECT = """[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "demo"
dependencies = [
    "requests>=2",
]

# how the tests run
[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-ra"

[[tool.mypy.overrides]]
module = "a"

[[tool.mypy.overrides]]
module = "b"
"""

COMPOSE = """version: "3.9"
services:
  # the web front
  web:
    image: nginx
    ports:
      - "80:80"
  db:
    image: postgres
volumes:
  data: {}
"""

PACKAGE_JSON = """{
  "name": "web",
  "scripts": {
    "build": "tsc",
    "test": "vitest"
  },
  "dependencies": {"react": "^18"}
}
"""


def blocks(path: str, text: str) -> list[tuple[str, str, int, int]]:
    return [
        (c.identity.symbol_type, c.identity.qualified_name, c.start_line, c.end_line)
        for c in chunk_file("demo", path, text.encode()).chunks
    ]


def test_pyproject_yields_one_chunk_per_table():
    assert blocks("pyproject.toml", PYPROJECT) == [
        ("config", "build-system", 1, 3),
        ("config", "project", 5, 9),
        ("config", "tool.pytest.ini_options", 11, 14),  # its comment line comes with it
        ("config", "tool.mypy.overrides[0]", 16, 17),
        ("config", "tool.mypy.overrides[1]", 19, 20),
    ]


def test_chunk_text_is_exactly_its_lines():
    lines = PYPROJECT.splitlines()
    for chunk in chunk_file("demo", "pyproject.toml", PYPROJECT.encode()).chunks:
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert chunk.identity.language == "toml"


def test_compose_services_split_one_level_further():
    assert blocks("docker-compose.yml", COMPOSE) == [
        ("config", "version", 1, 1),
        ("config", "services.web", 2, 7),
        ("config", "services.db", 8, 9),
        ("config", "volumes", 10, 11),
    ]


def test_json_top_level_keys_without_the_closing_brace():
    assert blocks("web/package.json", PACKAGE_JSON) == [
        ("config", "name", 2, 2),
        ("config", "scripts", 3, 6),
        ("config", "dependencies", 7, 7),
    ]


def test_files_that_do_not_split_stay_one_chunk():
    for path, text in [
        ("broken.toml", "[a\nb = 1\n"),  # does not parse
        ("list.yaml", "- a\n- b\n"),  # not a mapping
        ("two-docs.yaml", "a: 1\n---\nb: 2\n"),
        ("min.json", '{"a": 1, "b": 2}\n'),  # two keys on one line
        ("array.json", "[1, 2]\n"),
        ("one.toml", "[only]\nx = 1\n"),  # a single block is the whole file anyway
    ]:
        assert [b[0] for b in blocks(path, text)] == ["file"], path


def test_an_edit_to_one_table_leaves_the_others_current(tmp_path):
    builder = GitBuilder(tmp_path / "demo")
    builder.write("pyproject.toml", PYPROJECT)
    commit = builder.commit("initial")
    repo = GitRepo(builder.path)
    blob = repo.blob_at(commit, "pyproject.toml")
    results = []
    for chunk in chunk_file(repo.name, "pyproject.toml", repo.read_blob(blob)).chunks:
        results.append(Result(
            rank=len(results) + 1, score=1.0, identity=chunk.identity, branch="main", commit=commit,
            start_line=chunk.start_line, end_line=chunk.end_line, indexed_at="2026-01-01T00:00:00+00:00",
            content_hash=chunk.content_hash, text=chunk.text, blob=blob, version_id=chunk.version_id,
        ))
    builder.write("pyproject.toml", PYPROJECT.replace('addopts = "-ra"', 'addopts = "-ra -q"'))
    builder.commit("quieter tests")
    Verifier(repo, "main").verify(results)
    verdicts = {r.identity.qualified_name: r.verdict for r in results}
    assert verdicts.pop("tool.pytest.ini_options") == Verdict.CHANGED
    assert set(verdicts.values()) == {Verdict.UNCHANGED_OLDER}
