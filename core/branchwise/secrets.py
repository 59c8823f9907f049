"""A last look for credentials before code leaves the machine in an exported bundle.

A bundle is written to be pasted into a model's context, often a hosted one, so a private key
or token that happens to sit in an indexed file must not ride along unnoticed. The patterns are
deliberately few and specific (well-known token shapes, key blocks, and quoted high-entropy
values assigned to secret-sounding names) so that ordinary code does not trip them. Findings
name the kind and place only, never the secret itself.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

_TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Slack webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")),
)

_ASSIGNED_SECRET = re.compile(
    r"""(?ix)
    [\w.-]*(?:api[_-]?key|secret|token|passw(?:or)?d|access[_-]?key)[\w.-]*   # a secret-sounding name
    ["']?\s*[:=]\s*                                                           # assigned or mapped
    (?P<quote>["'])(?P<value>[^"'\s]{16,})(?P=quote)                          # a long quoted value
    """
)

_PLACEHOLDER = re.compile(r"(?i)(x{4,}|\*{4,}|change.?me|your[_-]|example|placeholder|dummy|<|\$\{|\{\{)")

#: bits per character above which a quoted value looks random rather than like words
ENTROPY_THRESHOLD = 3.5


@dataclass(frozen=True)
class Finding:
    kind: str
    line: int  # 1-based line within the scanned text


def scan(text: str) -> list[Finding]:
    """Likely secrets in `text`, one finding per kind and line."""
    findings: list[Finding] = []
    for number, line in enumerate(text.splitlines(), start=1):
        kinds = [kind for kind, pattern in _TOKEN_PATTERNS if pattern.search(line)]
        if not kinds and any(_looks_secret(m.group("value")) for m in _ASSIGNED_SECRET.finditer(line)):
            kinds.append("high-entropy value assigned to a secret-like name")
        findings.extend(Finding(kind, number) for kind in kinds)
    return findings


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
