"""The layers hold: the command line on top, the review app below it, the core at the bottom.

The core never reaches the review app, Textual or the command line by any route (a plain
import, an import inside a function, or a module name in a string handed to importlib);
no modules import each other in a loop; model-free commands start without torch.
"""

import re
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core" / "branchwise"
CORE_MODULES = [
    p.relative_to(ROOT / "core").with_suffix("").as_posix().replace("/", ".").removesuffix(".__init__")
    for p in sorted(CORE.rglob("*.py"))
    if p.name != "__main__.py"
]
ABOVE_THE_CORE = ("branchwise_tui", "branchwise_cli", "textual")
#: a module name of a package above the core, anywhere in a line (module names are lower case)
NAMES_ABOVE = re.compile(r"\b(" + "|".join(ABOVE_THE_CORE) + r")\b")


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print('\\n'.join(sys.modules))"],
        capture_output=True, text=True, check=True,
    ).stdout
    return set(out.split())


def test_importing_every_core_module_loads_nothing_above_the_core():
    assert len(CORE_MODULES) > 30 and "branchwise.workspace" in CORE_MODULES
    loaded = _loaded_after("\n".join(f"import {name}" for name in CORE_MODULES))
    assert {name.split(".")[0] for name in loaded} & set(ABOVE_THE_CORE) == set()


def test_the_core_never_names_a_package_above_it():
    """Catches what no import graph shows: `importlib.import_module("branchwise_tui.app")`."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted(CORE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if NAMES_ABOVE.search(line)
    ]
    assert found == []


def test_the_name_check_would_catch_a_string_import():
    """The check above is only worth something if it fails on the route it exists for."""
    assert NAMES_ABOVE.search('app = importlib.import_module("branchwise_tui.app")')
    assert NAMES_ABOVE.search("__import__('textual.app')")
    assert not NAMES_ABOVE.search("core never imports Textual")  # prose may name the library


#: an SQL statement's start, or a call that runs one
SQL = re.compile(r"\b(SELECT\s|INSERT\s+(INTO|OR)\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|"
                 r"CREATE\s+(TEMP\s+|VIRTUAL\s+|UNIQUE\s+)?(TABLE|INDEX)\b|DROP\s+TABLE\b|PRAGMA\s|"
                 r"BEGIN\s+IMMEDIATE\b)|\b(conn|connection|cursor)\.execute")


def test_no_sql_outside_the_store_modules():
    """One owner of the schema: every statement lives in branchwise/store/."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for root in (CORE, ROOT / "tui", ROOT / "cli")
        for path in sorted(root.rglob("*.py"))
        if CORE / "store" not in path.parents
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if SQL.search(line)
    ]
    assert found == []


def test_the_sql_check_would_catch_a_statement():
    for line in ('conn.execute("SELECT id FROM versions")', '"INSERT OR IGNORE INTO embeddings"',
                 'f"DELETE FROM {table} WHERE x"', '"UPDATE branches SET commit_sha = ?"',
                 '"CREATE TEMP TABLE IF NOT EXISTS allowed"', 'self.conn.execute(query)'):
        assert SQL.search(line), line
    assert not SQL.search("select the branch to update from the list")  # prose is lower case


def test_no_import_cycles():
    graph = grimp.build_graph("branchwise", "branchwise_tui", "branchwise_cli")
    modules = sorted(graph.modules)
    cycles = [
        (a, b) for a in modules for b in graph.find_modules_directly_imported_by(a)
        if a < b and graph.chain_exists(importer=b, imported=a)
    ]
    assert cycles == []


def test_model_free_commands_do_not_import_torch():
    loaded = _loaded_after("import branchwise_cli.main; branchwise_cli.main.build_parser()")
    assert "torch" not in loaded
    assert "sentence_transformers" not in loaded
    assert "textual" not in loaded  # only `review` loads the app, when it runs


def test_import_linter_contract_holds():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
