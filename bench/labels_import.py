"""Labels import: time and peak memory of `labels import` for a large team file.

A team keeps its reviewer labels in the repository as TOML; 200,000 labels make a file of
about 66 MB. The baseline is the previous import, measured in the same run on the same file:
the whole document read with `tomllib`, then one `set_label` call (one transaction) per
entry. The current import reads the exported subset of TOML line by line, checks every entry,
and stores them all in one transaction. Each side runs in its own process, so that its peak
resident memory (VmHWM) is its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import tomli_w

_CHILD = r"""
import json, re, sqlite3, sys, time, tomllib
from pathlib import Path
from branchwise.review.labels import ensure_schema, import_labels, set_label
mode, labels_file, database = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
conn = sqlite3.connect(database, isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL"); conn.execute("PRAGMA synchronous=NORMAL")
ensure_schema(conn)
def high_water_mb():  # this process's own peak (ru_maxrss would carry the parent's over fork)
    status = open("/proc/self/status").read()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024
before = high_water_mb()
started = time.perf_counter()
if mode == "current":
    import_labels(conn, "shop", labels_file)
else:
    for entry in tomllib.loads(labels_file.read_text(encoding="utf-8"))["label"]:
        set_label(conn, "shop", entry, entry["label"], entry.get("note", ""), reviewer=entry.get("reviewer"),
                  labelled_at=entry.get("labelled_at"))
seconds = time.perf_counter() - started
peak = high_water_mb()
count = conn.execute("SELECT COUNT(*) FROM labels").fetchone()[0]
print(json.dumps({"seconds": seconds, "peak_rss_mb": peak, "startup_rss_mb": before, "stored": count}))
"""


def write_labels_file(path: Path, count: int) -> Path:
    entries = [{"path": f"src/pkg{n % 500}/module_{n}.py", "qualified_name": f"Klass{n % 97}.method_{n}",
                "symbol_type": "method", "language": "python", "content_hash": f"{n:064x}", "label": "use",
                "note": "reviewed: reference for the idempotency design", "reviewer": "ann",
                "labelled_at": "2026-01-01T00:00:00+00:00"} for n in range(count)]
    path.write_bytes(tomli_w.dumps({"repository": "shop", "label": entries}).encode())
    return path


def _measure(mode: str, labels_file: Path, database: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, mode, str(labels_file), str(database)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run(count: int, work: Path) -> dict:
    labels_file = write_labels_file(work / "labels.toml", count)
    baseline = _measure("baseline", labels_file, work / "baseline.sqlite3")
    current = _measure("current", labels_file, work / "current.sqlite3")
    assert baseline["stored"] == current["stored"] == count
    return {
        "labels": count,
        "file_mb": round(labels_file.stat().st_size / 1e6, 1),
        "baseline_seconds": round(baseline["seconds"], 2),
        "current_seconds": round(current["seconds"], 2),
        "speedup": round(baseline["seconds"] / current["seconds"], 2),
        "baseline_peak_rss_mb": round(baseline["peak_rss_mb"]),
        "current_peak_rss_mb": round(current["peak_rss_mb"]),
        "memory_ratio": round(current["peak_rss_mb"] / baseline["peak_rss_mb"], 2),
        # what the import itself added on top of the interpreter and its imports
        "baseline_growth_mb": round(baseline["peak_rss_mb"] - baseline["startup_rss_mb"]),
        "current_growth_mb": round(current["peak_rss_mb"] - current["startup_rss_mb"]),
    }


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000, Path(tmp)), indent=2))
