"""Which files the training pairs come from: standard libraries on this machine, with licences.

Only code that ships with a language's interpreter or toolchain is used (installable by
package name, nothing fetched by hand), and never tests or demos of that code: the model is
trained on library code written by others and judged on projects it has never seen.
"""

from __future__ import annotations

import hashlib
import sysconfig
from dataclasses import dataclass
from pathlib import Path

#: Directories of a standard library that hold its tests, demos or tooling, not library code.
SKIPPED_PARTS = frozenset({
    "test", "tests", "idle_test", "site-packages", "dist-packages", "__pycache__", "demo", "demos",
    "Tools", "turtledemo", "lib2to3", "pydoc_data", "ensurepip", "idlelib", "tkinter", "testdata",
    "encodings", "vendor", "cmd",
    # Rust's library: benchmarks, examples, and two vendored or generated trees (the `backtrace`
    # crate, `stdarch`'s thousands of machine-generated SIMD intrinsics)
    "benches", "examples", "backtrace", "stdarch",
})
#: a Rust module's unit tests and benchmarks kept in their own file beside it
TEST_FILES = frozenset({"tests.rs", "benches.rs"})


@dataclass(frozen=True)
class Source:
    """One corpus: a language's standard library and where its files are."""

    name: str
    language: str
    root: Path
    licence: str
    suffix: str
    version: str

    def files(self) -> list[Path]:
        """Its library files in a stable order, tests, demos and config directories left out."""
        found = []
        for path in sorted(self.root.rglob(f"*{self.suffix}")):
            relative = path.relative_to(self.root)
            if any(part in SKIPPED_PARTS or part.startswith("config-") for part in relative.parts[:-1]):
                continue
            if relative.name.startswith("test_") or relative.name.endswith("_test.go") or relative.name in TEST_FILES:
                continue
            if path.is_file():
                found.append(path)
        return found


def python_stdlib() -> Source:
    import platform

    root = Path(sysconfig.get_paths()["stdlib"])
    return Source("python-stdlib", "python", root, "PSF-2.0 (Python Software Foundation License)",
                  ".py", platform.python_version())


def go_stdlib() -> Source | None:
    """Go's standard library, when the Debian package `golang-src` (or a GOROOT) is installed."""
    import glob

    candidates = sorted(glob.glob("/usr/share/go-*/src") + glob.glob("/usr/lib/go-*/src"), reverse=True)
    for candidate in candidates + ["/usr/lib/go/src", "/usr/local/go/src"]:
        root = Path(candidate)
        if (root / "net" / "http").is_dir():
            version = root.parent.name.removeprefix("go-")
            return Source("go-stdlib", "go", root.resolve(), "BSD-3-Clause (The Go Authors)", ".go", version)
    return None


def rust_library() -> Source | None:
    """Rust's standard library (core, alloc, std, ...), when the Debian package `rust-src` is installed."""
    import glob

    for candidate in sorted(glob.glob("/usr/src/rustc-*/library"), reverse=True):
        root = Path(candidate)
        if (root / "core" / "src").is_dir():
            version = root.parent.name.removeprefix("rustc-")
            return Source("rust-library", "rust", root.resolve(), "MIT OR Apache-2.0 (The Rust Project Developers)",
                          ".rs", version)
    return None


KNOWN = {"python": python_stdlib, "go": go_stdlib, "rust": rust_library}


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
