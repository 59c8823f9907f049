"""Path classes and skip reasons: every default rule, and configuration."""

from __future__ import annotations

import pytest

from branchwise.chunking import ChunkingRules, chunk_file, classify_path
from branchwise.models import PathClass

RULES = ChunkingRules()
CODE = b"def f():\n    return 1\n"


@pytest.mark.parametrize(
    ("path", "expected_class", "reason_start"),
    [
        ("src/orders/service.py", PathClass.SOURCE, ""),
        ("api/orders_pb2.py", PathClass.GENERATED, "generated: path matches *_pb2.py"),
        ("src/generated/client.py", PathClass.GENERATED, "generated: path matches generated/"),
        ("src/repo_old.py", PathClass.BACKUP, "backup: name matches *_old.*"),
        ("src/repo.py.bak", PathClass.BACKUP, "backup: name matches *.bak"),
        ("src/repo.py.orig", PathClass.BACKUP, "backup: name matches *.orig"),
        ("src/repo.py~", PathClass.BACKUP, "backup: name matches *~"),
        ("tests/fixtures/orders.py", PathClass.FIXTURE, "fixture: path matches fixtures/"),
        ("pkg/testdata/in.go", PathClass.FIXTURE, "fixture: path matches testdata/"),
        ("src/__fixtures__/a.ts", PathClass.FIXTURE, "fixture: path matches __fixtures__/"),
        ("vendor/lib/x.go", PathClass.VENDORED, "vendored: path matches vendor/"),
        ("third_party/z.py", PathClass.VENDORED, "vendored: path matches third_party/"),
        ("web/node_modules/a/index.js", PathClass.VENDORED, "vendored: path matches node_modules/"),
        ("tests/test_orders.py", PathClass.TEST, "test: path matches tests/"),
        ("src/test_orders.py", PathClass.TEST, "test: path matches test_*.py"),
        ("pkg/store_test.go", PathClass.TEST, "test: path matches *_test.go"),
        ("web/api.test.ts", PathClass.TEST, "test: path matches *.test.ts"),
        ("web/api.spec.ts", PathClass.TEST, "test: path matches *.spec.ts"),
        ("app/src/test/java/AppTest.java", PathClass.TEST, "test: path matches test/"),
        ("docs/guide.txt", PathClass.DOCS, "docs: path matches docs/"),
        ("README.md", PathClass.DOCS, "docs: path matches *.md"),
        ("notes.rst", PathClass.DOCS, "docs: path matches *.rst"),
    ],
)
def test_path_rules(path, expected_class, reason_start):
    path_class, reason = classify_path(path, CODE, RULES)
    assert path_class == expected_class
    assert reason == reason_start


@pytest.mark.parametrize("marker", ["Code generated", "@generated", "DO NOT EDIT"])
def test_generated_markers_in_header(marker):
    data = f"// {marker} by protoc.\npackage x\n".encode()
    assert classify_path("x.go", data, RULES) == (
        PathClass.GENERATED, f"generated: {marker!r} marker in header"
    )


def test_marker_below_the_header_does_not_count():
    data = b"\n" * 10 + b"// DO NOT EDIT\n"
    assert classify_path("x.go", data, RULES)[0] == PathClass.SOURCE


def test_linguist_generated_paths():
    assert classify_path("a/b.py", CODE, RULES, frozenset({"a/b.py"})) == (
        PathClass.GENERATED, "generated: marked linguist-generated in .gitattributes"
    )


def test_minified_by_shape():
    minified = b"var a=function(b){return b+1};" * 100
    assert classify_path("dist/app.js", minified, RULES)[1].startswith("generated: minified")
    punctuation_heavy = (b"{[(" * 80 + b"ab" + b")]}" * 80 + b"\n") * 20
    assert classify_path("data.js", punctuation_heavy, RULES)[0] == PathClass.GENERATED
    long_prose = b"word " * 400
    assert classify_path("notes.md", long_prose, RULES)[0] == PathClass.DOCS


