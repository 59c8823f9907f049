"""A container's version key: its outline, so that a member's body edit is not a class edit.

A class chunk's lines hold its methods, which are chunks (versions) of their own. Keyed by
those lines, one method edit would make two new versions, the method's and the class's, and
every branch that edits a method would store its class again. A container whose members sit
on lines of their own is therefore keyed by its **skeleton**: its lines with each direct member
chunk's lines replaced by one marker line naming the member, plus every member's signature. A
member's body edit leaves the skeleton unchanged; a field, the docstring, the container's own
signature, or a member that is added, removed, renamed or re-signed changes it.

The skeleton is what the index stores as the container's text; `assemble` puts the members'
text back (from the same file), so a reader sees the container's exact lines.
"""

from __future__ import annotations

import re

from branchwise.models import sha256_hex

#: starts a marker line in a skeleton (a private-use character: never in source that parses)
MARK = "\ue000"
_MARKER = re.compile(rf"^([ \t]*){MARK} (.+?)(\r?)$")


def skeleton(data: bytes, container: tuple[int, int, int, int], members: list[tuple[int, int, int, int, str]]) -> bytes | None:
    """The container's bytes with each member's lines replaced by a marker line.

    `container` and each member are (start line, end line, start byte, end byte) as the
    chunker cut them (whole lines), members with the marker's name last. None when there is
    no member or the members do not sit on lines of their own (one shares a line with another
    or with the container's first line): such a container is keyed by its lines. A member
    whose last line holds more (a closing brace) takes it along: the text still reassembles.
    """
    first, last, start, end = container
    if not members:
        return None
    out, cursor, previous_end = [], start, first
    for member_first, member_last, member_start, member_end, name in sorted(members):
        if member_first <= previous_end or member_last > last:
            return None
        line = data[member_start:member_end]
        indent = line[: len(line) - len(line.lstrip(b" \t"))]
        out += [data[cursor:member_start], indent, f"{MARK} {name}".encode("utf-8")]
        cursor, previous_end = member_end, member_last
    out.append(data[cursor:end])
    return b"".join(out)


def outline_hash(skeleton_bytes: bytes, member_signatures: list[str]) -> str:
    """The content hash of an outline-keyed container."""
    signatures = "".join(f"\n{MARK}{signature}" for signature in member_signatures)
    return sha256_hex(skeleton_bytes + signatures.encode("utf-8"))


def is_skeleton(text: str) -> bool:
    return MARK in text


def marker_names(text: str) -> list[str]:
    """The qualified names a skeleton's marker lines stand for, in order."""
    return [m[2] for line in text.split("\n") if (m := _MARKER.match(line))]


def assemble(text: str, member_text: dict[str, str]) -> str | None:
    """A skeleton with each marker line replaced by its member's text (None: one is missing)."""
    lines = []
    for line in text.split("\n"):
        match = _MARKER.match(line)
        if match is None:
            lines.append(line)
            continue
        found = member_text.get(match[2])
        if found is None:
            return None
        lines.append(found + match[3])  # a CRLF file's line ending
    return "\n".join(lines)
