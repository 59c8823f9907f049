"""train/negatives.py: the hard negative is a lexical neighbour, never the pair itself or a
symbol of the same name, and with files given, a sibling of the same file first."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("scipy")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from train.negatives import hard_negatives  # noqa: E402

QUERIES = ["Parse the config file into sections.", "Write the config file to disk.",
           "Parse a date string.", "Open a socket."]
CODES = ["def parse_config(path): sections = read config file",
         "def write_config(path): write config file disk",
         "def parse_date(text): date string",
         "def open_socket(host): socket connect host"]
NAMES = ["config.parse_config", "config.write_config", "dates.parse_date", "net.open_socket"]


def test_the_library_wide_negative_is_the_best_other_lexical_match():
    negatives = hard_negatives(QUERIES, CODES, NAMES)
    assert negatives[0] == 1  # shares "config file" more than parse_date shares "parse"
    assert negatives[2] == 0  # "parse" is the only word it shares with another text
    assert all(j != i for i, j in enumerate(negatives[:3]))


def test_a_symbol_of_the_same_name_is_never_the_negative():
    names = ["config.parse_config", "other.parse_config", "dates.parse_date", "net.open_socket"]
    assert hard_negatives(QUERIES, CODES, names)[0] != 1


def test_with_files_a_sibling_of_the_same_file_comes_first():
    files = ["dates.py", "config.py", "dates.py", "net.py"]
    # library-wide, parse_config's best neighbour is write_config; its own file holds parse_date
    assert hard_negatives(QUERIES, CODES, NAMES)[0] == 1
    negatives = hard_negatives(QUERIES, CODES, NAMES, files)
    assert negatives[0] == 2
    # a file with no sibling sharing a word falls back to the library's best match
    assert negatives[1] == 0
    # nothing shares a word with "Open a socket" but its own text: the pair is its own negative
    assert negatives[3] == 3
