"""The environment every git process of branchwise runs in: a repository cannot run commands.

A repository is someone else's input, and its `.git/config` can name programs that git runs
on its own: an fsmonitor hook queried by `git status`, clean/smudge filters applied when git
hashes a work-tree file, hooks (`post-index-change` when the index is refreshed), textconv
and external diff drivers, pagers. Branchwise only reads, so none of them is ever needed.
Every git call (our own and GitPython's, including its long-lived `cat-file` processes)
gets these settings overridden through `GIT_CONFIG_COUNT`, which outranks every config file.

Environment variables that point git at another repository or object store (`GIT_DIR`,
`GIT_INDEX_FILE`, ... as set inside a git hook, say) are pinned to the repository that was
opened, and the pager and tracing variables are switched off.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

#: Settings overridden whatever the repository says (key -> value).
FIXED_OVERRIDES: dict[str, str] = {
    "core.fsmonitor": "false",
    "core.hooksPath": os.devnull,
    "core.pager": "cat",
    "core.askPass": "",
    "core.sshCommand": "",
    "core.alternateRefsCommand": "",
    "credential.helper": "",
    "diff.external": "",
    "protocol.allow": "never",
}

#: Per-driver settings (filter.<driver>.clean, diff.<driver>.textconv, ...) that run programs,
#: with the value that disables each.
_DRIVER_KEYS = (
    (re.compile(r"^filter\.(.+)\.(clean|smudge|process)$"), ""),
    (re.compile(r"^filter\.(.+)\.required$"), "false"),
    (re.compile(r"^diff\.(.+)\.(textconv|command)$"), ""),
    (re.compile(r"^merge\.(.+)\.driver$"), ""),
    (re.compile(r"^pager\.(.+)$"), "false"),
)

#: Environment variables set to fixed values for every git process.
FIXED_ENVIRONMENT: dict[str, str] = {
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EXTERNAL_DIFF": "",
    "GIT_OPTIONAL_LOCKS": "0",  # `status` must not rewrite the index (a write, and a hook trigger)
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES": "",
    "GIT_NAMESPACE": "",
    "GIT_CONFIG_PARAMETERS": "",
    "GIT_TRACE": "0",
    "GIT_TRACE2": "0",
    "GIT_TRACE2_EVENT": "0",
    "GIT_TRACE2_PERF": "0",
    "GIT_TRACE_PACKET": "0",
    "GIT_TRACE_PERFORMANCE": "0",
}


def pinned_environment(git_dir: Path, common_dir: Path, work_tree: Path | None) -> dict[str, str]:
    """Variables that tie git to this repository whatever the caller's environment says."""
    env = dict(FIXED_ENVIRONMENT)
    env.update(GIT_DIR=str(git_dir), GIT_COMMON_DIR=str(common_dir), GIT_INDEX_FILE=str(git_dir / "index"),
               GIT_OBJECT_DIRECTORY=str(common_dir / "objects"), GIT_CONFIG_COUNT="0")
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    return env


def config_overrides(configured_keys: list[str]) -> dict[str, str]:
    """Every setting to override: the fixed ones plus each configured driver that runs a program."""
    overrides = dict(FIXED_OVERRIDES)
    for key in configured_keys:
        for pattern, value in _DRIVER_KEYS:
            if pattern.match(key):
                overrides[key] = value
    return overrides


def configured_keys(git_dir: Path, base_env: dict[str, str]) -> list[str]:
    """The names of every setting git sees for this repository (all scopes, includes resolved)."""
    out = subprocess.run(
        ["git", "config", "--list", "--name-only", "-z"],
        cwd=git_dir, env={**os.environ, **base_env}, capture_output=True, check=False,
    )
    return [name for name in out.stdout.decode("utf-8", "replace").split("\0") if name]


def safe_environment(git_dir: Path, common_dir: Path, work_tree: Path | None,
                     keys: list[str] | None = None) -> dict[str, str]:
    """The whole environment overlay for this repository's git processes (`keys`: the
    configured keys, when the caller has read them with `configured_keys`)."""
    env = pinned_environment(git_dir, common_dir, work_tree)
    overrides = config_overrides(configured_keys(git_dir, env) if keys is None else keys)
    env["GIT_CONFIG_COUNT"] = str(len(overrides))
    for number, (key, value) in enumerate(sorted(overrides.items())):
        env[f"GIT_CONFIG_KEY_{number}"] = key
        env[f"GIT_CONFIG_VALUE_{number}"] = value
    return env
