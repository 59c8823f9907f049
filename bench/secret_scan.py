"""Secret scan and redaction on one long line: time must grow linearly with the line.

`python -m bench --only secret_scan`

Every export scans the text it writes (secrets.scan) and every chunk is redacted before it is
stored (secrets.redact). The name patterns once backtracked over runs of letters and digits, so
one minified line took time in the square of its length (an 18 KB line: 13 s, 80 KB: 211 s).
This times both on lines of each size made of the shapes that used to backtrack: a long run of
letters and digits behind a secret-like name, the name repeated without a break, and ordinary
assignments. For each shape it reports the seconds per size and the growth per doubling of the
line (2.0 is linear, 4.0 quadratic), from the smallest size to the largest.
"""

from __future__ import annotations

import json
import math
import sys
import time

from branchwise.secrets import redact, scan

SIZES = (10_000, 100_000, 1_000_000)
SHAPES = {
    "letters_and_digits": lambda n: "token" + "a1" * (n // 2),
    "secret_words": lambda n: "token" * (n // 5),
    "assignments": lambda n: 'api_token = "q8Zr3LmT0vXw9Pk2Jd7Hs1Nf"; ' * (n // 40),
}


def _seconds(line: str) -> float:
    best = math.inf
    for _ in range(3):  # the fastest of three: a busy machine only ever adds time
        started = time.perf_counter()
        scan(line)
        redact(line)
        best = min(best, time.perf_counter() - started)
    return best


def run(sizes: tuple[int, ...] = SIZES) -> dict:
    shapes = {}
    for name, make in SHAPES.items():
        seconds = {size: _seconds(make(size)) for size in sizes}
        small, large = sizes[0], sizes[-1]
        doublings = math.log2(large / small)
        growth = (seconds[large] / max(seconds[small], 1e-9)) ** (1 / doublings)
        shapes[name] = {"seconds": {f"{size // 1000}KB": round(s, 4) for size, s in seconds.items()},
                        "ratio_per_doubling": round(growth, 2)}
    return {"line_bytes": list(sizes), "shapes": shapes,
            "worst_ratio_per_doubling": max(s["ratio_per_doubling"] for s in shapes.values())}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
    sys.exit(0)
