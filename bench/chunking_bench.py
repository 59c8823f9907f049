"""Chunking throughput: how many symbols per second one process (one core) cuts.

`run()` builds a synthetic multi-language corpus in memory, so the number does not
depend on disk or git; the bench suite calls it. `per_language()` gives symbols per second for
each language: chunking that language's files over and over, the languages taken in turn
(one pass over every language not yet timed long enough per round, so a load that comes and
goes on a shared machine falls on all of them alike), each rate also as a ratio to Python's of the same run (a ratio
survives a loaded machine better than a rate). "Symbols" are the definitions the grammar
found (functions, methods, types...); module remainders, whole files, config blocks and prose
sections are counted apart as `chunks`.

    python bench/chunking_bench.py [SECONDS] [--bundles] [--out DIR]

The files are tests/chunking/data's (real project files for the languages of issue 33, the
hand-written samples for the six before), or with `--bundles` the `main` branch of every
bundle in `../shared/realrepos/` (click for Python, cobra for Go, one project per language of
issue 33), up to `BUNDLE_BYTES` of each language's files in path order. With `--out` the
result is also written there as a date-named .json and .md, with the commit measured.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from branchwise.chunking import chunk_file
from branchwise.chunking.languages import grammar_for_file, identity_language
from branchwise.chunking.vocabulary import CHUNKER_KINDS

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "chunking" / "data"
#: the bundles whose `main` branch `--bundles` chunks (click: Python, cobra: Go)
BUNDLES = ("click", "cobra", "cjson", "fmt", "serilog", "mediatr", "sinatra", "slim", "okio", "alamofire",
           "scopt", "nvm", "jsonlua")
#: at most this many bytes of one language's files from the bundles (whole files, path order)
BUNDLE_BYTES = 400_000

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


def bundle_files(limit: int = BUNDLE_BYTES) -> dict[str, list[tuple[str, bytes]]]:
    """The `main` branch of every bundle found, by identity language, `limit` bytes each."""
    sys.path.insert(0, str(ROOT))
    from bench.realrepos import BUNDLE_DIRS

    out: dict[str, list[tuple[str, bytes]]] = {}
    with tempfile.TemporaryDirectory(prefix="chunking-bench-") as tmp:
        for name in BUNDLES:
            found = [d / f"{name}.bundle" for d in BUNDLE_DIRS if (d / f"{name}.bundle").is_file()]
            if not found:
                continue
            repo = Path(tmp) / name
            subprocess.run(["git", "clone", "-q", "--no-checkout", str(found[0]), str(repo)], check=True)
            listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "-z", "HEAD"], check=True,
                                     capture_output=True).stdout
            for entry in sorted(e for e in listing.split(b"\0") if e):
                meta, path = entry.decode("utf-8", "replace").split("\t", 1)
                if meta.split()[1] != "blob":
                    continue
                data = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", meta.split()[2]],
                                      check=True, capture_output=True).stdout
                grammar = grammar_for_file(path, data)
                if not grammar:
                    continue
                files = out.setdefault(identity_language(grammar), [])
                if sum(len(d) for _p, d in files) + len(data) <= limit:
                    files.append((f"{name}/{path}", data))
    return {language: files for language, files in out.items() if files}


def _count(files: list[tuple[str, bytes]]) -> tuple[int, int]:
    """(symbols, other chunks) of one pass over `files`."""
    symbols = chunks = 0
    for path, data in files:
        for chunk in chunk_file("bench", path, data).chunks:
            if chunk.identity.symbol_type in CHUNKER_KINDS:
                chunks += 1
            else:
                symbols += 1
    return symbols, chunks


def per_language(seconds_each: float = 2.0, files_by_language: dict | None = None) -> dict:
    """Symbols per second per language (see the module docstring)."""
    corpus = files_by_language if files_by_language is not None else language_files()
    for files in corpus.values():  # untimed: loading the grammar and compiling its query (Swift's: seconds)
        _count(files)
    totals = {language: {"symbols": 0, "chunks": 0, "seconds": 0.0, "rounds": 0} for language in corpus}
    while True:
        for language, files in corpus.items():
            if totals[language]["rounds"] and totals[language]["seconds"] >= seconds_each:
                continue  # done: a language with few files must not hold the others to many rounds
            started = time.perf_counter()
            symbols, chunks = _count(files)
            figures = totals[language]
            figures["seconds"] += time.perf_counter() - started
            figures["symbols"] += symbols
            figures["chunks"] += chunks
            figures["rounds"] += 1
        if all(f["seconds"] >= seconds_each for f in totals.values()):
            break
    rates = {}
    for language, figures in totals.items():
        files = corpus[language]
        rates[language] = {"files": len(files), "bytes": sum(len(d) for _p, d in files), "rounds": figures["rounds"],
                           "symbols": figures["symbols"], "chunks": figures["chunks"],
                           "seconds": round(figures["seconds"], 3),
                           "symbols_per_second": round(figures["symbols"] / figures["seconds"], 1),
                           "kb_per_second": round(sum(len(d) for _p, d in files) * figures["rounds"]
                                                  / 1000 / figures["seconds"], 1)}
    baseline = rates.get("python", {}).get("symbols_per_second")
    for figures in rates.values():
        figures["vs_python"] = round(figures["symbols_per_second"] / baseline, 3) if baseline else None
    return rates


def markdown(doc: dict) -> str:
    meta = doc["meta"]
    lines = [f"# Chunking throughput per language ({meta['source']}), {meta['date']}, commit {meta['commit']}", "",
             f"`{meta['command']}` on {meta['machine']['cores']} cores (load average {meta['load_average']} at the "
             f"start): each language's files chunked in turn, round after round, until each had "
             f"{meta['seconds_each']} s; symbols are the grammar's definitions, other chunks (module remainders, "
             f"whole files, prose sections) are counted apart. Read the ratio to Python of the same run: the "
             f"machine is shared. The synthetic corpus of the same run: {doc['synthetic']['symbols_per_second']} "
             f"chunks/s.", "",
             "| language | files | bytes | symbols per round | symbols/s | KB/s | vs Python |",
             "|---|---|---|---|---|---|---|"]
    for language, f in sorted(doc["per_language"].items(), key=lambda item: -item[1]["symbols_per_second"]):
        lines.append(f"| {language} | {f['files']} | {f['bytes']:,} | {f['symbols'] // f['rounds']:,} | "
                     f"{f['symbols_per_second']:,} | {f['kb_per_second']:,} | {f['vs_python']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/chunking_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("seconds", nargs="?", type=float, default=2.0, help="timed seconds per language")
    parser.add_argument("--bundles", action="store_true", help="the bundles' main branches, not tests/chunking/data")
    parser.add_argument("--out", type=Path, help="also write a date-named .json and .md here")
    args = parser.parse_args(argv)
    import os

    load = os.getloadavg()[0]
    corpus = bundle_files() if args.bundles else language_files()
    doc = {"synthetic": run(), "per_language": per_language(args.seconds, corpus)}
    if args.out:
        sys.path.insert(0, str(ROOT))
        from bench.report import machine

        date = datetime.now(timezone.utc)
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        source = "bundles' main branches" if args.bundles else "tests/chunking/data"
        doc = {"meta": {"date": date.isoformat(timespec="seconds"), "commit": commit, "machine": machine(),
                        "load_average": round(load, 1), "seconds_each": args.seconds, "source": source,
                        "command": "python bench/chunking_bench.py " + " ".join(argv or sys.argv[1:])}, **doc}
        args.out.mkdir(parents=True, exist_ok=True)
        stem = args.out / f"{date:%Y-%m-%d}-chunking-languages{'-bundles' if args.bundles else ''}"
        stem.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
        stem.with_suffix(".md").write_text(markdown(doc))
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
