"""Break each guarded behaviour on purpose and check that its tests notice.

`python tests/mutations/run.py [--only ID]... [--jobs N] [--out FILE]` copies this checkout's files
(tracked and untracked-but-not-ignored, as they are on disk) into a temporary directory, runs
every guarding test there unchanged (they must pass, or a "kill" would prove nothing), then,
once per mutant, restores the copy, applies the mutant (an exact snippet of one source file
replaced by a broken one) and runs the tests that guard that behaviour, expecting a failure.
With `--jobs N` there are N copies and N mutants run at once.

A mutant whose tests pass has *survived*: the behaviour is unguarded. A mutant whose snippet
is not in the source exactly once is *stale*: the code moved and the mutant must be
rewritten, so the list cannot rot silently. A run that times out or cannot collect is an
*error*. Any of these makes the check exit 1. The result table, with the test that killed
each mutant, goes to `--out` (default: tests/mutations/last-result.md, or stdout with `--only`).

The mutants live in mutants.toml beside this script, one `[[mutant]]` table each:
`id`, `behaviour`, `file`, `find`, `replace`, and `tests` (pytest node ids or files).
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
#: a guarding test run that takes longer than this is an error, not a kill
TIMEOUT_SECONDS = 600


@dataclass
class Outcome:
    id: str
    behaviour: str
    status: str  # killed, survived, stale, error
    detail: str
    seconds: float


def load_mutants(path: Path = HERE / "mutants.toml") -> list[dict]:
    mutants = tomllib.loads(path.read_text(encoding="utf-8"))["mutant"]
    ids = [m["id"] for m in mutants]
    if len(set(ids)) != len(ids):
        raise SystemExit("mutants.toml: duplicate ids")
    for mutant in mutants:
        missing = {"id", "behaviour", "file", "find", "replace", "tests"} - mutant.keys()
        if missing or not mutant["tests"] or mutant["find"] == mutant["replace"]:
            raise SystemExit(f"mutants.toml: mutant {mutant.get('id')!r} is incomplete ({sorted(missing)})")
    return mutants


def copy_tree(dest: Path) -> None:
    """The tracked and untracked-but-not-ignored files of this checkout, as they are on disk."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.split(b"\0")
    for raw in listed:
        rel = raw.decode()
        source = ROOT / rel
        if rel and source.is_file():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def apply(mutant: dict, tree: Path) -> tuple[str, str] | str:
    """Apply the mutant in `tree`: (path, original text) to restore, or why it is stale."""
    target = tree / mutant["file"]
    if not target.is_file():
        return f"{mutant['file']} does not exist"
    text = target.read_text(encoding="utf-8")
    count = text.count(mutant["find"])
    if count != 1:
        return f"snippet found {count} times in {mutant['file']}"
    target.write_text(text.replace(mutant["find"], mutant["replace"]), encoding="utf-8")
    return str(target), text


def pytest_in(tree: Path, tests: list[str]) -> tuple[int | None, str]:
    """Run `tests` in `tree` with the tree's own packages; (exit code or None on timeout, output)."""
    sources = [str(tree / part) for part in ("core", "tui", "cli")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sources), "HF_HUB_OFFLINE": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("BRANCHWISE_UPDATE_GOLDEN", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
             f"--basetemp={tree / '.pytest-tmp'}", *tests],
            cwd=tree, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return None, f"timed out after {TIMEOUT_SECONDS} s"
    return done.returncode, done.stdout + done.stderr


def _short(node: str) -> str:
    """A node id with its parameters cut to their first word (a parameter may be a whole
    line of test input, such as a token built to look like a credential)."""
    name, bracket, params = node.partition("[")
    return f"{name}[{params.split()[0].rstrip(']')}]" if bracket and params.split() else name


