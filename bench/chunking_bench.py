"""Chunking throughput: how many symbols per second one process (one core) cuts.

`run()` builds a synthetic multi-language corpus in memory, so the number does not
depend on disk or git; the bench suite calls it, and `python bench/chunking_bench.py`
prints its result as JSON, with `per_language`: symbols per second for each language,
chunking that language's files of tests/chunking/data (real project files for the languages
of issue 33) over and over for a while, and each rate as a ratio to Python's measured in the
same run (a ratio survives a loaded machine better than a rate).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from branchwise.chunking import chunk_file
from branchwise.chunking.languages import grammar_for_file, identity_language

DATA = Path(__file__).resolve().parent.parent / "tests" / "chunking" / "data"

_SYMBOLS_PER_FILE = 10

_TEMPLATES = {
    "py": (
        "class Service{i}_{j}:\n"
        '    """Service number {i}."""\n\n'
        "    def handle_{j}(self, request):\n"
        '        """Handle one request."""\n'
        "        value = request.get('value', {j})\n"
        "        return value * 2\n"
    ),
    "ts": (
        "/** Handler {j}. */\n"
        "export function handle{i}_{j}(request: Request): number {{\n"
        "  const value = request.value ?? {j};\n"
        "  return value * 2;\n"
        "}}\n"
    ),
    "go": (
        "// Handle{j} handles one request.\n"
        "func (s *Service{i}) Handle{j}(r Request) int {{\n"
        "\tvalue := r.Value + {j}\n"
        "\treturn value * 2\n"
        "}}\n"
    ),
    "rs": (
        "pub struct Service{i}_{j};\n\n"
        "impl Service{i}_{j} {{\n"
        "    /// Handle one request.\n"
        "    pub fn handle_{j}(&self, value: u32) -> u32 {{\n"
        "        value * 2 + {j}\n"
        "    }}\n"
        "}}\n"
    ),
    "java": (
        "class Service{i}_{j} {{\n"
        "    /** Handle one request. */\n"
        "    int handle(int value) {{\n"
        "        return value * 2 + {j};\n"
        "    }}\n"
        "}}\n"
    ),
}
_HEADERS = {"go": "package bench\n\n", "py": "import os\n\n", "ts": "", "rs": "", "java": ""}


def corpus(n_symbols: int) -> list[tuple[str, bytes]]:
    """(path, bytes) of synthetic files holding together at least `n_symbols` symbols."""
    files = []
    i = 0
    while len(files) * _SYMBOLS_PER_FILE < n_symbols:
        ext = list(_TEMPLATES)[i % len(_TEMPLATES)]
        # Python, Rust and Java templates yield two chunks (type + method) per repetition.
        repeats = _SYMBOLS_PER_FILE // 2 if ext in ("py", "rs", "java") else _SYMBOLS_PER_FILE
        body = "\n".join(_TEMPLATES[ext].format(i=i, j=j) for j in range(repeats))
        files.append((f"src/pkg{i % 50}/file{i}.{ext}", (_HEADERS[ext] + body).encode()))
        i += 1
    return files


def run(n_symbols: int = 5000) -> dict:
    files = corpus(n_symbols)
    started = time.perf_counter()
    symbols = sum(len(chunk_file("bench", path, data).chunks) for path, data in files)
    seconds = time.perf_counter() - started
    return {
        "files": len(files),
        "symbols": symbols,
        "seconds": round(seconds, 4),
        "symbols_per_second": round(symbols / seconds) if seconds else None,
    }


def language_files() -> dict[str, list[tuple[str, bytes]]]:
    """tests/chunking/data's files with a grammar, by identity language."""
    out: dict[str, list[tuple[str, bytes]]] = {}
    for path in sorted(p for p in DATA.rglob("*") if p.is_file()):
        relative, data = path.relative_to(DATA).as_posix(), path.read_bytes()
        grammar = grammar_for_file(relative, data)
        if grammar:
            out.setdefault(identity_language(grammar), []).append((relative, data))
    return out


def per_language(seconds_each: float = 2.0) -> dict:
    """Symbols per second per language (see the module docstring)."""
    rates = {}
    for language, files in language_files().items():
        for path, data in files:  # untimed: loading the grammar and compiling its query (Swift's: seconds)
            chunk_file("bench", path, data)
        symbols, started, rounds = 0, time.perf_counter(), 0
        while rounds == 0 or time.perf_counter() - started < seconds_each:
            symbols += sum(len(chunk_file("bench", path, data).chunks) for path, data in files)
            rounds += 1
        elapsed = time.perf_counter() - started
        rates[language] = {"files": len(files), "bytes": sum(len(d) for _p, d in files), "rounds": rounds,
                           "symbols": symbols, "seconds": round(elapsed, 3),
                           "symbols_per_second": round(symbols / elapsed, 1)}
    baseline = rates.get("python", {}).get("symbols_per_second")
    for figures in rates.values():
        figures["vs_python"] = round(figures["symbols_per_second"] / baseline, 3) if baseline else None
    return rates


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    print(json.dumps({**run(), "per_language": per_language(seconds)}, indent=1))
