"""Time from `index` to the first answer at full quality, cold CLI, on the peer's repositories.

`python -m bench.first_answer [--repo NAME]... [--all] [--config static|both] [--out DIR] [--label NAME]`

A new user runs `branchwise index` and then asks. "Full quality" means every dense stage the
configuration uses is complete for the branch when the answer comes: with the static stage as
the only dense stage (`transformer = false`) that is as soon as `index` returns; with both
stages (the default) only once the transformer has embedded every version, so `index` runs in
the foreground (as it does by default) and the search follows. Each configuration gets a fresh
clone's own fresh index directory (no embedding cache), and each step is a separate process
(`python -m branchwise_cli`), timed end to end: index, then one search. The two configurations
alternate per repository, so load from other work on the machine hits both alike.

The processes run as an installed package does (`pip install .` compiles every module): with
bytecode, kept in a temporary `PYTHONPYCACHEPREFIX` that one untimed index and search fill
first, whatever `PYTHONDONTWRITEBYTECODE` says (this machine's environment sets it, so a plain
run would compile every branchwise module in every process). `--no-bytecode` measures that
plain run instead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.peer import QUICK, clone, data_dir, load_repos

CONFIGS = {"static only": "transformer = false\n", "both stages": ""}


def _cli(*args: str, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "branchwise_cli", *args], check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def installed_env(pycache: Path) -> dict[str, str]:
    """The environment of an installed package: bytecode written to and read from `pycache`."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def measure(path: Path, work: Path, question: str, configs: dict[str, str] = CONFIGS,
            env: dict[str, str] | None = None) -> dict:
    out = {}
    for name, config in configs.items():
        index = work / name.replace(" ", "-")
        index.mkdir(parents=True)
        (index / "config.toml").write_text(config)
        index_s = _cli("index", str(path), "--branch", "main", "--index", str(index), "--quiet", env=env)
        search_s = _cli("search", question, "--repo", str(path), "--branch", "main", "--index", str(index), env=env)
        out[name] = {"index_s": round(index_s, 2), "search_s": round(search_s, 2),
                     "first_answer_s": round(index_s + search_s, 2)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.first_answer", description=__doc__.split("\n")[0])
    parser.add_argument("--repo", action="append")
    parser.add_argument("--all", action="store_true", help="every repository of the peer benchmark (slow: "
                                                           "the transformer embeds each one from scratch)")
    parser.add_argument("--config", action="append", choices=("static", "both"),
                        help="only this configuration (repeatable; default: both configurations, alternating)")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("results"))
    parser.add_argument("--label", default="current")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="run as this environment says (no bytecode written when PYTHONDONTWRITEBYTECODE is set)")
    args = parser.parse_args(argv)
    wanted = {"static": "static only", "both": "both stages"}
    configs = {name: CONFIGS[name] for key, name in wanted.items() if not args.config or key in args.config}
    data = data_dir()
    if data is None:
        raise SystemExit("no peer benchmark data: set BRANCHWISE_PEERBENCH")
    names = None if args.all else tuple(args.repo or QUICK)
    rows = {}
    condition = "plain run, this environment" if args.no_bytecode else "installed package (bytecode)"
    with tempfile.TemporaryDirectory(prefix="branchwise-first-") as tmp:
        env = None if args.no_bytecode else installed_env(Path(tmp) / "pycache")
        repos = load_repos(data, names)
        if env is not None:  # fills the bytecode cache, untimed
            first = repos[0]
            measure(clone(data, first.name, Path(tmp)), Path(tmp) / "warm-up", first.tasks[0]["query"], configs, env)
        for repo in repos:
            path = clone(data, repo.name, Path(tmp))
            rows[repo.name] = measure(path, Path(tmp) / "indexes" / repo.name, repo.tasks[0]["query"], configs, env)
            print(repo.name, json.dumps(rows[repo.name]), file=sys.stderr, flush=True)
    summary = {name: {"median_s": round(statistics.median(r[name]["first_answer_s"] for r in rows.values()), 2),
                      "max_s": round(max(r[name]["first_answer_s"] for r in rows.values()), 2)} for name in configs}
    lines = [f"# First full-quality answer, cold CLI ({args.label}, {datetime.now(timezone.utc):%Y-%m-%d})", "",
             "index (fresh clone, fresh index, no embedding cache) then one search, each a new process; "
             f"{condition}.", "",
             "| configuration | median s | slowest s |", "|---|---|---|"]
    lines += [f"| {name} | {s['median_s']} | {s['max_s']} |" for name, s in summary.items()]
    lines += ["", "| repository | " + " | ".join(f"{n} (index + search s)" for n in configs) + " |",
              "|---|" + "---|" * len(configs)]
    for repo, r in rows.items():
        lines.append(f"| {repo} | " + " | ".join(f"{r[n]['first_answer_s']} ({r[n]['index_s']} + {r[n]['search_s']})"
                                                 for n in configs) + " |")
    report = "\n".join(lines) + "\n"
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{datetime.now(timezone.utc):%Y-%m-%d}-first-answer-{args.label}"
    Path(f"{stem}.json").write_text(json.dumps({"condition": condition, "summary": summary, "repos": rows}, indent=1) + "\n")
    Path(f"{stem}.md").write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
