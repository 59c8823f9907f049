"""Training pairs from Debian packages (issue 49): which packages, how they are fetched, their licences.

The packages are listed per language in debian-packages.toml, written by `python -m train
debian-list` from this machine's apt index (bookworm main) by one rule: for each language, the
packages of its naming pattern (and debtag, for C, C++ and shell) ranked by how many packages
of the archive depend on them, the first TOP of at most MAX_INSTALLED_KIB installed. No
benchmark was looked at. Each package is fetched with `apt-get download` into a cache folder
and unpacked with `dpkg-deb -x` (nothing is installed), its licence read from its DEP-5
copyright file and turned into SPDX identifiers; a package whose licence is not free, whose
copyright file is not machine-readable, or whose project is one the benchmarks use
(guard.excluded_project) is refused and listed, and so is one with a file whose content is
benchmark code (guard.benchmark_hashes).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import tomllib
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from train.sources import Source

PACKAGE_LIST = Path(__file__).with_name("debian-packages.toml")
#: packages per language, and the largest installed size taken (KiB): a modest download
TOP = 20
MAX_INSTALLED_KIB = 16384
#: pairs kept per language by default (a seeded sample), so no language drowns the rest
MAX_PAIRS = 3000


@dataclass(frozen=True)
class Rule:
    """Which bookworm packages are a language's candidates, and which files of them are mined."""

    pattern: str  # the package name, a regular expression
    grammars: tuple[str, ...]  # the product's grammars (chunking.languages) whose files are mined
    tag: str = ""  # a debtag the package must carry
    not_tag: str = ""  # a debtag it must not carry
    fixed: tuple[str, ...] = ()  # no ranking: these packages


RULES = {
    "python": Rule(r"^python3-", ("python",)),
    "ruby": Rule(r"^ruby-", ("ruby",)),
    "php": Rule(r"^php-", ("php",)),
    "javascript": Rule(r"^node-", ("javascript",)),
    "go": Rule(r"^golang-.+-dev$", ("go",)),
    "rust": Rule(r"^librust-.+-dev$", ("rust",)),
    "lua": Rule(r"^lua-", ("lua",)),
    "c": Rule(r"^lib.+-dev$", ("c", "c_header"), tag="devel::lang:c", not_tag="devel::lang:c++"),
    "cpp": Rule(r"^lib.+-dev$", ("cpp", "cpp_header", "c_header"), tag="devel::lang:c++"),
    "bash": Rule(r"", ("bash",), tag="implemented-in::shell"),
    # the JDK's class library, the one bookworm package found carrying Java source (lib*-java
    # packages ship jars of classes); only its java.base module is unpacked
    "java": Rule(r"", ("java",), fixed=("openjdk-17-source",)),
}
#: a JDK source archive's modules that are mined
JAVA_MODULES = ("java.base/",)
#: folders of a package that hold tests, examples, documentation or other projects' code
SKIPPED_PARTS = frozenset({
    "test", "tests", "testing", "testdata", "testsuite", "spec", "__pycache__", "demo", "demos", "example",
    "examples", "benches", "fixtures", "vendor", "node_modules", "third_party", "thirdparty", "bundled",
})


# -- the package list --------------------------------------------------------------------------

def parse_control(text: str) -> list[dict[str, str]]:
    """The paragraphs of a Debian control-format text (Packages index, copyright file), fields
    joined over continuation lines."""
    records: list[dict[str, str]] = []
    current: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if not line.strip():
            if current:
                records.append(current)
            current, key = {}, None
        elif line[0] in " \t" and key:
            current[key] += "\n" + line.strip()
        elif ":" in line:
            key, _, value = line.partition(":")
            current[key] = value.strip()
    if current:
        records.append(current)
    return records


def _depended_names(record: dict[str, str]) -> set[str]:
    text = record.get("Depends", "") + "," + record.get("Pre-Depends", "")
    return set(re.findall(r"(?:^|[,|])\s*([a-z0-9][a-z0-9+.-]+)", text))


def select_packages(records: list[dict[str, str]], top: int = TOP,
                    max_kib: int = MAX_INSTALLED_KIB) -> dict[str, list[tuple[str, int]]]:
    """Per language, (package, reverse dependencies) of the first `top` candidates by reverse
    dependencies (ties by name), each at most `max_kib` installed."""
    reverse = Counter(name for r in records for name in _depended_names(r))
    by_name = {r["Package"]: r for r in records if "Package" in r}
    out: dict[str, list[tuple[str, int]]] = {}
    for language, rule in RULES.items():
        if rule.fixed:
            out[language] = [(name, reverse[name]) for name in rule.fixed if name in by_name]
            continue
        candidates = []
        for name, record in by_name.items():
            tags = {t.strip() for t in record.get("Tag", "").split(",")}
            if not re.search(rule.pattern, name) or (rule.tag and rule.tag not in tags):
                continue
            if (rule.not_tag and rule.not_tag in tags) or int(record.get("Installed-Size", "0")) > max_kib:
                continue
            candidates.append((name, reverse[name]))
        out[language] = sorted(candidates, key=lambda c: (-c[1], c[0]))[:top]
    return out


