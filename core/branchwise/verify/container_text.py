"""A container result's whole text, put back together from the file it was indexed from.

The index keeps a container (class, struct, interface, trait...) whose members are chunks of
their own as a skeleton: its lines with each member's replaced by a marker line, because the
members are stored once as their own versions and one container version serves every branch
whose members differ only in their bodies. A reader wants the container's exact lines as they
are where the result was found, and the result carries that file's blob and line range, so
this cuts them from git once more (and redacts them as the chunker did): each line is shown
exactly once, from the branch the result comes from.
"""

from __future__ import annotations

from dataclasses import replace

from branchwise.chunking import chunk_file
from branchwise.chunking.lines import decode, line_range_bytes
from branchwise.chunking.outline_key import is_skeleton
from branchwise.git.repo import GitRepo
from branchwise.models import Result
from branchwise.secrets import redact
from branchwise.verify.symbols import Symbol


def _blob_data(repo: GitRepo, blob: str | None) -> bytes | None:
    if not blob:
        return None
    try:
        return repo.read_blob(blob)
    except (ValueError, OSError, KeyError):  # gitpython raises these for a missing object
        return None


def _lines(data: bytes, start_line: int, end_line: int) -> str:
    return redact(decode(line_range_bytes(data, start_line, end_line)))


def fill_text(repo: GitRepo, result: Result) -> bool:
    """Replace a skeleton `text` with the container's lines in the result's blob; False when
    the text is no skeleton or the blob is gone (the skeleton stays: history rewritten away)."""
    if not is_skeleton(result.text):
        return False
    data = _blob_data(repo, result.blob)
    if data is None:
        return False
    result.text = _lines(data, result.start_line, result.end_line)
    return True


def text_in_file(repo: GitRepo, result: Result, qualified_name: str, stored: str | None,
                 same_outline: bool = True) -> str | None:
    """The whole text of the symbol `qualified_name` in the result's own file, when the index
    keeps it as a skeleton (`stored`) and that file holds it (with the same outline, unless
    `same_outline` is off); else `stored`."""
    if stored is None or not is_skeleton(stored):
        return stored
    data = _blob_data(repo, result.blob)
    if data is None:
        return stored
    chunks = chunk_file(result.identity.repository, result.path, data).chunks
    found = next((c for c in chunks if c.identity.qualified_name == qualified_name
                  and (c.stored_text == stored or not same_outline)), None)
    return found.text if found is not None else stored


def symbol_texts(repo: GitRepo, commit: str, symbols: list[Symbol]) -> list[Symbol]:
    """The symbols a live set holds at `commit`, each container with its lines there."""
    data: dict[str, bytes | None] = {}
    out = []
    for symbol in symbols:
        if is_skeleton(symbol.text):
            if symbol.path not in data:
                data[symbol.path] = _blob_data(repo, repo.blob_at(commit, symbol.path))
            found = data[symbol.path]
            if found is not None:
                symbol = replace(symbol, text=_lines(found, symbol.start_line, symbol.end_line))
        out.append(symbol)
    return out
