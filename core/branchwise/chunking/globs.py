"""The path patterns used in chunking rules.

- a pattern ending in `/` names a folder: it matches when those path segments occur
  anywhere in the path (`vendor/` matches `a/vendor/x.go`, `src/test/java/` too);
- a pattern without `/` matches the file name (`*_pb2.py`, `.env`, `id_rsa*`);
- any other pattern matches the whole path with fnmatch (`*` also crosses `/`).
Matching is case-sensitive, as git paths are. A pattern whose only wildcards are a leading
or trailing `*` (most of them) is matched as a suffix, prefix or substring test, as fnmatch
would match it, without compiling a regular expression: compiling every default pattern cost
each index worker and the first outline of a search about 18 ms.
"""

from __future__ import annotations

from collections.abc import Callable
from fnmatch import fnmatchcase
from functools import lru_cache

_WILDCARDS = frozenset("*?[")


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
            if _matcher(pattern)(name):
                return pattern
        elif _matcher(pattern)(path):
            return pattern
    return None


@lru_cache(maxsize=4096)
def _matcher(pattern: str) -> Callable[[str], bool]:
    """fnmatchcase against `pattern`, as a plain string test where the pattern allows one."""
    lead, trail = pattern.startswith("*"), pattern.endswith("*") and len(pattern) > 1
    middle = pattern[int(lead): len(pattern) - int(trail)]
    if _WILDCARDS.intersection(middle):
        return lambda text: fnmatchcase(text, pattern)
    if lead and trail:
        return lambda text: middle in text
    if lead:
        return lambda text: text.endswith(middle)
    if trail:
        return lambda text: text.startswith(middle)
    return lambda text: text == middle
