"""Keystrokes at start-up (issue 48, item 8): `python -m bench.typing_run [--runs 10] [--out FILE]`.

The review app runs in tmux at 100x30, as a user starts it (`branchwise review` in the shop
sample, no query on the command line; `--query` starts it with one, so the results hold the
focus), with the product's default model loading in the background. As soon as the app shows
(its key bar is on the screen), `/` is pressed, then QUERY is typed with 50 ms between keys
(`tmux send-keys -l`, one key per call). The query box is read back from `tmux capture-pane`,
and the labels are compared before and after. Each run is a fresh process; the tmux server
is a private one (its own socket, one per run), so nothing else on the machine is touched.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERY = "refund a payment and notify by email"
WIDTH, HEIGHT = 100, 30
KEY_GAP_S = 0.05
#: on the screen once the app has drawn its key bar
SHOWN = "quit"


def _env() -> dict[str, str]:
    path = os.pathsep.join(str(ROOT / part) for part in ("core", "tui", "cli"))
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}


def _cli(*args: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "branchwise_cli", *args], cwd=cwd, env=_env(),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"typing_run: branchwise {args[0]} failed: {done.stderr.strip()[-400:]}")
    return done.stdout


class Tmux:
    """One private tmux server (its own socket) holding one window of WIDTH x HEIGHT."""

    def __init__(self, socket: Path):
        self.socket = socket

    def __call__(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise SystemExit(f"typing_run: tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self, command: list[str], cwd: Path) -> None:
        env = [f"{name}={value}" for name, value in _env().items() if name in ("PYTHONPATH", "HF_HUB_OFFLINE")]
        self("new-session", "-d", "-s", "typing", "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(cwd),
             "env", *env, "TERM=xterm-256color", *command)

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "typing", check=False)

    def stop(self) -> None:
        self("kill-server", check=False)


def query_box(screen: str) -> str | None:
    """The query box's text on the captured screen: the first line of the controls row (the
    line that also shows the branch selector's `▼`), between its left edge and the branch's."""
    for line in screen.splitlines():
        if "▼" in line and "▊" in line:
            text = line.split("▊", 1)[1].split("▎", 1)[0]
            return text.strip()
    return None


def one_run(tmux: Tmux, repo: Path, index: Path, query: str | None) -> dict:
    command = [sys.executable, "-m", "branchwise_cli", "review", "--repo", str(repo), "--index", str(index),
               "--branch", "main", *([query] if query else [])]
    started = time.monotonic()
    tmux.start(command, repo)
    try:
        while SHOWN not in tmux.screen():
            if time.monotonic() - started > 60:
                raise SystemExit(f"typing_run: the app did not show in 60 s:\n{tmux.screen()}")
            time.sleep(0.01)
        shown_s = time.monotonic() - started
        tmux("send-keys", "-t", "typing", "-l", "/")
        for char in QUERY:
            time.sleep(KEY_GAP_S)
            tmux("send-keys", "-t", "typing", "-l", char)
        time.sleep(1.5)  # whatever the app does next, the box has had time to show every key
        screen = tmux.screen()
        box = query_box(screen)
        tmux("send-keys", "-t", "typing", "C-c")
        time.sleep(0.3)
    finally:
        tmux.stop()
    return {"shown_after_s": round(shown_s, 2), "box": box, "whole": box == QUERY,
            **({} if box == QUERY else {"screen": screen})}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.typing_run", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--query", default=None, help="start the app with this question (default: none)")
    parser.add_argument("--model", default=None, help="BRANCHWISE_MODEL for the index (default: the product's)")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if shutil.which("tmux") is None:
        print("typing_run: tmux is not installed", file=sys.stderr)
        return 2
    if args.model:
        os.environ["BRANCHWISE_MODEL"] = args.model
    with tempfile.TemporaryDirectory(prefix="typing-run-") as temp:
        work = Path(temp)
        subprocess.run([sys.executable, str(ROOT / "sample_repos" / "build.py"), str(work)], check=True,
                       capture_output=True)
        repo, index = work / "shop", work / "index"
        _cli("index", str(repo), "--index", str(index), "--all-branches", "--wait", "--quiet", cwd=repo)
        labels_before = json.loads(_cli("labels", "list", "--repo", str(repo), "--index", str(index), "--json",
                                        cwd=repo))
        runs = []
        for number in range(1, args.runs + 1):  # a tmux server of its own for each run
            run = one_run(Tmux(work / f"tmux-{number}.sock"), repo, index, args.query)
            runs.append(run)
            print(f"run {number}: shown after {run['shown_after_s']} s; box: {run['box']!r}"
                  + ("" if run["whole"] else "  <- not the whole query"), flush=True)
        labels_after = json.loads(_cli("labels", "list", "--repo", str(repo), "--index", str(index), "--json",
                                       cwd=repo))
    whole = sum(run["whole"] for run in runs)
    result = {"query": QUERY, "size": f"{WIDTH}x{HEIGHT}", "key_gap_ms": int(KEY_GAP_S * 1000),
              "started_with_query": args.query, "model": args.model or "default", "runs": runs,
              "whole_query": whole, "labels_unchanged": labels_before == labels_after,
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "load_average": os.getloadavg()}}
    print(f"{whole} of {len(runs)} runs got the whole query; labels "
          + ("unchanged" if result["labels_unchanged"] else "CHANGED"))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if whole == len(runs) and result["labels_unchanged"] else 1


if __name__ == "__main__":
    sys.exit(main())
