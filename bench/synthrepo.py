"""Generated git repositories for the indexing, storage and verification benchmarks.

Benchmarks need repositories of a chosen size, far larger than the samples, that are never
committed: this writes plausible Python (a module docstring, one class with three methods and
five functions per file: ten symbols) into a fresh repository with `git fast-import`, which
makes a 10,000-file commit in seconds where `git add` would take minutes. Edits are body
changes of chosen functions or methods, so a symbol's identity survives and only its version
changes, as in a real commit. Everything is seeded: the same size gives the same repository.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

SYMBOLS_PER_FILE = 10  # module + class + 3 methods + 5 functions
LEAVES_PER_FILE = 8  # the methods and functions, which edits change
WORDS = (
    "order invoice payment refund customer account ledger balance stock item cart price "
    "discount tax shipping address token session cache queue event retry timeout segment "
    "index query filter report audit notify email schedule batch export import parse render "
    "validate merge split score rank limit page cursor config profile user role permission"
).split()
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def _name(rng: random.Random, parts: int) -> str:
    return "_".join(rng.choice(WORDS) for _ in range(parts))


@dataclass
class SynthRepo:
    """A generated repository and the source of every file on every branch, in memory."""

    path: Path
    files: dict[str, dict[str, str]] = field(default_factory=dict)  # branch -> path -> text
    heads: dict[str, str] = field(default_factory=dict)  # branch -> commit sha
    _tick: int = 0

    @property
    def symbol_count(self) -> int:
        return len(self.files["main"]) * SYMBOLS_PER_FILE

    def commit(self, branch: str, changed: dict[str, str], start_from: str | None = None) -> str:
        """One commit on `branch` writing `changed` files (from `start_from` for a new branch)."""
        self._tick += 1
        parent = self.heads.get(branch) or (self.heads[start_from] if start_from else None)
        stamp = f"Bench <bench@example.com> {1_767_225_600 + self._tick} +0000"
        parts = [f"commit refs/heads/{branch}\nauthor {stamp}\ncommitter {stamp}\ndata 5\nbench\n"]
        if parent:
            parts.append(f"from {parent}\n")
        for path, text in sorted(changed.items()):
            data = text.encode()
            parts.append(f"M 100644 inline {path}\ndata {len(data)}\n{text}\n")
        env = {**os.environ, **GIT_ENV}
        subprocess.run(["git", "fast-import", "--quiet", "--force"], cwd=self.path,
                       input="".join(parts).encode(), env=env, check=True)
        self.heads[branch] = subprocess.run(
            ["git", "rev-parse", f"refs/heads/{branch}"], cwd=self.path, env=env,
            capture_output=True, text=True, check=True).stdout.strip()
        files = self.files.get(branch) or dict(self.files.get(start_from or "", {}))
        files.update(changed)
        self.files[branch] = files
        return self.heads[branch]

    def edit(self, branch: str, count: int, seed: int, start_from: str | None = None) -> dict[str, str]:
        """Change the bodies of `count` leaf symbols (functions/methods) and commit them."""
        rng = random.Random(seed)
        source = self.files.get(branch) or self.files[start_from]
        paths = sorted(source)
        picks = rng.sample(range(len(paths) * LEAVES_PER_FILE), count)
        by_file: dict[str, list[int]] = {}
        for pick in picks:
            by_file.setdefault(paths[pick // LEAVES_PER_FILE], []).append(pick % LEAVES_PER_FILE)
        changed = {}
        for path, leaves in by_file.items():
            text = source[path]
            for leaf in leaves:
                text = re.sub(
                    rf"^( +)return result_{leaf}$",
                    lambda m: f"{m[1]}result_{leaf} = {_name(rng, 1)}(result_{leaf})\n{m[0]}",
                    text, count=1, flags=re.M)
            changed[path] = text
        self.commit(branch, changed, start_from)
        return changed


def _file_text(rng: random.Random, index: int) -> str:
    topic = _name(rng, 2)
    cls = "".join(w.title() for w in topic.split("_")) + f"Service{index}"
    out = [f'"""Helpers for {topic.replace("_", " ")} ({index})."""\n', "import logging\n\n\n"]
    out.append(f"class {cls}:\n    \"\"\"Manages the {topic.replace('_', ' ')} workflow.\"\"\"\n\n")
    leaf = 0
    for _ in range(3):
        verb = _name(rng, 2)
        out.append(f"    def {verb}(self, {rng.choice(WORDS)}, limit=10):\n"
                   f"        \"\"\"{verb.replace('_', ' ').capitalize()} within the limit.\"\"\"\n"
                   f"        result_{leaf} = [{rng.choice(WORDS)} for _ in range(limit)]\n"
                   f"        return result_{leaf}\n\n")
        leaf += 1
    out.append("\n")
    for _ in range(5):
        verb = _name(rng, 3)
        arg = rng.choice(WORDS)
        out.append(f"def {verb}_{index}({arg}, options=None):\n"
                   f"    \"\"\"{verb.replace('_', ' ').capitalize()} for one {arg}.\"\"\"\n"
                   f"    result_{leaf} = {{\"{arg}\": {arg}, \"{rng.choice(WORDS)}\": options}}\n"
                   f"    return result_{leaf}\n\n\n")
        leaf += 1
    return "".join(out).rstrip() + "\n"


def generate(path: Path, n_symbols: int, seed: int = 7) -> SynthRepo:
    """A fresh repository at `path` with about `n_symbols` symbols on `main`."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True, env={**os.environ, **GIT_ENV})
    rng = random.Random(seed)
    n_files = max(1, n_symbols // SYMBOLS_PER_FILE)
    files = {f"src/pkg{i // 100:03d}/mod_{i:05d}.py": _file_text(rng, i) for i in range(n_files)}
    repo = SynthRepo(path)
    repo.commit("main", files)
    return repo
