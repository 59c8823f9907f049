"""Fuzzy matching and natural sorting of the review app's text filter and sort (no app)."""

from __future__ import annotations

from branchwise_tui.textmatch import fuzzy_match, natural_key
from branchwise_tui.widgets.columns import elide_symbol


def test_fuzzy_match_takes_letters_in_order_in_any_case_and_every_word():
    text = "src/click/core.py::Option.resolve_envvar_value"
    assert fuzzy_match("optres", text)
    assert fuzzy_match("OPTRES", text)
    assert fuzzy_match("core envvar", text)
    assert not fuzzy_match("resopt", text)  # order matters
    assert not fuzzy_match("core termui", text)  # every word must match
    assert fuzzy_match("", text) and fuzzy_match("   ", text)


def test_natural_sort_ignores_case_and_orders_numbers_by_value():
    names = ["confirm", "Option.get_default", "Context", "v10", "v2", "argument"]
    assert sorted(names, key=natural_key) == ["argument", "confirm", "Context", "Option.get_default", "v2", "v10"]


def test_elide_symbol_keeps_the_last_part_whole_and_the_start_of_the_rest():
    name = "Option.resolve_envvar_value"
    assert elide_symbol(name, 40) == name
    assert elide_symbol(name, 24) == "Opt…resolve_envvar_value"
    assert elide_symbol("Parameter.resolve_envvar_value", 24) == "Par…resolve_envvar_value"
    assert elide_symbol(name, 21) == "…resolve_envvar_value"
    assert len(elide_symbol(name, 10)) == 10  # narrower than the last part: cut inside it