def test_one_long_line_in_written_code_is_not_minified():
    """phoenix's `endpoint.ex` is 1,100 written lines and one base64 logo of 4,390 characters: it
    is source. A file whose long lines hold most of it is still minified."""
    written = b"defmodule Phoenix.Endpoint do\n" + b"  def config(key), do: fetch(key)\n" * 300
    logo = b'  @logo "data:image/svg+xml;base64,' + b"PHN2ZyB2aWV3Qm94" * 280 + b'"\n'
    assert classify_path("lib/phoenix/endpoint.ex", written + logo + written, RULES)[0] == PathClass.SOURCE
    assert classify_path("lib/phoenix/logo.ex", b"defmodule Logo do\n" + logo * 3 + b"end\n", RULES)[0] \
        == PathClass.GENERATED


def test_every_chunk_carries_the_file_class():
    result = chunk_file("repo", "src/repo_old.py", CODE)
    assert result.path_class == PathClass.BACKUP
    assert [(c.path_class, c.class_reason) for c in result.chunks] == [
        (PathClass.BACKUP, "backup: name matches *_old.*")
    ]


@pytest.mark.parametrize(
    "path", [".env", "config/.env.production", "certs/server.pem", "tls.key", "home/id_rsa",
             "id_ed25519.pub", "aws/credentials", "gcp-credentials.json"],
)
def test_secret_files_are_skipped(path):
    result = chunk_file("repo", path, b"TOKEN=abc\n")
    assert result.skipped.startswith("secret: name matches")
    assert result.chunks == []


def test_env_example_is_not_a_secret():
    assert chunk_file("repo", ".env.example", b"TOKEN=\n").skipped is None


def test_rules_from_mapping_override_and_validate():
    rules = ChunkingRules.from_mapping(
        {"max_file_bytes": 10, "test_globs": ["checks/"], "minified_max_alnum_share": 1}
    )
    assert rules.max_file_bytes == 10 and rules.test_globs == ("checks/",)
    assert rules.minified_max_alnum_share == 1.0
    assert classify_path("checks/a.py", CODE, rules)[0] == PathClass.TEST
    assert classify_path("tests/a.py", CODE, rules)[0] == PathClass.SOURCE
    with pytest.raises(ValueError, match="unknown chunking setting 'nope'"):
        ChunkingRules.from_mapping({"nope": 1})
    with pytest.raises(ValueError, match="max_file_bytes"):
        ChunkingRules.from_mapping({"max_file_bytes": "big"})
    with pytest.raises(ValueError, match="index_unknown_languages"):
        ChunkingRules.from_mapping({"index_unknown_languages": 1})
    with pytest.raises(ValueError, match="list of strings"):
        ChunkingRules.from_mapping({"docs_globs": "docs/"})


def test_glob_fast_paths_match_as_fnmatch_does():
    """globs.py matches `*x`, `x*`, `*x*` and `x` without a regular expression: every default
    pattern, and the edge cases of a bare or doubled star, agree with fnmatch on many names."""
    import dataclasses
    import random
    from fnmatch import fnmatchcase

    from branchwise.chunking.globs import _matcher
    from branchwise.chunking.rules import DEFAULT_RULES

    patterns = {"*", "**", "", "a", "*a*", "a*b", "*[ab]", "?", "*?", "x*", "*.py"}
    for field in dataclasses.fields(DEFAULT_RULES):
        value = getattr(DEFAULT_RULES, field.name)
        if isinstance(value, tuple) and all(isinstance(p, str) for p in value):
            patterns |= {p for p in value if not p.endswith("/")}
    pick = random.Random(47)
    names = ["", "a", "*", "test_a.py", "app.min.js", "a/b/c_pb2.py", "footest/gtest/y.cc"]
    names += ["".join(pick.choice("ab.py_/testmin*?[]-") for _ in range(pick.randint(0, 10))) for _ in range(1500)]
    names += [p.replace("*", "zz") for p in patterns] + [p.replace("*", "") for p in patterns]
    assert len(patterns) > 100
    assert [(p, n) for p in sorted(patterns) for n in names if _matcher(p)(n) != fnmatchcase(n, p)] == []
