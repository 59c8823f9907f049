"""Settings, resolved once per command: flags, then the environment, then the index's
`config.toml`, then the user's own `config.toml`, then defaults.

One file per index keeps a shared index consistent for everyone who queries it: the model
that embedded the vectors must be the model that embeds the queries. Below it, a person's
own file (`$XDG_CONFIG_HOME/branchwise/config.toml`, else `~/.config/branchwise/config.toml`)
sets what they want for every index they make or read, their `user` name and Qdrant key
included. The environment overrides both files for one process (tests use the hashing
embedder through `BRANCHWISE_MODEL`), and the command line overrides everything. The resolved
`Config` is passed down; nothing else reads the environment or the files. `Config.explain`
tells, for each setting, which layer gave its value (`branchwise config`).

A Qdrant address given on the command line (`--qdrant-url`, `--qdrant-path`) implies the
qdrant backend unless `--backend` says otherwise, and replaces any address set below it; the
same holds for the environment's address over the file's.
"""

from __future__ import annotations

import os
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from branchwise.embedding import DEFAULT_MODEL, DEFAULT_RUNTIME, RUNTIMES, model_identity, static_companion
from branchwise.embedding.static_model import is_static_model
from branchwise.errors import UsageError
from branchwise.structured import loads_toml

CONFIG_FILE = "config.toml"
#: the person's own ignore file, beside their config.toml
USER_IGNORE_FILE = "ignore"
#: `static_model` values that name no model
STATIC_AUTO, STATIC_NONE = "auto", "none"
BACKENDS = ("faiss", "qdrant")

#: the environment variable of each setting that one process may override
ENVIRONMENT = {
    "model": "BRANCHWISE_MODEL",
    "runtime": "BRANCHWISE_RUNTIME",
    "static_model": "BRANCHWISE_STATIC_MODEL",
    "backend": "BRANCHWISE_BACKEND",
    "qdrant_url": "BRANCHWISE_QDRANT_URL",
    "qdrant_path": "BRANCHWISE_QDRANT_PATH",
    "qdrant_collection": "BRANCHWISE_QDRANT_COLLECTION",
    "qdrant_api_key": "QDRANT_API_KEY",
    "user": "BRANCHWISE_USER",
}
#: settings that belong to a person or a process, never to the shared file
NOT_IN_FILE = ("qdrant_api_key", "user", "user_ignore")
_LOCATION = ("qdrant_url", "qdrant_path")


