"""The check that no training source is benchmark or test-sample code.

Every blob on every branch of the benchmark bundles (`../shared/realrepos/*.bundle`, the
peer benchmark's `../shared/peerbench/*.bundle`, and the bundle the repository carries in
bench/realrepos/) and every file of sample_repos/ is hashed (sha256 of its content); a
training source file with one of those hashes fails the check. Content is compared, not
paths, so a copy under another name is caught too.

Content only covers the projects whose code is here; a package of another corpus (Debian's)
is also refused by its project's name (`excluded_project`): any of the 62 projects of the peer
benchmark's upstream list (peerbench-projects.json), pallets' projects, and every bundled one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: where the shared benchmark data is looked for: $BRANCHWISE_REALREPOS and $BRANCHWISE_PEERBENCH
#: (and the peer folder beside the real-repository one), `shared/` beside the checkout or one level
#: up (a worktree at /work/wt-N and the main checkout at /work/main both find /work/shared)
BUNDLE_DIRS = tuple(dict.fromkeys(
    [Path(p) for p in (os.environ.get("BRANCHWISE_REALREPOS"), os.environ.get("BRANCHWISE_PEERBENCH")) if p]
    + [Path(p).parent / "peerbench" for p in (os.environ.get("BRANCHWISE_REALREPOS"),) if p]
    + [base / "shared" / kind for base in (ROOT.parent, ROOT.parent.parent) for kind in ("realrepos", "peerbench")]
    + [ROOT / "bench" / "realrepos"]))
SAMPLE_DIR = ROOT / "sample_repos"
#: the peer benchmark's upstream project list (MinishLab/semble benchmarks/repos.json, 62 projects)
PEER_PROJECTS = Path(__file__).with_name("peerbench-projects.json")
#: pallets' projects: click is a benchmark, and its siblings share its authors' code and idioms
PALLETS = ("flask", "werkzeug", "jinja", "click", "itsdangerous", "markupsafe")
#: url path parts too generic to name a project by themselves (nlohmann/json, laravel/framework)
_GENERIC = frozenset({"json", "framework", "core", "lib", "src", "fmt"})


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


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def excluded_projects(directories=BUNDLE_DIRS, projects: Path = PEER_PROJECTS) -> tuple[set[str], set[str]]:
    """(project name keys, `owner/repo` url keys) of every project no training file may come from:
    the peer benchmark's 62, pallets' six, and every bundle's name."""
    names = {_key(n) for n in PALLETS}
    urls = {f"pallets/{n}" for n in PALLETS}
    for project in json.loads(projects.read_text())["projects"]:
        owner, repo = project["url"].removesuffix(".git").split("/")[-2:]
        urls.add(f"{owner.lower()}/{repo.lower()}")
        for name in (project["name"], repo, re.sub(r"-(cpp|csharp|framework)$", "", project["name"])):
            if _key(name) and name.lower() not in _GENERIC:
                names.add(_key(name))
    names |= {_key(b.stem) for b in benchmark_bundles(directories)}
    return names, urls


_URL = re.compile(r"(?:github\.com|gitlab\.com|bitbucket\.org)[/:]([\w.-]+)/([\w.-]+?)(?:\.git)?(?=[/#?\s]|$)", re.I)
#: a Debian package's name around its project's: python3-click, ruby-rack, node-express,
#: golang-github-spf13-cobra-dev, librust-tokio-dev, libfmt-dev, jinja2, nlohmann-json3
_PREFIX = re.compile(r"^(python3?-|ruby-|node-|php-|lua-|golang-(github|gopkg|golang|google)-|golang-|rust-|librust-|lib)")
_SUFFIX = re.compile(r"(-dev|-java|-perl|-source|-cil)?$")


def name_candidates(name: str) -> set[str]:
    """The project names a Debian package or source package name may stand for."""
    bare = _SUFFIX.sub("", name.lower(), count=1)
    out = {bare}
    stripped = _PREFIX.sub("", bare)
    out |= {stripped, re.sub(r"[\d.]+$", "", stripped), re.sub(r"[\d.]+$", "", bare)}
    return {_key(n) for n in out if _key(n)}


def excluded_project(fields: dict[str, str], excluded: tuple[set[str], set[str]]) -> str | None:
    """Why a package is refused by its project, or None. `fields`: the package's `Package`,
    `Source`, `Homepage`, and its copyright file's `Upstream-Name` and `Source` (as `Upstream-Source`)."""
    names, urls = excluded
    for field in ("Package", "Source", "Upstream-Name"):
        value = (fields.get(field) or "").split(" ")[0]
        hit = name_candidates(value) & names if value else set()
        if hit:
            return f"{field} {value!r} is the excluded project {sorted(hit)[0]!r}"
    for field in ("Homepage", "Upstream-Source"):
        for owner, repo in _URL.findall(fields.get(field) or ""):
            if f"{owner.lower()}/{repo.lower()}" in urls:
                return f"{field} names the excluded project {owner}/{repo}"
    return None