def write_package_list(chosen: dict[str, list[tuple[str, int]]], path: Path, origin: str) -> None:
    lines = [f"# Debian packages mined by `python -m train mine --source debian`, written by",
             f"# `python -m train debian-list` from {origin}.",
             f"# Rule: per language, the packages of its pattern (and debtag) in the apt index, ranked by",
             f"# how many packages depend on them (Depends and Pre-Depends), the first {TOP} of at most",
             f"# {MAX_INSTALLED_KIB} KiB installed (train/debian.py, RULES). No benchmark was looked at.", ""]
    for language, packages in chosen.items():
        rule = RULES[language]
        how = f"fixed: {', '.join(rule.fixed)}" if rule.fixed else (
            f"name ~ {rule.pattern or '*'}" + (f", tag {rule.tag}" if rule.tag else "")
            + (f", not tag {rule.not_tag}" if rule.not_tag else ""))
        lines += [f"[{language}]", f"rule = {how!r}".replace("'", '"'), "packages = ["]
        lines += [f'  "{name}",  # {count} reverse dependencies' for name, count in packages]
        lines += ["]", ""]
    path.write_text("\n".join(lines))


def read_package_list(path: Path = PACKAGE_LIST) -> dict[str, list[str]]:
    return {language: list(table["packages"]) for language, table in tomllib.loads(path.read_text()).items()}


# -- licences ----------------------------------------------------------------------------------

_SPDX_NAMES = {
    "expat": "MIT", "mit": "MIT", "mit/x11": "MIT", "mit-x": "MIT", "mit-x11": "MIT", "mit/x": "MIT", "x11": "X11", "isc": "ISC", "zlib": "Zlib",
    "zlib/libpng": "Zlib", "psf": "PSF-2.0", "psf-2": "PSF-2.0", "psf-2.0": "PSF-2.0", "python": "Python-2.0",
    "python-2.0": "Python-2.0", "artistic": "Artistic-1.0-Perl", "artistic-1.0": "Artistic-1.0",
    "artistic-2.0": "Artistic-2.0", "artistic-2": "Artistic-2.0", "cc0": "CC0-1.0", "cc0-1.0": "CC0-1.0",
    "public-domain": "LicenseRef-public-domain", "unlicense": "Unlicense", "bsl-1.0": "BSL-1.0",
    "boost-1.0": "BSL-1.0", "boost": "BSL-1.0", "wtfpl": "WTFPL", "0bsd": "0BSD", "ruby": "Ruby",
    "php-3.01": "PHP-3.01", "php-3.0": "PHP-3.0", "zpl-2.1": "ZPL-2.1", "ofl-1.1": "OFL-1.1",
    "unicode": "Unicode-DFS-2016", "ncsa": "NCSA", "curl": "curl", "mit-0": "MIT-0", "bsd-0-clause": "0BSD",
    "ftl": "FTL", "libpng": "Libpng", "ijg": "IJG", "openssl": "OpenSSL", "sgi-b-2.0": "SGI-B-2.0",
    "fsfullr": "FSFULLR", "fsful": "FSFUL", "fsfap": "FSFAP", "gnu-all-permissive-license": "FSFAP",
    "w3c": "W3C", "afl-2.1": "AFL-2.1", "pd": "LicenseRef-public-domain", "lppl-1.3c": "LPPL-1.3c",
}
#: SPDX identifiers (or prefixes, ending in '-') of free licences: a package is mined only under these
FREE = ("MIT", "MIT-0", "X11", "ISC", "Zlib", "PSF-2.0", "Python-2.0", "CC0-1.0", "LicenseRef-public-domain",
        "Unlicense", "BSL-1.0", "WTFPL", "0BSD", "Ruby", "PHP-3.01", "PHP-3.0", "ZPL-2.1", "OFL-1.1",
        "Unicode-DFS-2016", "NCSA", "curl", "FTL", "Libpng", "IJG", "OpenSSL", "SGI-B-2.0",
        "FSFULLR", "FSFUL", "FSFAP", "W3C", "AFL-2.1", "LPPL-1.3c",
        "BSD-", "Apache-", "GPL-", "LGPL-", "AGPL-", "MPL-", "Artistic-", "EPL-", "CDDL-",
        # Creative Commons Attribution (-ShareAlike): free for works (DFSG), documentation in packages
        "CC-BY-")


