"""Training pairs from Debian packages (issue 49): licences as SPDX, non-free and benchmark
packages refused, by project name and by content. Real .deb files built here with dpkg-deb (no
network: `--offline` mines the packages already in the cache folder)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from train import debian  # noqa: E402
from train.guard import BUNDLE_DIRS, benchmark_hashes, excluded_project, excluded_projects  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")

SPDX_ID = re.compile(r"[A-Za-z0-9.+-]+(?: WITH [A-Za-z0-9.-]+)?")
DOCUMENTED = ('def {name}(items):\n    """{sentence}"""\n    return [i for i in items if i]\n')


def _copyright(licence: str, upstream: str = "tool") -> str:
    return ("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
            f"Upstream-Name: {upstream}\n\nFiles: *\nCopyright: 2020 Someone\nLicense: {licence}\n\n"
            "Files: debian/*\nCopyright: 2021 A Packager\nLicense: GPL-2+\n")


def _deb(debs: Path, package: str, files: dict[str, bytes | str], licence: str, source: str = "",
         homepage: str = "", upstream: str = "tool") -> Path:
    """A real .deb of `package` (version 1.0-1) holding `files` and a DEP-5 copyright file."""
    tree = debs.parent / "build" / package
    (tree / "DEBIAN").mkdir(parents=True)
    control = f"Package: {package}\nVersion: 1.0-1\nArchitecture: all\nMaintainer: T <t@example.org>\n"
    control += (f"Source: {source}\n" if source else "") + (f"Homepage: {homepage}\n" if homepage else "")
    (tree / "DEBIAN" / "control").write_text(control + "Description: a test package\n")
    for relative, data in {**files, f"usr/share/doc/{package}/copyright": _copyright(licence, upstream)}.items():
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        (tree / relative).write_bytes(data.encode() if isinstance(data, str) else data)
    debs.mkdir(parents=True, exist_ok=True)
    out = debs / f"{package}_1.0-1_all.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", str(tree), str(out)], check=True, capture_output=True)
    return out


def _module(*functions: tuple[str, str]) -> str:
    return "".join(DOCUMENTED.format(name=name, sentence=sentence) for name, sentence in functions)


def _peer_bundle(name: str) -> Path:
    for directory in BUNDLE_DIRS:
        if directory.name == "peerbench" and (directory / f"{name}.bundle").is_file():
            return directory / f"{name}.bundle"
    pytest.skip(f"needs shared data: no peerbench/{name}.bundle in {', '.join(map(str, BUNDLE_DIRS))}")


def test_licence_names_become_spdx_and_only_free_ones_pass():
    assert debian.spdx_expression("Expat") == "MIT"
    assert debian.spdx_expression("GPL-2+ or Artistic") == "GPL-2.0-or-later OR Artistic-1.0-Perl"
    assert debian.spdx_expression("LGPL-2.1") == "LGPL-2.1-only"
    assert debian.spdx_expression("BSD-3-clause") == "BSD-3-Clause"
    assert debian.spdx_expression("Apache-2.0 with LLVM exception") == "Apache-2.0 WITH LLVM-exception"
    assert debian.spdx_expression("PSF-2") == "PSF-2.0"
    assert debian.is_free("GPL-2.0-or-later OR Artistic-1.0-Perl") and debian.is_free("MIT")
    assert not debian.is_free("LicenseRef-Proprietary")
    assert debian.is_free("LicenseRef-Proprietary OR MIT") and not debian.is_free("MIT AND LicenseRef-Proprietary")
    assert debian.copyright_licences("Files: *\nLicense: MIT\n") is None  # not machine-readable


def test_packages_are_refused_by_the_name_or_url_of_a_benchmark_project():
    excluded = excluded_projects()
    refusals = {
        "python3-flask": {"Package": "python3-flask", "Source": "flask"},  # pallets
        "golang-github-go-chi-chi-dev": {"Package": "golang-github-go-chi-chi-dev",  # peerbench upstream only
                                         "Homepage": "https://github.com/go-chi/chi"},
        "ruby-activesupport": {"Package": "ruby-activesupport", "Source": "rails"},
        "libjsonish-dev": {"Package": "libjsonish-dev", "Upstream-Source": "https://github.com/nlohmann/json"},
    }
    for package, fields in refusals.items():
        assert excluded_project(fields, excluded), package
    assert excluded_project({"Package": "python3-six", "Source": "six",
                             "Homepage": "https://github.com/benjaminp/six"}, excluded) is None


def test_mining_debian_packages_names_every_licence_and_refuses_non_free_and_benchmark_ones(tmp_path):
    work = tmp_path / "work"
    debs = work / "debian" / "debs"
    module = "usr/lib/python3/dist-packages/{}/core.py"
    _deb(debs, "python3-tidy", {module.format("tidy"): _module(("tidy_rows", "Remove empty rows from the table."))},
         "Expat")
    _deb(debs, "python3-dual", {module.format("dual"): _module(("merge_maps", "Merge two mappings into a new one."))},
         "GPL-2+ or Artistic")
    _deb(debs, "python3-closed", {module.format("closed"): _module(("secret_sum", "Add up the secret numbers here."))},
         "Proprietary")
    # a pallets project under an innocent package name: refused by its homepage
    _deb(debs, "python3-wsgi-tools", {module.format("wt"): _module(("route_path", "Match the request path to a rule."))},
         "BSD-3-clause", source="wsgi-tools", homepage="https://github.com/pallets/werkzeug")
    listing = tmp_path / "packages.toml"
    listing.write_text('[python]\nrule = "test"\npackages = ["python3-tidy", "python3-dual", "python3-closed", '
                       '"python3-wsgi-tools", "python3-absent"]\n')
    done = subprocess.run([sys.executable, "-m", "train", "--work", str(work), "mine", "--source", "debian",
                           "--packages", str(listing), "--offline"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((work / "data-manifest.json").read_text())
    licences = {p["package"]: p["licence"] for p in manifest["packages"]}
    assert licences == {"python3-tidy": "MIT", "python3-dual": "GPL-2.0-or-later OR Artistic-1.0-Perl"}
    assert all(SPDX_ID.fullmatch(term.strip("()")) for p in manifest["packages"]
               for term in re.split(r" OR | AND ", p["licence"]))
    assert all(p["version"] == "1.0-1" and p["pairs"] == 1 for p in manifest["packages"])
    refused = {r["package"]: r["reason"] for r in manifest["refused"]}
    assert set(refused) == {"python3-closed", "python3-wsgi-tools", "python3-absent"}
    assert refused["python3-closed"] == "licence not on the free list: LicenseRef-Proprietary"
    assert "pallets/werkzeug" in refused["python3-wsgi-tools"]
    queries = [json.loads(line)["query"] for line in open(work / "pairs.jsonl")]
    assert sorted(queries) == ["Merge two mappings into a new one.", "Remove empty rows from the table."]
    assert manifest["languages"]["python"] | {"mine_seconds": 0, "fetch_seconds": 0} == {
        "packages_listed": 5, "packages_used": 2, "packages_refused": 3, "files": 2, "pairs_mined": 2, "pairs": 2,
        "mine_seconds": 0, "fetch_seconds": 0}


def test_a_package_carrying_a_peerbench_file_is_refused_by_its_content(tmp_path):
    bundle = _peer_bundle("requests")
    clone = tmp_path / "requests"
    subprocess.run(["git", "clone", "-q", str(bundle), str(clone)], check=True)
    planted = (clone / "src" / "requests" / "sessions.py").read_bytes()
    assert any(h for h, where in benchmark_hashes().items() if where.startswith("requests.bundle:"))
    work = tmp_path / "work"
    debs = work / "debian" / "debs"
    # a free licence and an unrelated name: only the content gives it away
    _deb(debs, "python3-httpkit", {"usr/lib/python3/dist-packages/httpkit/sessions.py": planted,
                                   "usr/lib/python3/dist-packages/httpkit/own.py":
                                       _module(("parse_query", "Split a query string into its pairs."))},
         "Apache-2.0", upstream="httpkit")
    _deb(debs, "python3-clean", {"usr/lib/python3/dist-packages/clean/core.py":
                                     _module(("strip_tags", "Remove the markup tags from some text."))}, "ISC")
    accepted, refused, _seconds = debian.prepare({"python": ["python3-httpkit", "python3-clean"]},
                                                 work / "debian", excluded_projects(), fetch=False)
    assert [p.package for p in accepted["python"]] == ["python3-httpkit", "python3-clean"]
    pairs, files, figures = debian.mine_packages(accepted, refused, 0.2, 27, {"python": 3000}, benchmark_hashes())
    assert [r.package for r in refused] == ["python3-httpkit"]
    assert "sessions.py is requests.bundle:" in refused[0].reason
    assert {p.source for p in pairs} == {"debian:python3-clean"} and [f["path"] for f in files] == [
        "usr/lib/python3/dist-packages/clean/core.py"]
    assert figures["python"]["pairs"] == 1


def test_the_package_list_is_the_rule_applied_to_an_apt_index():
    records = [
        {"Package": "python3-base", "Installed-Size": "10"},
        {"Package": "python3-huge", "Installed-Size": str(debian.MAX_INSTALLED_KIB + 1)},
        {"Package": "python3-small", "Installed-Size": "5"},
        {"Package": "app", "Depends": "python3-base, python3-huge (>= 1), python3-small | python3-base"},
        {"Package": "app2", "Depends": "python3-base"},
        {"Package": "libthing-dev", "Installed-Size": "5", "Tag": "devel::lang:c, devel::library"},
        {"Package": "libthing++-dev", "Installed-Size": "5", "Tag": "devel::lang:c++, devel::library"},
    ]
    chosen = debian.select_packages(records)
    assert chosen["python"] == [("python3-base", 2), ("python3-small", 1)]
    assert chosen["c"] == [("libthing-dev", 0)] and chosen["cpp"] == [("libthing++-dev", 0)]
    listed = debian.read_package_list()
    assert set(listed) == set(debian.RULES) and all(len(v) <= debian.TOP for v in listed.values())


def test_the_committed_debian_manifest_names_a_licence_and_version_for_every_package():
    path = ROOT / "train" / "data-manifest-debian.json"
    manifest = json.loads(path.read_text())
    listed = {p for packages in debian.read_package_list().values() for p in packages}
    named = {p["package"] for p in manifest["packages"]} | {r["package"] for r in manifest["refused"]}
    assert named == listed
    assert all(p["version"] and debian.is_free(p["licence"]) for p in manifest["packages"])
    assert all(r["reason"] for r in manifest["refused"])
    from train.guard import leaked_sources

    assert leaked_sources(manifest["files"], benchmark_hashes()) == []
