"""Credentials inside code: redacted before anything is stored, and looked for again on export.

Files that are credentials by name (`.env`, `.npmrc`, kubeconfig, ...) are never read at all
(chunking/rules.py). A credential inside an ordinary source file is another matter: the file
is worth indexing, the secret is not. `redact` replaces every secret it recognises with
`<redacted>` in the text that is stored, embedded, searched and shown; the chunk's
content hash stays the hash of the original bytes, so verification against the real file
still works (and the verdict's reason says the text shown was redacted: views.py). It
recognises well-known token shapes (AWS, GitHub, Slack), private key blocks (every line of
the block), and a quoted literal given to a name that ends in password, secret, token, api
key, access key or private key:

- *assigned* (`password = "hunter2"`, `secret: 'Summer2024!'`, `DB_PASSWORD := "..."`): the
  value is redacted unless it looks like a placeholder or the name of a setting; a name ending
  in `token` keeps a plain lower-case word (`token = "keyword"` is a lexer's token type, no
  credential is one);
- *compared* (`token == "..."`, `!=`, `===`): only a value that looks generated (letters and
  digits, at least 8 characters, random-looking) is redacted, so `elif token == "keyword":`
  stays as it is in the file.

`scan` is the export's last look (a bundle is pasted into a model's context, often a hosted
one): stricter about assigned values (long and random-looking), and it names the kind and
place of a finding only, never the secret itself.

Every pattern runs in time linear in the line: names are found as whole runs of name
characters (`_names`), each read once, and only then is the text after a run matched, so a
long run of letters and digits costs no backtracking.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

_TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Slack webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")),
)

#: a run of name characters (`config.api_key`, `DB-PASSWORD`), matched whole: never backtracked
_NAME_RUN = re.compile(r"[\w.-]+")

#: what follows a secret-like name in `scan`: assigned or mapped, then a long quoted value
_ASSIGNED_VALUE = re.compile(r"""["']?\s*[:=]\s*(?P<quote>["'])(?P<value>[^"'\s]{16,}+)(?P=quote)""")
_SCAN_NAME = re.compile(r"(?i)api[_-]?key|secret|token|passw(?:or)?d|access[_-]?key")

#: what follows a name that ends in a secret word in `redact`: compared, assigned or mapped,
#: then a quoted literal on the same line
_GIVEN_LITERAL = re.compile(
    r"""(?P<between>["']?\s*(?P<op>===|!==|==|!=|:=|=>|=|:)\s*(?P<quote>["'`]))(?P<value>[^"'`\n]{3,200}+)(?P=quote)"""
)
_REDACT_NAME_END = re.compile(
    r"(?i)(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)$"
)
_COMPARISONS = frozenset({"==", "!=", "===", "!=="})

_PLACEHOLDER = re.compile(r"(?i)(x{4,}|\*{4,}|change.?me|your[_-]|example|placeholder|dummy|<|\$\{|\{\{)")
_PLAIN_WORD = re.compile(r"[a-z]+(?:[_-][a-z]+)*")
_KEY_BLOCK_BEGIN = _TOKEN_PATTERNS[0][1]
_KEY_BLOCK_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_NOT_A_SECRET = frozenset({"password", "passwd", "secret", "token", "none", "null", "true", "false", "undefined"})
REDACTED = "<redacted>"

#: words of which every pattern above needs one (compared case-folded, so a superset): a text
#: without any holds no secret, which spares the patterns on almost every line of ordinary code
_SECRET_WORDS = (
    "private key", "private_key", "private-key", "privatekey", "akia", "asia", "ghp_", "gho_", "ghu_",
    "ghs_", "ghr_", "github_pat_", "xox", "hooks.slack.com", "passw", "pwd", "secret", "token",
    "api_key", "api-key", "apikey", "access_key", "access-key", "accesskey",
)


_SECRET_WORD = re.compile("|".join(map(re.escape, _SECRET_WORDS)))


def _might_hold_a_secret(text: str) -> bool:
    return _SECRET_WORD.search(text.lower()) is not None

#: bits per character above which a quoted value looks random rather than like words
ENTROPY_THRESHOLD = 3.5
#: a compared literal is redacted only when it looks generated: this long, letters and digits,
#: and at least this random (lower than ENTROPY_THRESHOLD: a short value cannot reach 3.5 bits)
COMPARED_MIN_LENGTH = 8
COMPARED_ENTROPY = 2.8


@dataclass(frozen=True)
class Finding:
    kind: str
    line: int  # 1-based line within the scanned text


def scan(text: str) -> list[Finding]:
    """Likely secrets in `text`, one finding per kind and line."""
    findings: list[Finding] = []
    for number, line in enumerate(text.splitlines(), start=1):
        kinds = [kind for kind, pattern in _TOKEN_PATTERNS if pattern.search(line)]
        if not kinds and _might_hold_a_secret(line) and any(
                _looks_secret(match["value"]) for _name, match in _given(line, _ASSIGNED_VALUE, _SCAN_NAME.search)):
            kinds.append("high-entropy value assigned to a secret-like name")
        findings.extend(Finding(kind, number) for kind in kinds)
    return findings


def _given(line: str, after: re.Pattern[str], is_secret_name) -> Iterator[tuple[str, re.Match[str]]]:
    """Each run of name characters that `is_secret_name` accepts, with the match of `after` right
    behind it: each run is read once, so the whole line costs time linear in its length."""
    for run in _NAME_RUN.finditer(line):
        name = run.group()
        if is_secret_name(name):
            match = after.match(line, run.end())
            if match is not None:
                yield name, match


def _looks_secret(value: str) -> bool:
    return (
        not _PLACEHOLDER.search(value)
        and any(ch.isdigit() for ch in value)
        and any(ch.isalpha() for ch in value)
        and shannon_entropy(value) >= ENTROPY_THRESHOLD
    )


def shannon_entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values()) if total else 0.0


# redaction -------------------------------------------------------------------------------------


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `<redacted>`, line count unchanged."""
    if not text or not _might_hold_a_secret(text):
        return text
    lines = text.split("\n")
    in_block = False
    for number, line in enumerate(lines):
        if in_block or _KEY_BLOCK_BEGIN.search(line):
            in_block = not _KEY_BLOCK_END.search(line)
            lines[number] = REDACTED
            continue
        if not _might_hold_a_secret(line):
            continue
        for _kind, pattern in _TOKEN_PATTERNS:
            line = pattern.sub(REDACTED, line)
        lines[number] = _redact_literals(line)
    return "\n".join(lines)


def _redact_literals(line: str) -> str:
    pieces, done = [], 0
    for name, match in _given(line, _GIVEN_LITERAL, _REDACT_NAME_END.search):
        if match.start() < done or not _is_secret_literal(name, match):
            continue
        pieces += [line[done:match.start("value")], REDACTED]
        done = match.end("value")
    return "".join(pieces) + line[done:] if pieces else line


def _is_secret_literal(name: str, match: re.Match[str]) -> bool:
    value = match["value"]
    if _PLACEHOLDER.search(value) or value.lower() in _NOT_A_SECRET or _is_constant_name(value):
        return False
    if match["op"] in _COMPARISONS:
        return _looks_generated(value)
    return not (name.lower().endswith("token") and _PLAIN_WORD.fullmatch(value))


def _looks_generated(value: str) -> bool:
    """A compared value worth redacting: a credential's shape, not a word or an operator."""
    return (
        len(value) >= COMPARED_MIN_LENGTH
        and not any(ch.isspace() for ch in value)
        and any(ch.isdigit() for ch in value)
        and any(ch.isalpha() for ch in value)
        and shannon_entropy(value) >= COMPARED_ENTROPY
    )


def _is_constant_name(value: str) -> bool:
    """`"DB_PASSWORD"`: the name of an environment variable or setting, not its value."""
    return value.isidentifier() and value.upper() == value
