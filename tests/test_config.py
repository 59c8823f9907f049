"""Settings are resolved once: command-line flags, then the environment, then config.toml,
then the defaults; every value is type-checked, and a bad one is one line and exit 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from branchwise.backends import Backend
from branchwise.config import Config
from branchwise.errors import UsageError
from branchwise.workspace import Workspace
from gittools import GitBuilder


def write_config(index, text: str):
    index.mkdir(parents=True, exist_ok=True)
    (index / "config.toml").write_text(text)
    return index


def test_each_layer_wins_over_the_ones_below(tmp_path):
    index = write_config(tmp_path / "index", 'model = "from-file"\nqdrant_collection = "file"\nretention_days = 7\n')
    assert Config.resolve(tmp_path / "nothing", environ={}).model == Config().model
    config = Config.resolve(index, environ={})
    assert (config.model, config.qdrant_collection, config.retention_days) == ("from-file", "file", 7)
    environ = {"BRANCHWISE_MODEL": "from-env", "BRANCHWISE_QDRANT_COLLECTION": "env", "BRANCHWISE_USER": "erin"}
    config = Config.resolve(index, environ=environ)
    assert (config.model, config.qdrant_collection, config.user, config.retention_days) == (
        "from-env", "env", "erin", 7)
    config = Config.resolve(index, {"user": "fred", "backend": None}, environ=environ)
    assert config.user == "fred" and config.backend == "faiss"


def test_a_qdrant_address_on_the_command_line_beats_the_environments_backend(tmp_path):
    environ = {"BRANCHWISE_BACKEND": "faiss"}
    config = Config.resolve(tmp_path, {"qdrant_url": "http://q:6333"}, environ=environ)
    assert Backend.resolve(config) == Backend("qdrant", "http://q:6333", None, "branchwise")
    config = Config.resolve(tmp_path, {"qdrant_url": "http://q:6333", "backend": "faiss"}, environ=environ)
    assert Backend.resolve(config).kind == "faiss"  # an explicit --backend still wins


def test_an_address_replaces_the_one_set_below_it(tmp_path):
    index = write_config(tmp_path / "index", 'backend = "qdrant"\nqdrant_url = "http://file:6333"\n')
    config = Config.resolve(index, {"qdrant_path": str(tmp_path / "q")}, environ={})
    backend = Backend.resolve(config)
    assert (backend.qdrant_url, backend.qdrant_path) == (None, str(tmp_path / "q"))
    config = Config.resolve(index, environ={"BRANCHWISE_QDRANT_PATH": str(tmp_path / "e")})
    assert Backend.resolve(config).qdrant_path == str(tmp_path / "e")


def test_the_api_key_comes_from_the_environment_and_is_never_printed(tmp_path):
    config = Config.resolve(tmp_path, {"qdrant_url": "http://q:6333"}, environ={"QDRANT_API_KEY": "s3cret"})
    backend = Backend.resolve(config)
    assert backend.api_key == "s3cret" and "s3cret" not in repr(backend)


@pytest.mark.parametrize("text, message", [
    ('path_weight = "heavy"', "path_weight must be a number, not 'heavy'"),
    ("rising_sessions = 2.5", "rising_sessions must be an integer"),
    ("rising_sessions = true", "rising_sessions must be an integer"),
    ('qdrant_exact = "yes"', "qdrant_exact must be true or false"),
    ("chunking = 3", "chunking must be a table"),
    ('backend = "milvus"', "unknown backend 'milvus'"),
    ('user = "mallory"', "unknown setting(s)"),
    ('colour = "blue"', "unknown setting(s)"),
    ("model = ", "bad configuration file"),
])
def test_a_bad_setting_is_a_usage_error(tmp_path, text, message):
    index = write_config(tmp_path / "index", text + "\n")
    with pytest.raises(UsageError) as error:
        Config.resolve(index, environ={})
    assert message in str(error.value) and "\n" not in str(error.value)


def test_cli_reports_a_wrong_type_in_one_line_with_exit_2(tmp_path):
    repo = GitBuilder(tmp_path / "repo")
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit()
    index = write_config(tmp_path / "index", 'path_weight = "heavy"\n')
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--index", str(index)],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"branchwise: bad setting in configuration file {index / 'config.toml'}: "
        "path_weight must be a number, not 'heavy'"]


def test_the_workspace_passes_its_flags_down(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_USER", "erin")
    monkeypatch.setenv("BRANCHWISE_BACKEND", "faiss")
    repo = GitBuilder(tmp_path / "repo")
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit()
    ws = Workspace(repo.path, tmp_path / "index", user="fred", backend={"url": "http://q:6333"})
    assert ws.user == "fred" and ws.backend.kind == "qdrant"
    assert Workspace(repo.path, tmp_path / "index").user == "erin"


# the user's own file: below the index's config.toml, above the defaults -----------------------


def user_file(tmp_path, text: str) -> dict[str, str]:
    """An environment whose user configuration file holds `text`."""
    folder = tmp_path / "xdg" / "branchwise"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def test_the_user_file_sits_between_the_defaults_and_the_index_file(tmp_path):
    environ = user_file(tmp_path, 'retention_days = 3\nqdrant_collection = "mine"\nuser = "ursula"\n')
    config = Config.resolve(tmp_path / "no-index", environ=environ)
    assert (config.retention_days, config.qdrant_collection, config.user) == (3, "mine", "ursula")
    index = write_config(tmp_path / "index", "retention_days = 9\n")
    config = Config.resolve(index, environ=environ)
    assert (config.retention_days, config.qdrant_collection) == (9, "mine")  # the index file wins
    config = Config.resolve(index, environ={**environ, "BRANCHWISE_USER": "erin"})
    assert config.user == "erin"  # the environment wins over both files
    assert Config.resolve(index, {"user": "fred"}, environ=environ).user == "fred"  # flags over all


def test_without_xdg_the_user_file_is_under_home(tmp_path):
    (tmp_path / ".config" / "branchwise").mkdir(parents=True)
    (tmp_path / ".config" / "branchwise" / "config.toml").write_text("failure_threshold = 0.9\n")
    assert Config.resolve(tmp_path / "i", environ={"HOME": str(tmp_path)}).failure_threshold == 0.9
    assert Config.resolve(tmp_path / "i", environ={}).failure_threshold == Config().failure_threshold


def test_a_bad_user_file_is_one_line_naming_it(tmp_path):
    environ = user_file(tmp_path, "retention_days = 'soon'\n")
    with pytest.raises(UsageError, match=r"branchwise/config.toml: retention_days must be a number"):
        Config.resolve(tmp_path, environ=environ)


def test_explain_names_the_layer_of_every_setting(tmp_path):
    environ = {**user_file(tmp_path, "retention_days = 3\n"), "BRANCHWISE_BACKEND": "faiss"}
    index = write_config(tmp_path / "index", "failure_threshold = 0.5\n")
    sources = {name: source for name, _, source in Config.explain(index, {"user": "fred"}, environ=environ)}
    assert sources["retention_days"] == str(tmp_path / "xdg" / "branchwise" / "config.toml")
    assert sources["failure_threshold"] == str(index / "config.toml")
    assert sources["backend"] == "environment ($BRANCHWISE_BACKEND)"
    assert sources["user"] == "command line"
    assert sources["path_weight"] == "default"


def test_the_config_command_prints_each_setting_and_its_source(tmp_path):
    repo = GitBuilder(tmp_path / "r")
    repo.write("a.py", "x = 1\n")
    repo.commit("first")
    xdg = tmp_path / "xdg"
    (xdg / "branchwise").mkdir(parents=True)
    (xdg / "branchwise" / "config.toml").write_text('qdrant_api_key = "s3cret"\nretention_days = 4\n')
    env = {**__import__("os").environ, "XDG_CONFIG_HOME": str(xdg)}
    result = subprocess.run([sys.executable, "-m", "branchwise_cli", "config", "--repo", str(repo.path), "--json"],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    data = __import__("json").loads(result.stdout)
    assert data["settings"]["retention_days"] == {"value": 4, "source": str(xdg / "branchwise" / "config.toml")}
    assert "s3cret" not in result.stdout and data["settings"]["qdrant_api_key"]["value"] == "(set)"
    assert not (repo.path / ".git" / "branchwise").exists()  # reading the settings creates no index


def test_the_documented_ranking_defaults_are_the_defaults():
    """docs/configuration.md says "these are the defaults" of `[ranking]`: every setting is
    listed there with the value the code uses (its path boost once said off while it was on)."""
    import tomllib
    from dataclasses import asdict
    from pathlib import Path

    from branchwise.ranking import RankingSettings

    text = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text()
    block = text[text.index("[ranking]"):]
    block = block[:block.index("```")]
    documented = tomllib.loads(block)["ranking"]
    assert documented == asdict(RankingSettings())
