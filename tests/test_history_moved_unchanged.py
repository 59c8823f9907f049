"""A history copy whose text moved unchanged is history: reference-only, and it says where it lives.

Issue 28, rule 6: `--scope all` adds, never changes, and a history result is reference-only in
every bundle unless a reviewer labels it `use`. A copy from another branch (or deleted code)
whose text the target holds unchanged at another place used to default to `use`, so asking with
`--scope all` put code under "use" that `--scope branch` did not. Now: the code to use is the
same in both scopes; the history copy sits under "History and references" with a Purpose line
that names the place where its text is current (it is not "do not copy" code); a reviewer's
`use` still puts it under use; and the branch's *own* code that moved unchanged (an index
behind the tip) stays `use`, current at its new place.
Real git, SQLite, FAISS; the hashing embedder and the lexical ranking (no model involved).
"""

from __future__ import annotations

import re

import pytest
from gittools import GitBuilder

from branchwise.models import Label
from branchwise.review.labels import effective_label
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

NUMBERS = '''def format_invoice_number(year, serial):
    """Format an invoice number: the invoice year, a dash, the invoice serial."""
    return f"INV-{year}-{serial:06d} invoice number"
'''
CODES = '''def format_invoice_code(serial):
    return f"C{serial:04d}"
'''
QUERY = "format invoice number year serial"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def billing(tmp_path):
    """main holds format_invoice_code in billing/codes.py; feature/legacy had the same function,
    the same text, in billing/legacy.py (a path main never had)."""
    builder = GitBuilder(tmp_path / "billing")
    builder.write("billing/numbers.py", NUMBERS)
    builder.commit("invoice numbers")
    builder.branch("feature/legacy")
    builder.write("billing/codes.py", CODES)
    builder.commit("invoice codes")
    builder.checkout("feature/legacy")
    builder.write("billing/legacy.py", CODES)
    builder.commit("legacy invoice codes")
    builder.checkout("main")
    ws = Workspace(builder.path, tmp_path / "index")
    ws.index(["main", "feature/legacy"])
    yield builder, ws
    ws.close()


def _sections(markdown: str) -> tuple[str, str]:
    rest = markdown.partition("## Left out")[0]
    use, _, history = rest.partition("## History and references")
    return use, history


def _legacy(results):
    return next(r for r in results if r.path == "billing/legacy.py")


def test_a_history_copy_moved_unchanged_is_reference_only_and_names_its_current_place(billing):
    _, ws = billing
    request = SearchRequest(QUERY, "main", top_k=10, mode="lexical", scope="all")
    results = ws.search(request)
    legacy = _legacy(results)
    assert legacy.history and legacy.moved_unchanged and legacy.current_path == "billing/codes.py"
    assert effective_label(legacy) is Label.REFERENCE_ONLY
    assert legacy.to_json()["verdict"] == "deleted" and legacy.to_json()["label"] is None

    alone = ws.review.build_bundle(request, results=[legacy])
    use, history = _sections(alone.text)
    assert "format_invoice_code" not in use
    assert "Check: deleted here; its text is unchanged at billing/codes.py" in history
    assert ("Purpose: history, for reference; its text is current code at billing/codes.py#L1-L2 "
            "(cite that place, not this one)") in history
    assert "do not copy the implementation" not in history  # its text is the branch's code as it is now
    entry = alone.manifest["results"][0]
    assert entry["label"] == "reference-only" and entry["section"] == "history-and-references"

    # a reviewer's word still counts: labelled use, it is code to use
    ws.review.set_label(legacy, Label.USE)
    relabelled = ws.search(request)
    use, history = _sections(ws.review.build_bundle(request, results=[_legacy(relabelled)]).text)
    assert "def format_invoice_code(serial):" in use and "Purpose:" not in use


