"""Column layout and path shortening of the results table (pure functions, no app)."""

from __future__ import annotations

from branchwise_tui.widgets.columns import PADDING, elide_middle, elide_path, layout

LONG = "services/billing/internal/adapters/persistence/postgres/repositories/invoice_cancellation_repository.py"
WANTED = {"rank": 2, "verdict": 11, "score": 5, "path": len(LONG), "filename": 34, "symbol": 58,
          "branch": 20, "commit": 7, "indexed": 10}


def _total(widths: dict[str, int]) -> int:
    return sum(widths.values()) + PADDING * len(widths)


def test_elide_path_keeps_the_file_name_and_the_start():
    short = elide_path(LONG, 50)
    assert len(short) == 50
    assert short.endswith("/invoice_cancellation_repository.py")
    assert short.startswith("services/") and "…" in short
    assert elide_path("src/a.py", 50) == "src/a.py"
    assert elide_path(LONG, 36) == "…/invoice_cancellation_repository.py"
    assert len(elide_path(LONG, 20)) == 20  # narrower than the name: the name itself is cut


def test_elide_middle_keeps_both_ends():
    assert elide_middle("CancelOrderHandler.handle", 12) == "Canc….handle"
    assert elide_middle("short", 12) == "short"


def test_narrow_table_keeps_verdict_symbol_and_file_name():
    widths = layout(76, WANTED, frozenset({"score"}))
    assert {"verdict", "path", "symbol"} <= set(widths)
    assert widths["path"] >= WANTED["filename"] - 2
    assert _total(widths) <= 76
    assert "branch" not in widths  # optional columns give way first


def test_wide_table_shows_everything_that_fits_by_priority():
    widths = layout(150, WANTED, frozenset({"score"}))
    assert list(widths) == ["rank", "verdict", "path", "symbol", "branch", "commit", "indexed"]
    assert widths["branch"] == 16  # capped, shortened in the middle
    assert widths["symbol"] >= 40 and _total(widths) <= 150
    shown = layout(150, WANTED)
    assert "score" in shown


def test_columns_never_exceed_the_width_at_any_size():
    for width in range(60, 240, 7):
        assert _total(layout(width, WANTED)) <= max(width, _total(layout(0, WANTED))), width


def test_key_bar_keeps_the_essential_keys_when_narrow():
    from branchwise_tui.keys import KEYS
    from branchwise_tui.widgets.keybar import KeyBar

    bar = KeyBar(KEYS)
    bar.status = "searching (loading the model first)"
    narrow = bar.line(80).plain
    assert len(narrow) <= 80
    for essential in (" / ", " ? ", " q "):
        assert essential in narrow, narrow
    wide = bar.line(300).plain
    assert all(f" {k.shown} " in wide for k in KEYS if k.priority)  # every key fits at 300
    assert len(wide) > len(narrow)


CLICK = {"rank": 2, "verdict": 11, "path": 24, "filename": 13, "symbol": 34, "last_part": 20,
         "branch": 11, "commit": 7, "indexed": 10}


def test_at_80_columns_what_every_row_shares_gives_way_before_the_symbol():
    same = frozenset({"branch", "commit", "indexed"})
    widths = layout(76, CLICK, frozenset({"score"}), constant=same)
    assert widths["symbol"] == CLICK["symbol"]  # the whole name
    assert not same & set(widths)  # the title says them once instead
    assert _total(widths) <= 76
    wide = layout(196, CLICK, frozenset({"score"}), constant=same)
    assert same <= set(wide)  # with room to spare they are shown too


def test_history_rows_keep_their_branch_and_the_last_name_part():
    widths = layout(76, {**CLICK, "symbol": 60}, frozenset({"score"}), required=frozenset({"branch"}))
    assert widths["branch"] >= 8
    assert widths["symbol"] >= CLICK["last_part"] + 1
    assert _total(widths) <= 76


def test_a_score_asked_for_is_shown_at_80_columns():
    widths = layout(76, {**CLICK, "score": 5}, required=frozenset({"score"}))
    assert "score" in widths and _total(widths) <= 76


def test_the_table_title_names_a_shared_commit_even_without_a_branch():
    from branchwise_tui.widgets.results import ResultsTable

    table = ResultsTable()
    table._widths, table._same = {}, {"commit": "72ec7ed", "indexed": "2026-12-06"}
    assert table._common() == "all from commit 72ec7ed, 2026-12-06"
    table._same = {"branch": "main", "commit": "72ec7ed"}
    assert table._common() == "all from main@72ec7ed"
