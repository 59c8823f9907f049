"""Names from a repository made safe to print: no control character reaches a terminal or a document.

File names, branch names and symbol names come from someone else's repository. An ESC or OSC
sequence in a file name would set a terminal's title or rewrite the screen when printed, a
newline would split a bundle's `Source:` line into a forged second line, and Unicode
direction overrides would show a name reversed. Every such character is shown as a visible
escape (`\\x1b`, `\\n`, `\\u202e`) wherever such text is printed or written into a bundle;
JSON output escapes the same characters as `\\uXXXX`, which JSON readers decode back.

`escape_text` is the one escaper for a command's text output (every line the CLI prints goes
through it): the line breaks that lay the output out stay, everything else is escaped, so a
U+0085 or U+2028 inside a branch name cannot start a line either.
"""

from __future__ import annotations

import json
import re

#: C0 controls, DEL, C1 controls, and the bidirectional formatting characters
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: the same set minus what JSON itself escapes (C0), for `safe_json`
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: object) -> str:
    """`text` with every control or direction-override character written as a visible escape."""
    return _UNSAFE.sub(_escape_one, str(text))


def escape_text(text: object) -> str:
    """Text made of lines (split at "\\n" only) with every control character in them escaped."""
    return "\n".join(escape_controls(line) for line in str(text).split("\n"))


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    # C1 controls as \u0085, not \x85: `\xHH` (80-ff) is how gitnames.py writes a non-UTF-8 byte
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def safe_json(data: object, **options) -> str:
    """`json.dumps(data, ensure_ascii=False)` with control and direction characters escaped."""
    text = json.dumps(data, ensure_ascii=False, **options)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