def spdx(name: str) -> str:
    """One DEP-5 licence short name as an SPDX identifier (`LicenseRef-<name>` when unknown)."""
    short = name.strip().lower().removesuffix(".")
    if short in _SPDX_NAMES:
        return _SPDX_NAMES[short]
    gpl = re.fullmatch(r"(a|l)?gpl-?(\d)(?:\.(\d))?(\+|-or-later| or later)?(-only)?", short)
    if gpl:
        kind = {"a": "AGPL", "l": "LGPL", None: "GPL"}[gpl.group(1)]
        return f"{kind}-{gpl.group(2)}.{gpl.group(3) or 0}-{'or-later' if gpl.group(4) else 'only'}"
    forms = ((r"bsd-(\d)-clause(?:-\w+)?", "BSD-{}-Clause"), (r"apache-?(\d)(?:\.0)?\+?", "Apache-{}"),
             (r"mpl-?(\d(?:\.\d)?)\+?", "MPL-{}"), (r"cc-(by(?:-sa)?-\d\.\d)", "CC-{}"), (r"epl-?(\d\.\d)", "EPL-{}"), (r"cddl-?(\d\.\d)", "CDDL-{}"))
    for pattern, spelled in forms:
        match = re.fullmatch(pattern, short)
        if match:
            version = match.group(1).upper() if spelled.startswith("CC") else match.group(1)
            return spelled.format(version + (".0" if version.isdigit() and "Clause" not in spelled else ""))
    return "LicenseRef-" + re.sub(r"[^A-Za-z0-9.-]", "-", name.strip())


def spdx_expression(expression: str) -> str:
    """A DEP-5 `License:` expression (`GPL-2+ or Artistic`, `Apache-2.0 with LLVM exception`) in SPDX."""
    def one(term: str) -> str:
        parts = re.split(r"\s+with\s+", term.strip(), maxsplit=1, flags=re.I)
        if len(parts) == 1:
            return spdx(parts[0])
        return f"{spdx(parts[0])} WITH {re.sub(r'[^A-Za-z0-9.-]+', '-', parts[1].strip())}"

    alternatives = [[one(t) for t in re.split(r"\s+and\s+|\s*,\s*", alt, flags=re.I) if t.strip()]
                    for alt in re.split(r"\s+or\s+|\s*\|\s*", expression.strip(), flags=re.I)]
    spelled = [" AND ".join(terms) if len(terms) == 1 or len(alternatives) == 1 else f"({' AND '.join(terms)})"
               for terms in alternatives if terms]
    return " OR ".join(spelled)


def is_free(expression: str) -> bool:
    """An SPDX expression from spdx_expression: free when one alternative is all free licences."""
    def free(identifier: str) -> bool:
        identifier = identifier.split(" WITH ")[0].strip("() ")
        return any(identifier == f or (f.endswith("-") and identifier.startswith(f)) for f in FREE)

    return any(all(free(t) for t in alt.split(" AND ")) for alt in expression.split(" OR "))


def copyright_licences(text: str) -> tuple[list[str], dict[str, str]] | None:
    """(the SPDX expressions of a DEP-5 copyright file's `License:` fields, its header), None when
    the file is not machine-readable. Paragraphs covering only `debian/*` (the packaging) are left
    out, and so are stand-alone licence texts."""
    paragraphs = parse_control(text)
    if not paragraphs or not re.search(r"copyright-format|dep5", paragraphs[0].get("Format", "")):
        return None
    header = paragraphs[0]
    found = []
    for paragraph in paragraphs:
        if "License" not in paragraph or ("Files" not in paragraph and paragraph is not header):
            continue
        files = paragraph.get("Files", "*").split()
        if files and all(f.startswith("debian/") for f in files):
            continue
        expression = paragraph["License"].split("\n", 1)[0].strip()
        if expression:
            found.append(spdx_expression(expression))
    return list(dict.fromkeys(found)), header


# -- fetching and unpacking --------------------------------------------------------------------

def cached_deb(debs: Path, package: str) -> Path | None:
    found = sorted(debs.glob(f"{package}_*.deb"))
    return found[-1] if found else None


