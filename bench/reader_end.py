"""`python -m bench.reader_end [--rounds N] [--out FILE]`: how long ending a repository's object
reader takes while a forked process holds a copy of its input, against ending one that nobody
else holds, measured pair by pair in one run.

A parse pool (index/parsing.py) forks its workers while an object reader of the same process
may be running (a warm server's verification, an earlier workspace not yet collected); each
worker then holds the reader's input open. A reader that waited for git to see the end of its
input waited until its time-out whenever it was ended then (ten seconds of two readers in the
middle of an index run on the peer benchmark); the ratio says whether a held input still costs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from branchwise.git.repo import GitRepo


def _hold(release) -> None:
    release.wait()  # the forked process keeps every descriptor it inherited until told to go


def _repository(path: Path) -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True, text=True).stdout

    path.mkdir()
    git("init", "-q")
    (path / "a.py").write_text("def a():\n    return 1\n")
    git("add", "a.py")
    git("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "a")
    return git("rev-parse", "HEAD:a.py").strip()


def _end_seconds(path: Path, blob: str, held: bool) -> float:
    repo = GitRepo(path)
    repo.read_blob(blob)  # the reader's git process is running
    release = multiprocessing.get_context("fork").Event()
    holder = multiprocessing.get_context("fork").Process(target=_hold, args=(release,)) if held else None
    if holder is not None:
        holder.start()
    try:
        started = time.perf_counter()
        repo.close()
        return time.perf_counter() - started
    finally:
        if holder is not None:
            release.set()
            holder.join()


def run(rounds: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="branchwise-reader-end-") as tmp:
        path = Path(tmp) / "repo"
        blob = _repository(path)
        alone, held = [], []
        for _ in range(rounds):
            alone.append(_end_seconds(path, blob, held=False))
            held.append(_end_seconds(path, blob, held=True))
    ratios = [h / a for h, a in zip(held, alone)]
    return {"rounds": rounds, "alone_ms": round(statistics.median(alone) * 1000, 2),
            "held_ms": round(statistics.median(held) * 1000, 2), "ratio": round(statistics.median(ratios), 2)}


def markdown(figures: dict) -> str:
    return "\n".join([
        "| reader ended | median ms |", "|---|---|",
        f"| nobody else holds its input | {figures['alone_ms']} |",
        f"| a forked process holds its input | {figures['held_ms']} |",
        "", f"Pair by pair, held over alone: {figures['ratio']} (median of {figures['rounds']} pairs).", ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.reader_end", description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--out", type=Path, help="write the report here too")
    args = parser.parse_args(argv)
    report = markdown(run(args.rounds))
    print(report)
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
