"""The check that no training source is benchmark or test-sample code.

Every blob on every branch of the real-repository bundles (`../shared/realrepos/*.bundle`,
and the bundle the repository carries in bench/realrepos/) and every file of sample_repos/
is hashed (sha256 of its content); a training source file with one of those hashes fails
the check. Content is compared, not paths, so a copy under another name is caught too.
"""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLE_DIRS = (ROOT.parent / "shared" / "realrepos", ROOT.parent.parent / "shared" / "realrepos",
               ROOT / "bench" / "realrepos")
SAMPLE_DIR = ROOT / "sample_repos"


def benchmark_bundles(directories=BUNDLE_DIRS) -> list[Path]:
    return sorted({p.resolve() for d in directories if d.is_dir() for p in d.glob("*.bundle")})


def bundle_hashes(bundle: Path) -> dict[str, str]:
    """sha256 of every blob reachable in `bundle` (all its refs) -> where it came from."""
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="branchwise-guard-") as tmp:
        subprocess.run(["git", "init", "-q", "--bare", tmp], check=True)
        subprocess.run(["git", "-C", tmp, "bundle", "unbundle", str(bundle)], check=True, capture_output=True)
        listing = subprocess.run(["git", "-C", tmp, "cat-file", "--batch-all-objects", "--batch-check"],
                                 check=True, capture_output=True, text=True).stdout.split("\n")
        blobs = [line.split()[0] for line in listing if line.endswith(tuple("0123456789")) and " blob " in line]
        contents = subprocess.run(["git", "-C", tmp, "cat-file", "--batch"], input="\n".join(blobs).encode() + b"\n",
                                  check=True, capture_output=True).stdout
    position = 0
    for blob in blobs:
        header_end = contents.index(b"\n", position)
        size = int(contents[position:header_end].split()[2])
        data = contents[header_end + 1:header_end + 1 + size]
        position = header_end + 1 + size + 1
        out.setdefault(hashlib.sha256(data).hexdigest(), f"{bundle.name}:{blob}")
    return out


def sample_hashes(sample_dir: Path = SAMPLE_DIR) -> dict[str, str]:
    return {hashlib.sha256(p.read_bytes()).hexdigest(): str(p.relative_to(sample_dir.parent))
            for p in sorted(sample_dir.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def benchmark_hashes(bundles: list[Path] | None = None, sample_dir: Path = SAMPLE_DIR) -> dict[str, str]:
    found: dict[str, str] = {}
    for bundle in benchmark_bundles() if bundles is None else bundles:
        found.update(bundle_hashes(bundle))
    found.update(sample_hashes(sample_dir))
    return found


def leaked_sources(files: list[dict], benchmark: dict[str, str]) -> list[str]:
    """One line per training source file (manifest records: source, path, sha256) that is benchmark code."""
    return [f"{f['source']}:{f['path']} is {benchmark[f['sha256']]}" for f in files if f["sha256"] in benchmark]
