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
