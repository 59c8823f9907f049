"""The command that opens a file at a line in the reviewer's editor ($VISUAL, then $EDITOR).

Terminal editors (vim, nvim, nano, emacs, micro, helix, kakoune) take `+LINE FILE`; the common
GUI editors take `FILE:LINE` (VS Code with `-g`). The command is split like a shell would, so
`EDITOR="code --wait"` works.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
import shlex
from pathlib import Path

COLON_STYLE = {"subl", "sublime_text", "zed", "hx", "helix"}
GOTO_STYLE = {"code", "code-insiders", "codium", "cursor"}


def chosen_editor(environ: Mapping[str, str] | None = None) -> str | None:
    found = os.environ if environ is None else environ
    return found.get("VISUAL") or found.get("EDITOR") or None


def editor_command(editor: str, path: Path, line: int) -> list[str]:
    command = shlex.split(editor)
    name = Path(command[0]).name
    if name in GOTO_STYLE:
        return [*command, "-g", f"{path}:{line}"]
    if name in COLON_STYLE:
        return [*command, f"{path}:{line}"]
    return [*command, f"+{line}", str(path)]
