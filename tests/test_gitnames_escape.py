"""The text form of git's names (gitnames.py): storable everywhere, lossless, and unchanged for
ordinary names."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from branchwise.git.names import canonical_name, git_arg, name_bytes, name_from_git

LATIN1 = b"caf\xe9.py"  # café.py as Latin-1: not UTF-8
LATIN1_NAME = "caf\\xe9.py"


@given(st.binary(max_size=12).filter(lambda b: b"\0" not in b))
def test_every_byte_string_has_one_text_form_that_reads_back(raw):
    name = name_from_git(raw)
    name.encode("utf-8")  # always storable: SQLite, JSON and TOML take it
    assert name_bytes(name) == raw
    assert canonical_name(name) == name
    assert name_from_git(raw.decode("utf-8", "surrogateescape")) == name


@given(st.text(alphabet="\\xe9a8Zé\u0085", max_size=10))
def test_valid_utf8_names_without_escape_like_backslashes_are_unchanged(text):
    raw = text.encode("utf-8")
    if "\\" not in text:
        assert name_from_git(raw) == text
    assert name_bytes(name_from_git(raw)) == raw


def test_the_escape_is_defined_and_unambiguous():
    assert name_from_git(LATIN1) == LATIN1_NAME
    assert name_from_git(b"caf\\xe9.py") == "caf\\\\xe9.py"  # the file literally named so
    assert name_from_git(b"dir\\file.py") == "dir\\file.py"  # a lone backslash stays
    assert git_arg(LATIN1_NAME) == os.fsdecode(LATIN1)
    assert canonical_name(os.fsdecode(LATIN1)) == LATIN1_NAME  # as argv gives raw bytes


