"""Overload stubs fold into their implementation (overloads.py): one chunk, the bare name."""

from __future__ import annotations

from branchwise.chunking import chunk_file

PYTHON = '''import typing as t


class Reader:
    @t.overload
    def read(self, key: str) -> str: ...

    @t.overload
    def read(self, key: str, default: int) -> int: ...

    def read(self, key, default=None):
        """Read one value."""
        return default


@t.overload
def parse(text: str) -> str: ...
@t.overload
def parse(text: bytes) -> bytes: ...
def parse(text):
    return text
'''


def _named(path: str, text: str) -> dict[str, object]:
    return {c.identity.qualified_name: c for c in chunk_file("r", path, text.encode()).chunks}


def test_stubs_and_implementation_are_one_chunk_named_without_a_repeat_suffix():
    chunks = _named("reader.py", PYTHON)
    assert set(chunks) == {"Reader", "Reader.read", "parse"}
    read = chunks["Reader.read"]
    assert read.text.count("def read(") == 3 and read.text.lstrip().startswith("@t.overload")
    assert read.signature == "def read(self, key, default=None):" and read.docstring == "Read one value."
    assert chunks["parse"].text.count("def parse(") == 3
    assert chunks["parse"].embedding_text.startswith("function parse\n")


def test_the_class_outline_lists_the_folded_method_once():
    reader = _named("reader.py", PYTHON)["Reader"]
    assert reader.skeleton is not None and reader.skeleton.count("Reader.read") == 1


def test_a_definition_of_another_name_between_keeps_them_apart():
    text = "from typing import overload\n\n@overload\ndef f(a: int) -> int: ...\n\ndef g():\n    pass\n\ndef f(a):\n    return a\n"
    chunks = _named("m.py", text)
    assert set(chunks) == {"f", "g", "f#2"}  # not an overload group: f's stub stays alone


def test_typescript_overload_signatures_belong_to_the_implementation():
    text = "export function f(a: string): string;\nexport function f(a: number): number;\nexport function f(a: any) {\n  return a;\n}\n"
    [chunk] = chunk_file("r", "f.ts", text.encode()).chunks
    assert (chunk.identity.qualified_name, chunk.start_line, chunk.end_line) == ("f", 1, 5)