def test_scope_all_adds_no_code_to_use(billing):
    _, ws = billing
    for top_k in (1, 2, 4, 10):
        own = SearchRequest(QUERY, "main", top_k=top_k, mode="lexical")
        everything = SearchRequest(QUERY, "main", top_k=top_k, mode="lexical", scope="all")
        branch_use, _ = _sections(ws.review.build_bundle(own).text)
        all_use, all_history = _sections(ws.review.build_bundle(everything).text)
        results = ws.search(everything)
        assert any(r.history and r.moved_unchanged for r in results), top_k  # the case is there
        # the code to use is the branch's own, whatever the scope: the chunks under "use" are
        # the same (their numbering aside), and history only adds references after them
        assert _chunk_names(branch_use), top_k
        assert _chunk_names(all_use) == _chunk_names(branch_use), top_k
        if top_k == 1:  # main's own copy is outside the top 1: the history copy is what comes
            assert "billing/legacy.py (deleted on main; moved unchanged to billing/codes.py" in all_history


def test_the_branchs_own_code_moved_unchanged_stays_use(tmp_path):
    builder = GitBuilder(tmp_path / "own")
    builder.write("billing/legacy.py", CODES)
    builder.commit("codes")
    ws = Workspace(builder.path, tmp_path / "index")
    ws.index(["main"])
    builder.git("mv", "billing/legacy.py", "billing/codes.py")
    builder.commit("move the codes")  # not indexed: main's index is behind its tip
    request = SearchRequest("invoice code serial", "main", top_k=5, mode="lexical")
    results = ws.search(request)
    legacy = _legacy(results)
    assert not legacy.history and legacy.moved_unchanged
    assert effective_label(legacy) is Label.USE
    use, history = _sections(ws.review.build_bundle(request).text)
    assert "def format_invoice_code(serial):" in use and not history
    ws.close()


def _chunk_names(section: str) -> list[str]:
    """The chunk headings of a bundle section ("## 2. format_invoice_number" -> the name)."""
    return [line.split(". ", 1)[1] for line in section.splitlines() if re.match(r"#{2,3} \d+\. ", line)]


def test_history_the_asked_branch_never_had_is_not_called_a_deletion(tmp_path):
    """Issue 46, truth 2: with --scope all on an old release line, a symbol that only a newer
    branch has is history from that branch: its reason says the asked branch never had it (not
    that it was deleted), and it is never under use."""
    builder = GitBuilder(tmp_path / "lines")
    builder.write("billing/numbers.py", NUMBERS)
    builder.commit("numbers")
    builder.branch("release/1.x")
    builder.write("billing/codes.py", CODES)
    builder.commit("codes, on main only")
    builder.write("billing/numbers.py", NUMBERS + "\n\ndef format_invoice_serial(serial):\n    return serial\n")
    builder.commit("a serial formatter, on main only")
    builder.checkout("release/1.x")
    ws = Workspace(builder.path, tmp_path / "index")
    ws.index(["main", "release/1.x"])
    try:
        results = ws.search(SearchRequest("format invoice code serial", "release/1.x", top_k=6, scope="all"))
        newer = [r for r in results if r.history and r.identity.qualified_name in ("format_invoice_code",
                                                                                   "format_invoice_serial")]
        assert newer, [r.identity.qualified_name for r in results]
        for result in newer:
            assert result.reason.startswith("not on release/1.x: this code is from main and no indexed commit")
            assert "deleted" not in result.reason and effective_label(result) is Label.REFERENCE_ONLY
    finally:
        ws.close()


def test_history_the_asked_branch_deleted_is_still_a_deletion(tmp_path):
    builder = GitBuilder(tmp_path / "gone")
    builder.write("billing/numbers.py", NUMBERS)
    builder.write("billing/codes.py", CODES)
    builder.commit("both")
    ws = Workspace(builder.path, tmp_path / "index")
    ws.index(["main"])
    builder.delete("billing/codes.py")
    builder.commit("codes removed")
    ws.index(["main"])
    try:
        results = ws.search(SearchRequest("format invoice code serial", "main", top_k=6, scope="all"))
        gone = next(r for r in results if r.identity.qualified_name == "format_invoice_code")
        assert gone.history and gone.reason.startswith("file deleted at target")
    finally:
        ws.close()
