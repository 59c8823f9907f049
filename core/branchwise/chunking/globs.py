"""The path patterns used in chunking rules.

- a pattern ending in `/` names a folder: it matches when those path segments occur
  anywhere in the path (`vendor/` matches `a/vendor/x.go`, `src/test/java/` too);
- a pattern without `/` matches the file name (`*_pb2.py`, `.env`, `id_rsa*`);
- any other pattern matches the whole path with fnmatch (`*` also crosses `/`).
Matching is case-sensitive, as git paths are.
"""

from __future__ import annotations

from fnmatch import fnmatchcase


def matching_pattern(path: str, patterns: tuple[str, ...] | list[str]) -> str | None:
    """The first pattern that matches `path`, or None."""
    segments = path.split("/")
    name = segments[-1]
    folders = "/" + "/".join(segments[:-1]) + "/"
    for pattern in patterns:
        if pattern.endswith("/"):
            if ("/" + pattern.strip("/") + "/") in folders:
                return pattern
        elif "/" not in pattern:
            if fnmatchcase(name, pattern):
                return pattern
        elif fnmatchcase(path, pattern):
            return pattern
    return None
