"""Names from git (file paths and branch names) as text that every store, format and terminal takes.

Git allows any bytes but NUL in a ref and any bytes but NUL and `/` in a file name's parts;
nothing says they are UTF-8. Python hands such bytes over as lone surrogates
(`surrogateescape`), which SQLite, JSON writers, TOML writers and `print` all refuse. So a
name is turned into text in exactly one place (`name_from_git`, which `GitRepo` applies to
every path and ref it reads) and back into git's bytes in one place (`git_arg`, which
`GitRepo` applies to every path and ref it passes to git or opens in the work tree).

The text form is UTF-8 wherever the bytes are, and lossless everywhere: each byte that is not
part of valid UTF-8 is written `\\xHH` (lower-case hex, 80-ff), and a backslash that comes
right before a backslash, an `x` or such an escape is doubled, so the escape reads back
unambiguously. Every other name, backslashes included, is unchanged: `caf\\xe9.py` is the
Latin-1 file name `café.py`, and the file literally called `caf\\xe9.py` is `caf\\\\xe9.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

_RAW_BYTE = re.compile("[\udc80-\udcff]")
#: a backslash the escape form must double: before a backslash, an `x` or a raw byte
_AMBIGUOUS_BACKSLASH = re.compile("\\\\(?=[\\\\x\udc80-\udcff])")
_ESCAPE = re.compile(r"\\(\\|x[89a-fA-F][0-9a-fA-F])")


def name_from_git(raw: bytes | str) -> str:
    """The text form of a name git gave as bytes (or as a `surrogateescape`-decoded str)."""
    if isinstance(raw, bytes):
        text = raw.decode("utf-8", "surrogateescape")
    else:
        text = raw
        if _RAW_BYTE.search(text):  # raw bytes that together spell UTF-8 are that text
            text = text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    if "\\" not in text and not _RAW_BYTE.search(text):
        return text
    text = _AMBIGUOUS_BACKSLASH.sub(r"\\\\", text)
    return _RAW_BYTE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text)


def git_arg(name: str) -> str:
    """The name as git and the operating system take it (a `surrogateescape` str: Python
    passes it to a process or `open` as the original bytes)."""
    if "\\" not in name:
        return name
    return _ESCAPE.sub(_unescape_one, name)


def _unescape_one(match: re.Match[str]) -> str:
    escape = match.group(1)
    return "\\" if escape == "\\" else chr(0xDC00 + int(escape[1:], 16))


def name_bytes(name: str) -> bytes:
    """The bytes git stores for this name."""
    return git_arg(name).encode("utf-8", "surrogateescape")


def canonical_name(name: str) -> str:
    """A name typed by a person (escaped or as raw bytes from the command line) in text form:
    equal to what `name_from_git` gives for the same bytes."""
    return name_from_git(git_arg(name))


def work_tree_path(root: Path, name: str) -> Path:
    """Where a repository file named `name` (text form) is in the work tree at `root`."""
    return root / git_arg(name)