def download(packages: list[str], debs: Path) -> None:
    """`apt-get download` every package not yet in `debs` (one call, then one by one when it fails)."""
    debs.mkdir(parents=True, exist_ok=True)
    missing = [p for p in packages if cached_deb(debs, p) is None]
    if not missing:
        return
    done = subprocess.run(["apt-get", "download", *missing], cwd=debs, capture_output=True, text=True)
    if done.returncode != 0:
        for package in missing:
            if cached_deb(debs, package) is None:
                subprocess.run(["apt-get", "download", package], cwd=debs, capture_output=True, text=True)


def control_fields(deb: Path) -> dict[str, str]:
    out = subprocess.run(["dpkg-deb", "-f", str(deb), "Package", "Version", "Source", "Homepage"],
                         check=True, capture_output=True, text=True).stdout
    fields = parse_control(out)
    return fields[0] if fields else {}


def unpack(deb: Path, trees: Path) -> Path:
    """The package's files under `trees/<deb name>` (unpacked once); a JDK's source archive's
    mined modules unpacked beside it."""
    tree = trees / deb.stem
    if not (tree / ".unpacked").is_file():
        tree.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True)
        for archive in tree.rglob("src.zip"):
            if archive.is_file() and not archive.is_symlink():
                with zipfile.ZipFile(archive) as opened:
                    members = [m for m in opened.namelist() if m.startswith(JAVA_MODULES) and m.endswith(".java")]
                    opened.extractall(archive.with_suffix(".zip.d"), members)
        (tree / ".unpacked").write_text(deb.name + "\n")
    return tree


# -- one package -------------------------------------------------------------------------------

@dataclass(frozen=True)
class DebianPackage(Source):
    """A Debian package as a training source: its unpacked tree, the files of its language."""

    package: str = ""
    source_package: str = ""
    homepage: str = ""
    licences: tuple[str, ...] = ()
    grammars: tuple[str, ...] = field(default=())

    def files(self) -> list[Path]:
        from branchwise.chunking.languages import grammar_for_file, language_for_path

        found = []
        for path in sorted(self.root.rglob("*")):
            relative = path.relative_to(self.root)
            if path.is_symlink() or not path.is_file() or relative.parts[:3] == ("usr", "share", "doc"):
                continue
            if any(part in SKIPPED_PARTS for part in relative.parts[:-1]):
                continue
            name = relative.name
            if name.startswith("test_") or name.endswith(("_test.go", "_test.py", "_spec.rb", ".min.js")):
                continue
            grammar = language_for_path(relative.as_posix())
            if grammar is None and relative.suffix:
                continue
            if grammar in (None, "c_header"):
                with open(path, "rb") as opened:
                    grammar = grammar_for_file(relative.as_posix(), opened.read(64 * 1024))
            if grammar in self.grammars:
                found.append(path)
        return found


@dataclass
class Refused:
    package: str
    language: str
    reason: str
    version: str = ""
    licence: str = ""


def examine(package: str, language: str, deb: Path, tree: Path,
            excluded: tuple[set[str], set[str]]) -> DebianPackage | Refused:
    """The package as a training source, or why it is refused (licence, project)."""
    from train.guard import excluded_project

    control = control_fields(deb)
    version = control.get("Version", "")
    copyright_file = tree / "usr" / "share" / "doc" / package / "copyright"
    parsed = copyright_licences(copyright_file.read_text(errors="replace")) if copyright_file.is_file() else None
    licences, header = parsed or ([], {})
    fields = {"Package": package, "Source": control.get("Source", package), "Homepage": control.get("Homepage", ""),
              "Upstream-Name": header.get("Upstream-Name", ""), "Upstream-Source": header.get("Source", "")}
    project = excluded_project(fields, excluded)  # first: the reason that matters most
    if project:
        return Refused(package, language, f"benchmark project: {project}", version)
    if not copyright_file.is_file():
        return Refused(package, language, "no copyright file of its own in the package", version)
    if parsed is None:
        return Refused(package, language, "its copyright file is not machine-readable (DEP-5)", version)
    licence = " AND ".join(f"({e})" if " OR " in e and len(licences) > 1 else e for e in licences)
    if not licences:
        return Refused(package, language, "its copyright file names no licence", version)
    not_free = [e for e in licences if not is_free(e)]
    if not_free:
        return Refused(package, language, f"licence not on the free list: {'; '.join(not_free)}", version, licence)
    return DebianPackage(f"debian:{package}", language, tree, licence, "", version, package=package,
                         source_package=fields["Source"].split(" ")[0], homepage=fields["Homepage"],
                         licences=tuple(licences), grammars=RULES[language].grammars if language in RULES else ())


