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


#: an SQL statement's start, or a call that runs one (any `.execute` but git's)
SQL = re.compile(r"\b(SELECT\s|INSERT\s+(INTO|OR)\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|"
                 r"CREATE\s+(TEMP\s+|VIRTUAL\s+|UNIQUE\s+)?(TABLE|INDEX)\b|DROP\s+TABLE\b|ALTER\s+TABLE\b|PRAGMA\s|"
                 r"BEGIN\s+(IMMEDIATE|EXCLUSIVE|DEFERRED)?\b|COMMIT\b|ROLLBACK\b)|(?<!git)\.execute(many|script)?\(|"
                 r"\.iterdump\(")
STORE = CORE / "store"
OUTSIDE_THE_STORE = (CORE, ROOT / "tui", ROOT / "cli")


def sql_outside_the_store(roots, store: Path = STORE) -> list[str]:
    """`path:line: text` of every line under `roots`, but not in `store`, that holds SQL."""
    return [
        f"{path}:{number}: {line.strip()}"
        for root in roots
        for path in sorted(Path(root).rglob("*.py"))
        if store not in path.parents
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if SQL.search(line)
    ]


def test_no_sql_outside_the_store_package():
    """One owner of the schema: every statement lives in branchwise/store/."""
    scanned = [p for root in OUTSIDE_THE_STORE for p in root.rglob("*.py") if STORE not in p.parents]
    assert len(scanned) > 100  # the core, the review app and the command line were all read
    assert sql_outside_the_store(OUTSIDE_THE_STORE) == []
    assert len(sql_outside_the_store([STORE], store=ROOT / "nowhere")) > 50  # ...and the store is where it is


def test_the_sql_check_fails_on_a_planted_statement(tmp_path):
    """The check above is only worth something if it fails when SQL appears outside the store."""
    package = tmp_path / "branchwise"
    (package / "store").mkdir(parents=True)
    (package / "store" / "reads.py").write_text('def n(conn):\n    return conn.execute("SELECT 1")\n')
    (package / "clean.py").write_text('"""select the branch to update from the list"""\n')
    assert sql_outside_the_store([package], store=package / "store") == []
    for planted in ('rows = self.store.conn.execute(\n    "SELECT id FROM versions WHERE x = ?", (1,))\n',
                    'query = f"DELETE FROM {table} WHERE branch_id = ?"\n',
                    'self.conn.executemany(query, rows)\n',
                    'run("INSERT OR IGNORE INTO embeddings VALUES (?, ?, ?)")\n',
                    'db.execute(statement)\n',
                    'c.execute("ROLLBACK")\n'):
        (package / "indexer.py").write_text(planted)
        found = sql_outside_the_store([package], store=package / "store")
        assert found and all("indexer.py" in line for line in found), planted
    assert not SQL.search('self._repo.git.execute(["git", "log"])')  # git's execute runs no SQL


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
