"""Dense coverage: how many versions of a branch's live set the dense channel can rank.

Right after an index run has stored a branch, its versions are searchable through the
lexical and name channels while the model is still embedding them (embedstage.py). Every
output of a search says so while it lasts, in the same words: "dense coverage 37%: 7,212 of
19,375 versions embedded". Once every version is embedded nothing is said in text (the
JSON field stays, complete).

An index with a static stage (issue 47) has two dense stages: the static model's, complete when
`index` returns, and the transformer's, which the background worker completes. The coverage is
then the transformer stage's, and says that the static stage's is complete (`static`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Coverage:
    embedded: int
    total: int
    #: the static stage's coverage of the same live set (None: the index has no static stage)
    static: Coverage | None = None

    @classmethod
    def from_json(cls, data: dict) -> Coverage:
        static = data.get("static")
        return cls(data["embedded"], data["total"], cls.from_json(static) if static else None)

    @property
    def complete(self) -> bool:
        return self.embedded >= self.total

    @property
    def share(self) -> float:
        """The embedded share of the live set (1.0 for an empty one)."""
        return 1.0 if self.total <= 0 else min(1.0, self.embedded / self.total)

    @property
    def percent(self) -> int:
        """Whole percent, rounded down, and never 100 while a version is missing."""
        value = int(self.share * 100)
        return min(value, 99) if not self.complete else 100

    def line(self) -> str:
        if self.static is None:
            return f"dense coverage {self.percent}%: {self.embedded:,} of {self.total:,} versions embedded"
        static = "complete" if self.static.complete else f"{self.static.percent}%"
        return (f"dense coverage {self.percent}% (transformer stage): {self.embedded:,} of {self.total:,} "
                f"versions embedded; static stage {static}")

    def to_json(self) -> dict:
        data: dict = {"embedded": self.embedded, "total": self.total, "share": round(self.share, 4),
                "complete": self.complete}
        if self.static is not None:
            data["static"] = self.static.to_json()
        return data


def coverage_note(coverage: Coverage | None) -> str | None:
    """The line an output adds while the dense channel is incomplete (None otherwise)."""
    if coverage is None or coverage.complete:
        return None
    if coverage.static is not None and coverage.static.complete:
        return (f"{coverage.line()}; the others are ranked by the static stage, their words and names "
                "until the transformer has embedded them")
    return f"{coverage.line()}; the others are ranked by their words and names until the model has embedded them"