def prepare(listing: dict[str, list[str]], cache: Path, excluded: tuple[set[str], set[str]],
            fetch: bool = True) -> tuple[dict[str, list[DebianPackage]], list[Refused], dict[str, float]]:
    """Every listed package downloaded (when `fetch`), unpacked and examined: (accepted per
    language, refused, seconds per language)."""
    accepted: dict[str, list[DebianPackage]] = {}
    refused: list[Refused] = []
    seconds: dict[str, float] = {}
    for language, packages in listing.items():
        started = time.monotonic()
        if fetch:
            download(packages, cache / "debs")
        accepted[language] = []
        for package in packages:
            deb = cached_deb(cache / "debs", package)
            if deb is None:
                refused.append(Refused(package, language, "not downloadable (apt-get download failed)"))
                continue
            found = examine(package, language, deb, unpack(deb, cache / "trees"), excluded)
            (refused if isinstance(found, Refused) else accepted[language]).append(found)
        seconds[language] = time.monotonic() - started
        print(f"debian: {language}: {len(accepted[language])} packages accepted, "
              f"{sum(r.language == language for r in refused)} refused", file=sys.stderr)
    return accepted, refused, seconds


# -- mining ------------------------------------------------------------------------------------

def mine_packages(accepted: dict[str, list[DebianPackage]], refused: list[Refused], docstring_share: float,
                  seed: int, caps: dict[str, int], benchmark: dict[str, str]) -> tuple[list, list[dict], dict]:
    """The pairs of every accepted package, deduplicated across packages and languages, at most
    caps[language] per language (a seeded sample); a package with a file whose content is
    benchmark code is refused (appended to `refused`) and its language mined again without it.
    Returns (pairs, file records, figures per language)."""
    import random

    from train.mine import mine

    seen: tuple[set[str], set[str]] = (set(), set())
    pairs: list = []
    files: list[dict] = []
    figures: dict[str, dict] = {}
    for language, packages in accepted.items():
        started = time.monotonic()
        while True:
            trial = (set(seen[0]), set(seen[1]))
            found, used = mine(packages, docstring_share, seed, seen=trial)
            leaked = {}
            for record in used:
                if record["sha256"] in benchmark:
                    leaked.setdefault(record["source"], f"{record['path']} is {benchmark[record['sha256']]}")
            if not leaked:
                break
            for package in packages:
                if package.name in leaked:
                    refused.append(Refused(package.package, language, f"benchmark code: {leaked[package.name]}",
                                           package.version, package.licence))
            packages[:] = [p for p in packages if p.name not in leaked]
        seen = trial
        mined = len(found)
        cap = caps.get(language)
        if cap is not None and len(found) > cap:
            chosen = set(random.Random(seed).sample(range(len(found)), cap))
            found = [p for i, p in enumerate(found) if i in chosen]
            counts = Counter((p.source, p.path) for p in found)
            used = [{**f, "pairs": counts[(f["source"], f["path"])]} for f in used if (f["source"], f["path"]) in counts]
        pairs += found
        files += used
        figures[language] = {"packages_listed": 0, "packages_used": len({p.source for p in found}),
                             "files": len(used), "pairs_mined": mined, "pairs": len(found),
                             "mine_seconds": round(time.monotonic() - started, 1)}
        print(f"debian: {language}: {len(found)} pairs ({mined} mined) from {len(used)} files", file=sys.stderr)
    return pairs, files, figures


def debian_manifest(manifest: dict, accepted: dict[str, list[DebianPackage]], refused: list[Refused],
                    listing: dict[str, list[str]], figures: dict[str, dict], fetch_seconds: dict[str, float]) -> dict:
    """The data manifest (train.manifest.data_manifest) with every package named: version, SPDX
    licence, source package, and every refused one with its reason."""
    for language, figure in figures.items():
        figure["packages_listed"] = len(listing.get(language, []))
        figure["packages_refused"] = sum(r.language == language for r in refused)
        figure["fetch_seconds"] = round(fetch_seconds.get(language, 0.0), 1)
    packages = [{"package": p.package, "language": p.language, "version": p.version, "source": p.source_package,
                 "homepage": p.homepage, "licence": p.licence, "licences": list(p.licences)}
                for group in accepted.values() for p in group]
    counted = {s["name"]: s for s in manifest.pop("sources")}
    for entry in packages:
        entry.update({k: counted.get(f"debian:{entry['package']}", {}).get(k, 0)
                      for k in ("pairs", "with_docstring", "files")})
    return {"corpus": "debian", "package_list": PACKAGE_LIST.name, "languages": figures, **manifest,
            "packages": packages, "refused": [vars(r) for r in refused]}
