"""`verify` input: the seed's snippet list, and saved `search --json` output."""

import hashlib
import json
from pathlib import Path

import pytest
from gittools import GitBuilder
from test_verify import LEGACY, PATHS, SERVICE, TEXT, indexed_results, move_past_index

from branchwise.errors import UsageError
from branchwise.git.repo import GitRepo
from branchwise.verify.snippets import verify_input


@pytest.fixture
def shop(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "shop")
    builder.write("src/orders/service.py", SERVICE)
    builder.write("src/orders/legacy.py", LEGACY)
    builder.write("src/util/text.py", TEXT)
    builder.commit("initial")
    return builder


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_snippet_list_verdicts(shop, tmp_path):
    service = file_hash(shop.path / "src/orders/service.py")
    text = file_hash(shop.path / "src/util/text.py")
    (shop.path / "src/util/text.py").write_text("# rewritten\n")
    listing = tmp_path / "snippets.tsv"
    listing.write_text(
        "# path<TAB>sha256 prefix\n"
        f"src/orders/service.py\t{service[:12]}\n"
        f"src/util/text.py\t{text[:12]}\n"
        f"src/orders/cancel_v1.py\t{service[:12]}\n"
        "docs/design/error-codes.md\t\n"
        "\n"
    )
    rows = verify_input(listing, GitRepo(shop.path))
    assert [(r["line"], r["path"], r["verdict"]) for r in rows] == [
        (2, "src/orders/service.py", "current"),
        (3, "src/util/text.py", "changed"),
        (4, "src/orders/cancel_v1.py", "deleted"),
        (5, "docs/design/error-codes.md", "deleted"),
    ]
    assert rows[0]["reason"] == f"file hash matches ({service[:12]})"
    assert rows[1]["reason"].startswith(f"file changed: recorded {text[:12]}, now ")


def test_breaking_test_one_altered_character_is_no_longer_current(shop):
    """Seed 000, 4.8: alter one hash character and the line must stop being `current`."""
    service = file_hash(shop.path / "src/orders/service.py")
    repo = GitRepo(shop.path)
    assert verify_input(f"src/orders/service.py\t{service[:12]}\n", repo)[0]["verdict"] == "current"
    broken = service[:11] + ("0" if service[11] != "0" else "1")
    assert verify_input(f"src/orders/service.py\t{broken}\n", repo)[0]["verdict"] == "changed"
    # and the check reads the file on disk, not a cached copy
    (shop.path / "src/orders/service.py").write_text(SERVICE + "\n# touched\n")
    assert verify_input(f"src/orders/service.py\t{service[:12]}\n", repo)[0]["verdict"] == "changed"


def test_path_without_hash_is_unverifiable(shop):
    rows = verify_input("src/orders/service.py\n", GitRepo(shop.path))
    assert rows[0]["verdict"] == "unverifiable"
    assert rows[0]["reason"] == "no hash recorded: a lead, not a fact"


@pytest.mark.parametrize(
    "line, message",
    [
        ("src/a.py\tnot-hex!", "line 1: 'not-hex!' is not a sha256 prefix"),
        ("src/a.py\tabc", "is not a sha256 prefix"),
        ("\tabcdef0123", "line 1: no path before the tab"),
        ("../etc/passwd\tabcdef0123", "must be relative to the repository"),
        ("/etc/passwd\tabcdef0123", "must be relative to the repository"),
    ],
)
def test_bad_snippet_lines_are_usage_errors(shop, line, message):
    with pytest.raises(UsageError, match=message):
        verify_input(line, GitRepo(shop.path))


def test_unreadable_and_empty_inputs(shop, tmp_path):
    with pytest.raises(UsageError, match="cannot read"):
        verify_input(tmp_path / "absent.tsv", GitRepo(shop.path))
    with pytest.raises(UsageError, match="the input is empty"):
        verify_input("\n\n", GitRepo(shop.path))


def test_saved_search_json_is_reverified(shop):
    base = shop.head()
    results = indexed_results(GitRepo(shop.path), "main", base, PATHS)
    saved = {
        "query": "cancel an order",
        "branch": "main",
        "target_commit": base,
        "results": [r.to_json() for r in results.values()],
    }
    move_past_index(shop)
    rows = verify_input(json.dumps(saved, indent=2), GitRepo(shop.path))
    verdicts = {row["qualified_name"]: row["verdict"] for row in rows}
    assert verdicts["OrderService.cancel_order"] == "changed"
    assert verdicts["old_cancel"] == "deleted"
    assert verdicts["helper"] == "unchanged-older"
    assert verdicts["slugify"] == "unchanged-older"  # moved unchanged: cited at its new place
    slugify = next(row for row in rows if row["qualified_name"] == "slugify")
    assert slugify["current_path"] == "src/util/slug.py"
    assert {row["query"] for row in rows} == {"cancel an order"}


def test_json_lines_with_several_queries_and_against(shop):
    base = shop.head()
    results = list(indexed_results(GitRepo(shop.path), "main", base, PATHS).values())
    lines = [
        json.dumps({"query": q, "branch": "main", "results": [r.to_json() for r in results[:2]]})
        for q in ("first", "second")
    ]
    move_past_index(shop)
    rows = verify_input("\n".join(lines) + "\n", GitRepo(shop.path), against=base)
    assert [row["query"] for row in rows] == ["first", "first", "second", "second"]
    assert {row["verdict"] for row in rows} == {"current"}


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"query": "q"', "line 1: not JSON"),
        ('{"query": "q", "branch": "main"}', 'expected an object with a "results" list'),
        ('{"query": "q", "branch": "main", "results": [{"path": "a.py"}]}', "query 1, result 1: missing language"),
        ('{"query": "q", "results": []}', "no branch recorded"),
        (
            '{"branch": "main", "results": [{"path": "a.py", "language": "python", "symbol_type": "function", '
            '"qualified_name": "f", "commit": "abc", "start_line": "one", "end_line": 2, "content_hash": "x"}]}',
            "query 1, result 1: bad field value",
        ),
    ],
)
def test_bad_json_inputs_are_usage_errors(shop, text, message):
    with pytest.raises(UsageError, match=message):
        verify_input(text, GitRepo(shop.path))


def test_file_name_and_repository_path_as_the_cli_gives_them(shop, tmp_path, monkeypatch):
    service = file_hash(shop.path / "src/orders/service.py")
    listing = tmp_path / "snippets.tsv"
    listing.write_text(f"src/orders/service.py\t{service[:12]}\n")
    assert verify_input(str(listing), str(shop.path))[0]["verdict"] == "current"
    monkeypatch.chdir(shop.path)
    assert verify_input(str(listing))[0]["verdict"] == "current"
    with pytest.raises(UsageError, match="not a git repository"):
        verify_input(str(listing), str(tmp_path))
