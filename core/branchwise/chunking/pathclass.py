"""Decide a file's path class (source, test, fixture, generated, backup, vendored, docs).

Rules are tried from the most to the least decisive: an explicit `.gitattributes` mark
(`linguist-generated`, `-diff`, `linguist-vendored`; see git/pathrules.py), then vendored
folders (unless the file is marked `linguist-vendored=false`), generated (name, header marker, minified shape), backup,
fixture, test and docs patterns. The reason names the rule that fired, so a reviewer
can see why a result was excluded.
"""

from __future__ import annotations

from branchwise.chunking.globs import matching_pattern
from branchwise.chunking.rules import ChunkingRules
from branchwise.models import PathClass, PathMarks

_ALNUM = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_BLANK = b" \t\r\n\f\v"
_SHAPE_SAMPLE_BYTES = 64 * 1024
_NO_MARKS = PathMarks()


def classify_path(
    path: str,
    data: bytes,
    rules: ChunkingRules,
    generated_paths: frozenset[str] = frozenset(),
    marks: PathMarks | None = None,
) -> tuple[PathClass, str]:
    """(class, reason) of the file at `path` with contents `data`; reason is "" for source."""
    if path in generated_paths:
        return PathClass.GENERATED, "generated: marked linguist-generated in .gitattributes"
    marks = marks or _NO_MARKS
    if path in marks.classes:
        return marks.classes[path]
    if path not in marks.not_vendored and (pattern := vendored_pattern(path, rules)):
        return PathClass.VENDORED, f"vendored: path matches {pattern}"
    if pattern := matching_pattern(path, rules.generated_globs):
        return PathClass.GENERATED, f"generated: path matches {pattern}"
    if marker := _header_marker(data, rules):
        return PathClass.GENERATED, f"generated: {marker!r} marker in header"
    if not matching_pattern(path, rules.minified_exempt_globs) and _looks_minified(data, rules):
        return PathClass.GENERATED, "generated: minified (very long lines, few letters and digits)"
    if pattern := matching_pattern(path, rules.backup_globs):
        return PathClass.BACKUP, f"backup: name matches {pattern}"
    if pattern := matching_pattern(path, rules.fixture_globs):
        return PathClass.FIXTURE, f"fixture: path matches {pattern}"
    if pattern := matching_pattern(path, rules.test_globs):
        return PathClass.TEST, f"test: path matches {pattern}"
    if pattern := matching_pattern(path, rules.docs_globs):
        return PathClass.DOCS, f"docs: path matches {pattern}"
    return PathClass.SOURCE, ""


def vendored_pattern(path: str, rules: ChunkingRules) -> str | None:
    """The well-known vendored folder or file pattern `path` matches (`vendor/`, a bundled
    googletest), or None."""
    return matching_pattern(path, rules.vendored_globs)


def _header_marker(data: bytes, rules: ChunkingRules) -> str | None:
    header = b"\n".join(data[: rules.marker_bytes].split(b"\n")[: rules.marker_lines])
    for marker in rules.generated_markers:
        if marker.encode() in header:
            return marker
    return None


def _looks_minified(data: bytes, rules: ChunkingRules) -> bool:
    sample = data[:_SHAPE_SAMPLE_BYTES]
    lines = sample.split(b"\n")
    # most of it on very long lines: one long line in written code (phoenix's `endpoint.ex`
    # holds a base64 logo, a test file a row of emoji) leaves the rest of the file as written
    if 2 * sum(len(line) for line in lines if len(line) >= rules.minified_line_length) > len(sample):
        return True
    non_empty = [line for line in lines if line.strip()]
    if not non_empty:
        return False
    mean_length = sum(map(len, non_empty)) / len(non_empty)
    if mean_length < rules.minified_mean_line_length:
        return False
    visible = sample.translate(None, _BLANK)
    alnum = len(visible) - len(visible.translate(None, _ALNUM))
    return alnum / max(len(visible), 1) < rules.minified_max_alnum_share