def run_mutant(mutant: dict, tree: Path) -> Outcome:
    started = time.perf_counter()
    applied = apply(mutant, tree)
    if isinstance(applied, str):
        return Outcome(mutant["id"], mutant["behaviour"], "stale", applied, 0.0)
    path, original = applied
    try:
        code, output = pytest_in(tree, mutant["tests"])
    finally:
        Path(path).write_text(original, encoding="utf-8")
    seconds = time.perf_counter() - started
    failed = [_short(node) for node in re.findall(r"^(?:FAILED|ERROR) (.+?)(?: - |$)", output, flags=re.M)]
    if code == 0:
        return Outcome(mutant["id"], mutant["behaviour"], "survived", "all guarding tests passed", seconds)
    if code == 1 and failed:
        return Outcome(mutant["id"], mutant["behaviour"], "killed", failed[0], seconds)
    tail = output.strip().splitlines()[-1:] or ["no output"]
    return Outcome(mutant["id"], mutant["behaviour"], "error", f"pytest exit {code}: {tail[0]}", seconds)


def describe_checkout() -> str:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return f"{commit or 'unknown'}{' plus uncommitted changes' if dirty else ''}"


def report(outcomes: list[Outcome], checkout: str, wall: float, baseline: float, jobs: int) -> str:
    killed = sum(o.status == "killed" for o in outcomes)
    lines = [
        "# Mutation check",
        "",
        f"Measured at commit {checkout}: {killed} of {len(outcomes)} mutants killed; "
        f"wall time {wall:.0f} s with {jobs} job(s) ({baseline:.0f} s of it the unmutated run of every "
        "guarding test, which passed).",
        "",
        "Command: `python tests/mutations/run.py` (mutants: tests/mutations/mutants.toml).",
        "",
        "| mutant | behaviour broken | result | killed by / why | seconds |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| `{o.id}` | {o.behaviour} | {o.status} | `{o.detail}` | {o.seconds:.0f} |" for o in outcomes]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", help="run only this mutant id (repeatable)")
    parser.add_argument("--out", type=Path, help="where to write the table (default: last-result.md "
                        "beside this script for a full run; stdout with --only)")
    parser.add_argument("--jobs", "-j", type=int, default=1,
                        help="mutants run at once, each in its own copy of the tree (default 1)")
    args = parser.parse_args(argv)
    everything = load_mutants()
    mutants = [m for m in everything if not args.only or m["id"] in args.only]
    if args.only and len(mutants) != len(set(args.only)):
        print(f"unknown mutant id; known: {', '.join(m['id'] for m in everything)}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    checkout = describe_checkout()
    jobs = max(1, min(args.jobs, len(mutants)))
    with tempfile.TemporaryDirectory(prefix="branchwise-mutants-") as tmp:
        trees = [Path(tmp) / f"tree-{n}" for n in range(jobs)]
        for tree in trees:
            copy_tree(tree)
        guards = list(dict.fromkeys(test for m in mutants for test in m["tests"]))
        print(f"[mutants] unmutated run of {len(guards)} guarding test selections ...", file=sys.stderr, flush=True)
        code, output = pytest_in(trees[0], guards)
        baseline = time.perf_counter() - started
        if code != 0:
            tail = "\n".join(output.strip().splitlines()[-15:])
            print(f"the guarding tests fail without any mutant (exit {code}):\n{tail}", file=sys.stderr)
            return 1
        free: queue.Queue[Path] = queue.Queue()
        for tree in trees:
            free.put(tree)

        def one(mutant: dict) -> Outcome:
            tree = free.get()  # each copy holds one mutant at a time
            try:
                outcome = run_mutant(mutant, tree)
            finally:
                free.put(tree)
            print(f"[mutants] {mutant['id']}: {outcome.status} ({outcome.detail}, {outcome.seconds:.0f} s)",
                  file=sys.stderr, flush=True)
            return outcome

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            outcomes = list(pool.map(one, mutants))
    table = report(outcomes, checkout, time.perf_counter() - started, baseline, jobs)
    out = args.out or (None if args.only else HERE / "last-result.md")
    if out is None:
        print(table, end="")
    else:
        out.write_text(table, encoding="utf-8")
        print(out)
    return 0 if all(o.status == "killed" for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
