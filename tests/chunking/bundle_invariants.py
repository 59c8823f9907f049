"""Structural invariants of one file's symbol chunks, on top of test_chunking_invariants.

Symbol chunks nest or are disjoint (a `module` chunk spans line 1 to the last module-level
statement and may hold symbols, so it is left out), and every byte of each definition the
query found lies in the chunk named after it.
"""

from __future__ import annotations

import re

from branchwise.chunking import chunk_file
from branchwise.chunking.grammars import parse
from branchwise.chunking.languages import grammar_for_file
from branchwise.chunking.lines import LineTable
from branchwise.chunking.naming import csharp_partial_parts
from branchwise.chunking.symbols import find_symbols


def nesting_problems(path: str, data: bytes) -> list[str]:
    result = chunk_file("bundle", path, data)
    problems = []
    spans = sorted((c.start_line, c.end_line, c.identity.qualified_name) for c in result.chunks
                   if c.identity.symbol_type not in ("module", "file", "config"))
    for i, (start, end, name) in enumerate(spans):
        for other_start, other_end, other in spans[i + 1:]:
            if other_start > end:
                break
            if other_end > end:  # starts inside, ends after: neither nested nor disjoint
                problems.append(f"{path}: {name} {start}-{end} overlaps {other} {other_start}-{other_end}")
    grammar = grammar_for_file(path, data)
    if grammar is None or result.skipped:
        return problems
    table = LineTable(data)
    chunks: dict[tuple[str, str], list] = {}
    for c in result.chunks:
        chunks.setdefault((c.identity.symbol_type, re.sub(r"#\d+$", "", c.identity.qualified_name)), []).append(c)
    root = parse(grammar, data).root_node
    definitions = find_symbols(grammar, root, table).definitions
    if grammar == "c_sharp":  # a partial type's other parts are named `partial X`, as the chunker names them
        csharp_partial_parts(definitions, path)
    for d in definitions:
        if not d.symbol_type:
            continue
        end = d.node.end_byte if d.content_end is None else min(d.node.end_byte, d.content_end)
        end -= 1 if data[end - 1:end] == b"\n" else 0  # a node may end with its line ending
        holders = [c for c in chunks.get((d.symbol_type, d.qualified_name), [])
                   if c.start_byte <= d.node.start_byte and end <= c.end_byte + 1]
        if not holders:
            problems.append(f"{path}: {d.symbol_type} {d.qualified_name} bytes {d.node.start_byte}-{end} in no chunk")
    return problems
