"""Symbols of one commit as plain records, and the keys that match them across commits.

A branch diff and a tour check both ask "is this the same symbol?" of two versions that may
sit in different files or under different names. Three keys answer it: the content hash
(identical text, so a move), the shape hash (identical text once the symbol's own name is
blanked, so a rename) and, for module chunks, the module code without the symbols it spans
(a module chunk's text runs from line 1 to its last statement, so it would otherwise change
whenever any function above that statement changes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

from branchwise.chunking import chunk_file
from branchwise.git.repo import GitRepo
from branchwise.models import EXCLUDED_CLASSES, Chunk, Identity, PathClass, sha256_hex

_WORD = re.compile(r"[\w$]+")


@dataclass(frozen=True)
class Symbol:
    """One symbol as found at one commit (lines are that commit's, 1-based, inclusive)."""

    identity: Identity
    start_line: int
    end_line: int
    content_hash: str
    text: str
    path_class: PathClass = PathClass.SOURCE
    class_reason: str = ""
    #: for module chunks: the hash of the module code outside the file's other symbols
    module_hash: str | None = None

    @property
    def path(self) -> str:
        return self.identity.path

    @property
    def qualified_name(self) -> str:
        return self.identity.qualified_name

    @property
    def name(self) -> str:
        return short_name(self.identity.qualified_name)

    @property
    def set_apart(self) -> bool:
        """Generated, vendored, backup or fixture code: reported, never reviewed as source."""
        return self.path_class in EXCLUDED_CLASSES

    @property
    def compare_hash(self) -> str:
        return self.module_hash or self.content_hash

    @cached_property
    def shape_hash(self) -> str:
        return shape_hash(self.text, self.name)


def short_name(qualified_name: str) -> str:
    """`OrderService.cancel_order` -> `cancel_order`; an overload's `#2` is dropped."""
    return re.sub(r"#\d+$", "", qualified_name).rsplit(".", 1)[-1].rsplit("::", 1)[-1]


def shape_hash(text: str, name: str) -> str:
    """The text's hash with every whole-word occurrence of `name` blanked."""
    blanked = _WORD.sub(lambda m: "\0" if m.group() == name else m.group(), text) if name else text
    return sha256_hex(blanked.encode())


def with_module_hashes(symbols: list[Symbol]) -> list[Symbol]:
    """Give each module chunk the hash of its own code: its lines minus other symbols' lines."""
    by_path: dict[str, list[Symbol]] = {}
    for symbol in symbols:
        by_path.setdefault(symbol.path, []).append(symbol)
    out = []
    for symbol in symbols:
        if symbol.identity.symbol_type != "module":
            out.append(symbol)
            continue
        covered = {
            line
            for other in by_path[symbol.path]
            if other is not symbol and other.identity.symbol_type != "module"
            for line in range(other.start_line, other.end_line + 1)
        }
        own = [
            line
            for number, line in enumerate(symbol.text.splitlines(), symbol.start_line)
            if number not in covered and line.strip()
        ]
        out.append(replace(symbol, module_hash=sha256_hex("\n".join(own).encode())))
    return out


def from_chunk(chunk: Chunk) -> Symbol:
    return Symbol(
        identity=chunk.identity,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        content_hash=chunk.content_hash,
        text=chunk.text,
        path_class=chunk.path_class,
        class_reason=chunk.class_reason,
    )


def parse_symbols(repo: GitRepo, commit: str, paths, rules=None) -> list[Symbol]:
    """The symbols of `paths` at `commit`, cut by the same chunker (and rules) as the index."""
    tree = repo.list_tree(commit).files
    present = sorted(path for path in paths if path in tree)
    marks = repo.path_marks(commit, present)
    symbols: list[Symbol] = []
    for path in present:
        data = repo.read_blob(tree[path].blob)
        chunks = chunk_file(repo.name, path, data, rules, marks=marks).chunks
        symbols.extend(from_chunk(chunk) for chunk in chunks)
    return with_module_hashes(symbols)


def innermost_at(chunks: list[Chunk], line: int) -> Chunk | None:
    """The smallest chunk whose lines contain `line` (a method before its class, a function
    before its module chunk)."""
    containing = [c for c in chunks if c.start_line <= line <= c.end_line]
    return min(containing, key=lambda c: (c.end_line - c.start_line, c.identity.symbol_type == "module"),
               default=None)
