"""The configurable rules of the chunker: size limits, path classes, secrets, minified shape.

Defaults suit most repositories; the `[chunking]` table of a config file overrides any
field by name through `ChunkingRules.from_mapping`. Pattern syntax is in `globs.py`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, fields, replace
from typing import Any

_GLOB_FIELDS = (
    "generated_globs",
    "backup_globs",
    "fixture_globs",
    "vendored_globs",
    "test_globs",
    "docs_globs",
    "secret_globs",
    "secret_allow_globs",
    "minified_exempt_globs",
)


@dataclass(frozen=True)
class ChunkingRules:
    max_file_bytes: int = 1024 * 1024
    #: Files without a grammar (Markdown, TOML, SQL...) become one "file" chunk.
    index_unknown_languages: bool = True
    #: Markdown and reST are cut at headings (sections.py); a longer section is cut at
    #: paragraph boundaries into parts of at most this many lines and characters.
    section_max_lines: int = 50
    section_max_chars: int = 2500

    generated_globs: tuple[str, ...] = (
        "generated/", "__generated__/",
        "*_pb2.py", "*_pb2_grpc.py", "*.pb.go", "*_generated.*", "*.generated.*",
        "*.min.js", "*.min.css", "*.map",
        "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock",
        "go.sum",
        # issue 33: C#, Swift, C/C++ protobuf, Gradle/Bazel output
        "*.g.cs", "*.g.i.cs", "*.designer.cs", "*.Designer.cs", "*.pb.swift", "*.grpc.swift",
        "*.pb.h", "*.pb.cc", "*_pb.rb", "build/generated/*", "*/build/generated/*",
    )
    backup_globs: tuple[str, ...] = (
        "*_old.*", "*.old", "*.bak", "*.orig", "*.swp", "*~", "*.backup", "*_backup.*",
        "*.rej",
    )
    fixture_globs: tuple[str, ...] = ("fixtures/", "testdata/", "__fixtures__/", "__snapshots__/")
    vendored_globs: tuple[str, ...] = (
        "vendor/", "third_party/", "node_modules/",
        "Pods/", "Carthage/", "third-party/", "bower_components/",  # issue 33
        # issue 48: the other folder names of bundled libraries, and test frameworks bundled
        # beside a project's tests (fmt's test/gtest/); a framework's own repository keeps them
        # at its root or under src/, which these patterns leave alone
        "external/", "extern/", "3rdparty/", "thirdparty/", "deps/",
        "*test*/gtest/*", "*test*/gmock/*", "*test*/googletest/*", "*test*/googlemock/*",
        "*test*/catch2/*", "*test*/Catch2/*", "*test*/doctest/*", "*test*/unity/*",
        "gtest-all.cc", "gmock-all.cc", "gmock-gtest-all.cc", "catch_amalgamated.*",
    )
    #: false (the default): vendored files (the folders above, `linguist-vendored` in
    #: .gitattributes) are left out of the index, and `status` lists them; true: they are
    #: indexed as the `vendored` class, kept out of usable results but found by name
    index_vendored: bool = False
    test_globs: tuple[str, ...] = (
        "tests/", "test/", "__tests__/", "spec/", "src/test/java/",
        "test_*.py", "*_test.py", "conftest.py", "*_test.go",
        "*.test.ts", "*.spec.ts", "*.test.tsx", "*.spec.tsx",
        "*.test.js", "*.spec.js", "*.test.jsx", "*.spec.jsx",
        "*Test.java", "*Tests.java",
        # issue 33: Ruby, Kotlin (also multiplatform `jvmTest/` source sets), Swift, C#, PHP,
        # Scala, C/C++, Lua, shell; a Rust module of tests (`#[cfg(test)] mod tests;`) is `tests.rs`
        "*_spec.rb", "*_test.rb", "test_*.rb", "Tests/", "Test/", "*Test/*", "*Tests/*",
        "*Test.kt", "*Tests.kt", "*Test.swift", "*Tests.swift", "*Test.cs", "*Tests.cs",
        "*Test.php", "*Spec.scala", "*Test.scala", "*Suite.scala",
        "*_test.c", "*_test.cc", "*_test.cpp", "*_unittest.cc", "test_*.c",
        "*_spec.lua", "*_test.lua", "*.bats", "tests.rs",
    )
    docs_globs: tuple[str, ...] = (
        "docs/", "doc/", "*.md", "*.markdown", "*.rst", "*.adoc", "README*", "CHANGELOG*",
    )
    secret_globs: tuple[str, ...] = (
        ".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks",
        "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
        "credentials", "credentials.*", "*.credentials", "*credentials.json",
        "secrets.yml", "secrets.yaml", "secrets.json", "secrets.toml",
        ".netrc", ".pgpass", ".htpasswd",
        ".npmrc", ".pypirc", ".git-credentials", ".envrc", ".dockercfg",
        ".docker/config.json", "*/.docker/config.json", ".kube/config", "*/.kube/config",
        "kubeconfig", "kubeconfig.*", "*.kubeconfig", "*.tfvars", "*.tfvars.json",
    )
    #: Templates that match a secret pattern but hold no secrets.
    secret_allow_globs: tuple[str, ...] = (".env.example", ".env.sample", ".env.template")

    #: Generated-code markers, looked for in the first `marker_lines` lines / `marker_bytes` bytes.
    generated_markers: tuple[str, ...] = ("Code generated", "@generated", "DO NOT EDIT")
    marker_lines: int = 5
    marker_bytes: int = 2048

    #: A file with most of its bytes on lines at least this long is minified (or otherwise
    #: machine-written).
    minified_line_length: int = 1000
    #: ...and so is one whose mean line length reaches this while its share of letters
    #: and digits among non-blank characters stays below `minified_max_alnum_share`.
    minified_mean_line_length: int = 200
    minified_max_alnum_share: float = 0.5
    #: Prose files have long lines by nature; they are never judged by shape.
    minified_exempt_globs: tuple[str, ...] = ("*.md", "*.markdown", "*.rst", "*.txt", "*.adoc")

    @classmethod
    def from_mapping(cls, mapping: dict[str, Any]) -> ChunkingRules:
        """Rules from a config table: known fields override the defaults.

        Raises ValueError naming the offending key for unknown keys, wrong types and values out
        of range (a size or a count of 0 or less would index nothing, silently).
        """
        known = {f.name: f for f in fields(cls)}
        defaults = cls()
        changes: dict[str, Any] = {}
        for key, value in mapping.items():
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ValueError(f"unknown chunking setting {key!r}{hint}")
            expected = type(getattr(defaults, key))
            if key in _GLOB_FIELDS or expected is tuple:
                if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                    raise ValueError(f"chunking setting {key!r} must be a list of strings")
                value = tuple(value)
            elif expected is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            elif not isinstance(value, expected) or isinstance(value, bool) != (expected is bool):
                raise ValueError(f"chunking setting {key!r} must be {_KIND_NAMES[expected]}, not {_shown(value)}")
            if expected is int and value < 1:
                raise ValueError(f"chunking setting {key!r} must be 1 or more, not {value}")
            if expected is float and not 0.0 <= value <= 1.0:
                raise ValueError(f"chunking setting {key!r} must be between 0 and 1, not {value}")
            changes[key] = value
        return replace(defaults, **changes)


_KIND_NAMES = {int: "an integer (a count of bytes, lines or characters)", float: "a number",
               bool: "true or false"}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


DEFAULT_RULES = ChunkingRules()
