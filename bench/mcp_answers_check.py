"""Warm `search_code` answers, written out byte for byte, to show a speed-up changed none (issue 47).

`python bench/mcp_answers_check.py INDEX OUT.json [--rounds N]` serves every repository of the
index INDEX in-process (one AgentService, as `branchwise mcp` does), asks each repository's
questions (bench/questions.toml for the sample repositories, QUESTIONS for any other, e.g. a
clone of the click bundle with edits left uncommitted) `--rounds` times, checks that every
round answers as the first, and writes the first round's answers. The index's age, the one
field that moves with the clock, is frozen, so two trees' outputs compare with `cmp`: run this
with PYTHONPATH pointing at the tree before a change, then at the tree after it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

QUESTIONS = ["make a context for a command", "echo a message to the terminal", "Command class",
             "parse command line options", "Context", "help option names", "progress bar",
             "prompt the user for a value", "Group add command", "BaseCommand make_context", "echo",
             "Option class", "format help text", "shell completion", "environment variable for an option"]
FROZEN_AGE_SECONDS = 100.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("index")
    parser.add_argument("out", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    from branchwise.mcp_server.server import open_workspaces
    from branchwise.mcp_server.service import AgentService
    from branchwise.review import desk, status

    desk.age_seconds = status.age_seconds = lambda indexed_at: FROZEN_AGE_SECONDS
    samples = tomllib.loads(Path(__file__).with_name("questions.toml").read_text())["question"]
    service = AgentService(open_workspaces([], args.index, None, None))
    service.warm()
    asked = [(q["repo"], q["question"]) for q in samples if q["repo"] in service.workspaces]
    asked += [(repo, q) for repo in sorted(service.workspaces) if repo not in {r for r, _ in asked} for q in QUESTIONS]
    rounds = [[service.search_code(question, repository=repo) for repo, question in asked] for _ in range(args.rounds)]
    moved = sum(answers != rounds[0] for answers in rounds[1:])
    args.out.write_text(json.dumps(rounds[0], indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{len(asked)} questions, {args.rounds} rounds, {moved} rounds unlike the first", file=sys.stderr)
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