@dataclass
class Config:
    model: str = DEFAULT_MODEL
    #: how the model runs: "onnx-int8" (its int8 ONNX export, fast) or "torch" (the reference);
    #: part of the model identity that keys cached embeddings (see embedding/)
    runtime: str = DEFAULT_RUNTIME
    #: the first dense stage, embedded by `index` in the same pass as parsing (issue 47):
    #: "auto" (the static model distilled from `model`, when one ships), "none", or a static
    #: model's name or directory
    static_model: str = STATIC_AUTO
    #: false: the static model is the only dense stage (it is then `model_identity`), and no
    #: ONNX session or torch model is ever opened
    transformer: bool = True
    #: weight of the file path's vector added to each symbol's vector (see docs/chunking.md)
    path_weight: float = 0.25
    #: days an unreferenced version (and its vector) is kept before `gc` removes it
    retention_days: float = 30.0
    #: up to this many vectors the FAISS index is an exact flat scan, above it an IVF index
    flat_max_vectors: int = 100_000
    #: failure ratio above which `stats` recommends re-indexing
    failure_threshold: float = 0.4
    #: "failures by directory" names the deepest directory holding at least this many failures
    failure_directory_min: int = 2
    #: consecutive rising sessions after which `stats` recommends re-indexing
    rising_sessions: int = 3
    #: a container result (class, interface, trait, impl) longer than this many lines carries its
    #: outline in search answers; its members do the recall (see branchwise/verify/views.py)
    container_full_max_lines: int = 40
    #: any other result (a long function, a whole document) longer than this carries the outline
    #: of its text (signatures, docstrings, comments) in search answers
    result_full_max_lines: int = 150
    #: where the searchable index lives: "faiss" (beside the database) or "qdrant" (see backends/)
    backend: str = "faiss"
    qdrant_url: str | None = None
    qdrant_path: str | None = None
    #: prefix of the Qdrant collections, so several teams' indexes can share one server
    qdrant_collection: str = "branchwise"
    #: Qdrant's HNSW search breadth (None: the server's default) or an exact scan; recall
    #: against latency, measured in bench/results/README.md
    qdrant_hnsw_ef: int | None = None
    qdrant_exact: bool = False
    qdrant_api_key: str | None = None
    #: who reads, for the index's access file (None: the operating system's user)
    user: str | None = None
    #: the person's own ignore file (gitignore syntax; `ignore` beside their config.toml by
    #: default): files it matches are not indexed, in any repository (see git/pathrules.py)
    user_ignore: str | None = None
    #: raw `[chunking]` table, handed to branchwise.chunking.ChunkingRules.from_mapping
    chunking: dict[str, Any] = field(default_factory=dict)
    #: raw `[ranking]` table (fusion weights, source-first prior), see branchwise.ranking
    ranking: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def resolve(
        cls,
        index_dir: Path,
        flags: Mapping[str, Any] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> "Config":
        """The settings for one command: `flags` (None values are unset), the environment,
        the index's config.toml, the user's config.toml, the defaults; each layer type-checked."""
        values, _ = _resolve_layers(index_dir, flags, environ)
        return cls(**values)

    @classmethod
    def explain(
        cls,
        index_dir: Path,
        flags: Mapping[str, Any] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> list[tuple[str, Any, str]]:
        """Each setting as `(name, value, where it came from)`: `default`, a file's path,
        `environment ($VAR)` or `command line`."""
        values, sources = _resolve_layers(index_dir, flags, environ)
        resolved = cls(**values)
        return [(f.name, getattr(resolved, f.name), sources.get(f.name, "default")) for f in fields(cls)]

    @classmethod
    def load(cls, index_dir: Path) -> "Config":
        """The settings without command-line flags."""
        return cls.resolve(index_dir)

    @property
    def model_identity(self) -> str:
        """The model as run: keys the embedding cache and the vector file; the static model's
        identity when it is the only dense stage (`transformer = false`)."""
        if not self.transformer:
            static = self.static_identity
            if static is None:
                raise UsageError(f"transformer = false needs a static model, and {self.model} has none "
                                 "shipped (set static_model)")
            return static
        return model_identity(self.model, self.runtime)

    @property
    def static_identity(self) -> str | None:
        """The static stage's model identity (None: no static stage)."""
        if self.static_model == STATIC_NONE:
            return None
        if self.static_model == STATIC_AUTO:
            return static_companion(self.model)
        return self.static_model

    def chunking_rules(self):
        from branchwise.chunking import ChunkingRules

        return ChunkingRules.from_mapping(self.chunking) if self.chunking else ChunkingRules()

    def ranking_settings(self):
        from branchwise.ranking import RankingSettings

        return RankingSettings.from_mapping(self.ranking)


def user_config_path(environ: Mapping[str, str]) -> Path | None:
    """The person's own file: `$XDG_CONFIG_HOME/branchwise/config.toml`, else under `~/.config`."""
    base = environ.get("XDG_CONFIG_HOME") or (environ.get("HOME") and str(Path(environ["HOME"]) / ".config"))
    return Path(base) / "branchwise" / CONFIG_FILE if base else None


def _resolve_layers(
    index_dir: Path, flags: Mapping[str, Any] | None, environ: Mapping[str, str] | None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The merged values of every layer, lowest first, and the layer each value came from."""
    environ = os.environ if environ is None else environ
    index_file = Path(index_dir) / CONFIG_FILE
    user_file = user_config_path(environ)
    layers: list[tuple[dict[str, Any], str]] = []
    if user_file is not None:
        layers.append((_checked(_read_file(user_file), f"configuration file {user_file}", in_file=False),
                       str(user_file)))
    layers.append((_checked(_read_file(index_file), f"configuration file {index_file}", in_file=True),
                   str(index_file)))
    from_environment = {name: environ[var] for name, var in ENVIRONMENT.items() if environ.get(var)}
    layers.append((_checked(from_environment, "environment", in_file=False), "environment"))
    command_line = {name: value for name, value in (flags or {}).items() if value is not None}
    layers.append((_checked(command_line, "command line", in_file=False), "command line"))
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    if user_file is not None:
        values["user_ignore"] = str(user_file.parent / USER_IGNORE_FILE)
    for number, (layer, where) in enumerate(layers):
        if number > 0 and any(layer.get(name) for name in _LOCATION):
            for name in _LOCATION:  # one Qdrant location per layer replaces the one below
                values.pop(name, None)
                sources.pop(name, None)
        if where == "command line" and any(layer.get(name) for name in _LOCATION) and "backend" not in layer:
            values["backend"] = "qdrant"  # --qdrant-url/--qdrant-path imply the backend
            sources["backend"] = "command line (implied by the Qdrant address)"
        values.update(layer)
        for name in layer:
            sources[name] = f"environment (${ENVIRONMENT[name]})" if where == "environment" else where
    return values, sources


def _read_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        return loads_toml(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"bad configuration file {path}: {error}") from None


def _accepted_types() -> dict[str, tuple[type, ...]]:
    """Each setting's accepted value types, read from the field annotations (a float takes an int)."""
    accepted = {}
    for name, hint in typing.get_type_hints(Config).items():
        options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        wanted = tuple(typing.get_origin(t) or t for t in options if t is not type(None))
        accepted[name] = (int, *wanted) if float in wanted else wanted
    return accepted


_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false", dict: "a table"}


_TYPES = _accepted_types()


def _checked(layer: dict[str, Any], where: str, in_file: bool) -> dict[str, Any]:
    """The layer's settings, each of its field's type (one line naming the first that is not)."""
    known = {f.name for f in fields(Config)} - (set(NOT_IN_FILE) if in_file else set())
    unknown = set(layer) - known
    if unknown:
        raise UsageError(f"unknown setting(s) in {where}: {', '.join(sorted(unknown))}")
    for name, value in layer.items():
        wanted = _TYPES[name]
        is_bool = isinstance(value, bool)
        if not isinstance(value, wanted) or (is_bool and bool not in wanted):
            raise UsageError(f"bad setting in {where}: {name} must be {_TYPE_NAMES[wanted[-1]]}, "
                             f"not {value!r}")
    if layer.get("backend") not in (None, *BACKENDS):
        raise UsageError(f"bad setting in {where}: unknown backend {layer['backend']!r} "
                         f"(choose from {', '.join(BACKENDS)})")
    if layer.get("runtime") not in (None, *RUNTIMES):
        raise UsageError(f"bad setting in {where}: unknown embedding runtime {layer['runtime']!r} "
                         f"(choose from {', '.join(RUNTIMES)})")
    static = layer.get("static_model")
    if static not in (None, STATIC_AUTO, STATIC_NONE) and not is_static_model(static):
        raise UsageError(f"bad setting in {where}: static_model {static!r} is not a static model "
                         f"(give a shipped static model, a model2vec folder, {STATIC_AUTO!r} or {STATIC_NONE!r})")
    if "ranking" in layer:
        from branchwise.ranking import RankingSettings

        try:
            RankingSettings.from_mapping(layer["ranking"])
        except UsageError as error:
            raise UsageError(f"bad setting in {where}: {error}") from None
    if "chunking" in layer:
        from branchwise.chunking import ChunkingRules

        try:
            ChunkingRules.from_mapping(layer["chunking"])
        except ValueError as error:
            raise UsageError(f"bad setting in {where}: [chunking] {error}") from None
    if layer.get("qdrant_url") and layer.get("qdrant_path"):
        raise UsageError(f"bad setting in {where}: give either a Qdrant url or a Qdrant path, not both")
    return layer
