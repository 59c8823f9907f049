"""The data manifest: what the training pairs were made of, so a rebuild can be checked."""

from __future__ import annotations

import hashlib
from collections import Counter

from train.mine import MAX_WORDS, MIN_WORDS, Pair
from train.sources import Source


def data_manifest(sources: list[Source], pairs: list[Pair], files: list[dict], seed: int,
                  docstring_share: float, max_pairs: dict[str, int] | None = None,
                  negatives: str = "library") -> dict:
    per_source = Counter(p.source for p in pairs)
    with_docstring = Counter(p.source for p in pairs if p.with_docstring)
    digest = hashlib.sha256()
    for p in pairs:
        digest.update(f"{p.query}\0{p.code}\0".encode())
    return {
        "seed": seed,
        "docstring_share": docstring_share,
        "max_pairs_per_language": max_pairs or {},
        "query": f"the docstring's first sentence, {MIN_WORDS}-{MAX_WORDS} words",
        "hard_negative": {"library": "the library's best BM25 match for the question",
                          "file": "the best BM25 match in the question's own file, else the library's"}[negatives],
        "pairs": len(pairs),
        "pairs_sha256": digest.hexdigest(),
        "sources": [{"name": s.name, "language": s.language, "version": s.version, "licence": s.licence,
                     "root": str(s.root), "pairs": per_source[s.name], "with_docstring": with_docstring[s.name],
                     "files": sum(1 for f in files if f["source"] == s.name)} for s in sources],
        "files": files,
    }
