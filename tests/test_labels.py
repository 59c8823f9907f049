"""Reviewer labels: stored per version, applied to later results, exchanged as TOML."""

import sqlite3
import tomllib

import pytest

from branchwise.errors import UsageError
from branchwise.models import Identity, Label, Result, Verdict, version_id
from branchwise.review.labels import (apply_labels, clear_label, default_label, ensure_schema, export_labels,
                                      import_labels, is_override, labels_for, list_labels, notes_for, set_label)


def make_result(name: str, content_hash: str = "c" * 64, repository: str = "shop") -> Result:
    identity = Identity(repository, f"src/{name}.py", "python", "function", name)
    return Result(
        rank=1, score=1.0, identity=identity, branch="main", commit="a" * 40, start_line=1, end_line=2,
        indexed_at="2026-01-01T00:00:00+00:00", content_hash=content_hash, text=f"def {name}(): ...\n",
        blob=None, version_id=version_id(identity, content_hash),
    )


@pytest.fixture
def conn():
    connection = sqlite3.connect(":memory:")
    ensure_schema(connection)
    ensure_schema(connection)  # idempotent
    yield connection
    connection.close()


def test_labels_persist_and_apply_to_later_results(tmp_path):
    db = tmp_path / "index.sqlite"
    first = sqlite3.connect(db)
    ensure_schema(first)
    set_label(first, "shop", make_result("cancel"), "reference-only", note="the idempotency design", reviewer="ann")
    set_label(first, "shop", make_result("save"), Label.EXCLUDE, reviewer="ann")
    first.close()

    later = sqlite3.connect(db)  # a later session, new Result objects for the same versions
    results = [make_result("cancel"), make_result("save"), make_result("other"), make_result("cancel", "d" * 64)]
    apply_labels(later, results)
    assert [r.label for r in results] == [Label.REFERENCE_ONLY, Label.EXCLUDE, None, None]  # new text: label lapses
    vids = [r.version_id for r in results]
    assert notes_for(later, "shop", vids) == {vids[0]: "the idempotency design"}
    record = list_labels(later, "shop")[0]
    assert (record.qualified_name, record.note, record.reviewer) == ("cancel", "the idempotency design", "ann")


def test_relabel_replaces_and_clear_removes(conn):
    result = make_result("cancel")
    vid = set_label(conn, "shop", result, "use")
    set_label(conn, "shop", result, "exclude", note="wrong module")
    assert labels_for(conn, "shop", [vid, "unknown"]) == {vid: Label.EXCLUDE}
    assert clear_label(conn, "shop", result) is True
    assert clear_label(conn, "shop", vid) is False
    assert labels_for(conn, "shop", [vid]) == {}


def test_labels_are_per_repository(conn):
    set_label(conn, "shop", make_result("cancel"), "use")
    other = make_result("cancel", repository="engine")
    assert apply_labels(conn, [other])[0].label is None


def test_unknown_label_is_a_usage_error(conn):
    with pytest.raises(UsageError, match="unknown label 'maybe'"):
        set_label(conn, "shop", make_result("cancel"), "maybe")


def test_toml_roundtrip_recomputes_version_ids(conn, tmp_path):
    set_label(conn, "shop", make_result("cancel"), "reference-only", note="the idempotency design", reviewer="ann")
    set_label(conn, "shop", make_result("save"), "exclude", reviewer="bob")
    out = tmp_path / "labels.toml"
    assert export_labels(conn, "shop", out) == 2

    document = tomllib.loads(out.read_text())
    assert document["repository"] == "shop"
    assert document["label"][0] == {
        "path": "src/cancel.py", "qualified_name": "cancel", "symbol_type": "function", "language": "python",
        "content_hash": "c" * 64, "label": "reference-only", "note": "the idempotency design", "reviewer": "ann",
        "labelled_at": document["label"][0]["labelled_at"],
    }

    fresh = sqlite3.connect(":memory:")
    ensure_schema(fresh)
    assert import_labels(fresh, "shop", out) == 2
    results = apply_labels(fresh, [make_result("cancel"), make_result("save")])
    assert [r.label for r in results] == [Label.REFERENCE_ONLY, Label.EXCLUDE]
    assert [r.reviewer for r in list_labels(fresh, "shop")] == ["ann", "bob"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("label = [", "bad labels file"),
        ("label = 3", "array of tables"),
        ('[[label]]\npath = "a.py"', "label #1 lacks 'language'"),
        (
            '[[label]]\npath = "a.py"\nqualified_name = "f"\nsymbol_type = "function"\nlanguage = "python"\n'
            'content_hash = "abc"\nlabel = "keep"',
            "labels.toml: label #1: unknown label 'keep'",
        ),
    ],
)
def test_bad_labels_file_is_one_clear_error(conn, tmp_path, text, message):
    path = tmp_path / "labels.toml"
    path.write_text(text)
    with pytest.raises(UsageError, match=message):
        import_labels(conn, "shop", path)
    assert list_labels(conn, "shop") == []  # nothing half-imported


def test_missing_files_and_directories(conn, tmp_path):
    with pytest.raises(UsageError, match="cannot read labels file"):
        import_labels(conn, "shop", tmp_path / "absent.toml")
    with pytest.raises(UsageError, match="directory does not exist"):
        export_labels(conn, "shop", tmp_path / "no" / "labels.toml")


def test_default_handling_and_overrides():
    result = make_result("cancel")
    for verdict, default in [
        (Verdict.CURRENT, Label.USE), (Verdict.UNCHANGED_OLDER, Label.USE), (Verdict.CHANGED, Label.USE),
        (Verdict.DELETED, Label.REFERENCE_ONLY), (Verdict.UNVERIFIABLE, Label.REFERENCE_ONLY),
        (Verdict.EXCLUDED, Label.EXCLUDE),
    ]:
        result.verdict = verdict
        assert default_label(result) is default
    result.verdict, result.label = Verdict.DELETED, Label.REFERENCE_ONLY
    assert not is_override(result)
    result.label = Label.USE
    assert is_override(result)
