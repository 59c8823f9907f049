"""An index made by the chunker before recipe `sections-1` is cut again once (rechunk.py).

The older chunker is today's with its two changes switched off (no prose sections, no overload
folding) and its recipe name: exactly what indexes made before them hold. Hashing embedder
(deterministic, no weights): these tests are about identities, labels, pins and tombstones.
"""

from __future__ import annotations

import sqlite3

import pytest
from gittools import GitBuilder

from branchwise.chunking import chunker, embedding_text, macro_docs, pathclass
from branchwise.index import recipe
from branchwise.models import Label
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

TERMUI = '''import typing as t


@t.overload
def prompt(text: str) -> str: ...


@t.overload
def prompt(text: str, type: type) -> int: ...


def prompt(text, type=None):
    """Ask the user for a value, with confirmation when asked."""
    value = input(text)
    return type(value) if type else value


def confirm(text: str) -> bool:
    return prompt(text) == "y"
'''

GUIDE = """# Guide

The guide to prompting.

## Passwords

Ask for a password with hide_input.

## Confirmation

Ask twice with confirmation_prompt.
"""


@pytest.fixture
def old_chunker(monkeypatch):
    """Switch today's chunker back to the one before recipe sections-1."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    patch = pytest.MonkeyPatch()
    patch.setattr(chunker, "fold_overloads", lambda grammar, definitions, table: definitions)
    patch.setattr(chunker, "section_chunks", lambda *args: [])
    patch.setattr(embedding_text, "TEXT_RECIPE", "outline-2")
    yield patch
    patch.undo()


@pytest.fixture
def repo(tmp_path):
    git = GitBuilder(tmp_path / "app")
    git.write("app/termui.py", TERMUI)
    git.write("docs/guide.md", GUIDE)
    git.commit("app and guide")
    git.branch("release")
    return git


def _live(ws: Workspace, branch: str) -> dict[tuple[str, str], dict]:
    return {(row["path"], row["qualified_name"]): row for row in ws.inspect(branch)}


def _tombstones(ws: Workspace) -> list[tuple]:
    return ws.store.conn.execute(
        "SELECT b.name, i.path, i.qualified_name FROM tombstones t JOIN identities i ON i.id = t.identity_id "
        "JOIN branches b ON b.id = t.branch_id ORDER BY 1, 2, 3").fetchall()


def test_labels_and_pins_of_stubs_and_of_a_page_follow_the_implementation_and_the_sections(
        repo, tmp_path, old_chunker):
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main", "release"])
    before = _live(ws, "main")
    assert {("app/termui.py", "prompt"), ("app/termui.py", "prompt#2"), ("app/termui.py", "prompt#3"),
            ("docs/guide.md", "guide.md")} <= set(before)
    stub = ws.live_symbol("main", "app/termui.py", "prompt#2")
    assert stub.text.strip().endswith("-> int: ...")  # a stub, before
    ws.review.set_label(stub, Label.USE, "set on a stub")
    ws.review.set_label(ws.live_symbol("main", "docs/guide.md", "guide.md"), Label.REFERENCE_ONLY)
    ws.review.pin(stub, "main", "pinned on a stub")
    ws.review.pin(ws.live_symbol("release", "docs/guide.md", "guide.md"), "release")
    ws.close()
    old_chunker.undo()

    ws = Workspace(repo.path, tmp_path / "index")
    change = ws.index(["main"]).recipe_change
    assert change is not None and change.current == recipe.recipe_id(ws.config.path_weight)
    assert (change.moved_labels, change.moved_pins) == (2, 2)
    assert change.recut_files == 4  # two files on each of the two branches
    for branch in ("main", "release"):  # the branch not indexed in this run is migrated too
        after = _live(ws, branch)
        names = {name for path, name in after if path == "app/termui.py"}
        assert names == {"prompt", "confirm"}, branch
        assert {name for path, name in after if path == "docs/guide.md"} == {"Guide", "Passwords", "Confirmation"}
    assert _tombstones(ws) == []  # nothing was deleted: the code was only cut another way

    implementation = ws.live_symbol("main", "app/termui.py", "prompt")
    assert "Ask the user for a value" in implementation.text and implementation.text.count("def prompt(") == 3
    labels = {(row["path"], row["qualified_name"]): row for row in ws.review.labels()}
    assert labels[("app/termui.py", "prompt")]["label"] == "use"
    assert labels[("app/termui.py", "prompt")]["version_id"] == implementation.version_id
    assert labels[("app/termui.py", "prompt")]["note"] == "set on a stub"
    assert {name for path, name in labels if path == "docs/guide.md"} == {"Guide", "Passwords", "Confirmation"}
    assert all(labels[("docs/guide.md", name)]["label"] == "reference-only"
               for name in ("Guide", "Passwords", "Confirmation"))
    pins = {(p.branch, p.path, p.qualified_name): p for p in ws.review.pins()}
    assert set(pins) == {("main", "app/termui.py", "prompt"), ("release", "docs/guide.md", "Guide"),
                         ("release", "docs/guide.md", "Passwords"), ("release", "docs/guide.md", "Confirmation")}
    assert pins[("main", "app/termui.py", "prompt")].note == "pinned on a stub"

    results = ws.apply_labels(ws.search(SearchRequest("ask the user for a value prompt", "main", top_k=10,
                                                      pinned=ws.review.pinned_keys("main"))))
    prompt = [r for r in results if r.path == "app/termui.py" and r.identity.qualified_name.startswith("prompt")]
    assert [r.identity.qualified_name for r in prompt] == ["prompt"]
    assert prompt[0].label == Label.USE and prompt[0].pinned
    assert ws.store.conn.execute(  # the stubs' versions are gone, not kept as history
        "SELECT count(*) FROM versions v JOIN identities i ON i.id = v.identity_id "
        "WHERE i.qualified_name IN ('prompt#2', 'prompt#3', 'guide.md')").fetchone()[0] == 0
    assert ws.index(["main", "release"]).recipe_change is None  # once


def test_a_page_deleted_on_a_branch_stays_deleted_history_as_its_sections(repo, tmp_path, old_chunker):
    repo.checkout("release")
    repo.delete("docs/guide.md")
    repo.commit("drop the guide")
    repo.checkout("main")
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main", "release"])
    assert ("release", "docs/guide.md", "guide.md") in _tombstones(ws)
    ws.close()
    old_chunker.undo()

    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main"])
    assert _tombstones(ws) == [("release", "docs/guide.md", name) for name in ("Confirmation", "Guide", "Passwords")]
    history = ws.search(SearchRequest("password hide_input", "release", top_k=10, scope="all"))
    guide = [r for r in history if r.path == "docs/guide.md"]
    assert guide and all(r.identity.symbol_type == "section" for r in guide)


def test_a_file_an_older_chunker_cut_into_nothing_is_cut_on_every_branch(tmp_path, monkeypatch):
    """Recipe `modules-1`: a file without symbols (imports only) had no chunk, so no live entry
    marks it obsolete; the migration finds it in each branch's indexed tree all the same."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "app")
    git.write("app/termui.py", TERMUI)
    git.write("app/websockets.py", "from starlette.websockets import WebSocket as WebSocket  # noqa\n")
    git.write("app/blank.py", "\n")
    git.commit("app")
    git.branch("release")
    old = pytest.MonkeyPatch()
    old.setattr(chunker._FileChunker, "_whole_file_chunk", lambda self: None)
    old.setattr(embedding_text, "TEXT_RECIPE", "described-1")
    ws = Workspace(git.path, tmp_path / "index")
    ws.index(["main", "release"])
    assert not [row for row in ws.inspect("main") if row["path"] == "app/websockets.py"]
    ws.close()
    old.undo()

    ws = Workspace(git.path, tmp_path / "index")
    change = ws.index(["main"]).recipe_change
    assert change is not None and change.recut_files == 2  # the one file, on each branch
    for branch in ("main", "release"):
        rows = [(row["qualified_name"], row["symbol_type"]) for row in ws.inspect(branch)
                if row["path"] in ("app/websockets.py", "app/blank.py")]
        assert rows == [("websockets", "module")], branch
    assert _tombstones(ws) == []
    assert ws.index(["main", "release"]).recipe_change is None


def test_a_symbol_an_older_chunker_did_not_cut_beside_unchanged_chunks_is_cut(tmp_path, monkeypatch):
    """Recipe `macros-1`: a Rust `macro_rules!` was module text. Here every chunk the older chunker
    made is cut again unchanged (the module chunk's lines end at the same statement), so no live
    entry is obsolete; the migration finds the file by the symbol its live set lacks."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "app")
    git.write("src/lib.rs", "macro_rules! shout {\n    ($x:expr) => { $x };\n}\n\npub fn run() -> u8 {\n    1\n}\n\n"
                            "register!(run);\n")
    git.commit("lib")
    git.branch("release")
    old = _older_chunker("modules-1", lambda definition: definition.kind == "macro")
    ws = Workspace(git.path, tmp_path / "index")
    ws.index(["main", "release"])
    before = {(row["symbol_type"], row["qualified_name"]) for row in ws.inspect("main")}
    assert before == {("module", "lib"), ("function", "run")}
    ws.close()
    old.undo()

    ws = Workspace(git.path, tmp_path / "index")
    change = ws.index(["main"]).recipe_change
    assert change is not None and change.recut == 0 and change.recut_files == 2  # nothing obsolete
    for branch in ("main", "release"):
        after = {(row["symbol_type"], row["qualified_name"]) for row in ws.inspect(branch)}
        assert after == before | {("macro", "shout")}, branch
    assert _tombstones(ws) == []
    assert ws.index(["main", "release"]).recipe_change is None


def test_the_subcommands_of_a_long_shell_dispatcher_are_cut_from_an_older_index(tmp_path, monkeypatch):
    """Recipe `arms-1`: the arms of the `case` a long shell function dispatches with became
    symbols of their own. An index of the older chunker gains them once, on every branch, with
    nothing obsolete: the function and its file keep their chunks."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "app")
    body = "".join(f"      echo {'y' * 70}\n" for _ in range(25))
    git.write("nvm.sh", f'nvm() {{\n  case "$1" in\n    install)\n{body}    ;;\n    use)\n{body}    ;;\n  esac\n}}\n')
    git.commit("nvm")
    git.branch("release")
    old = _older_chunker("macros-1", lambda definition: definition.node.type == "case_item")
    ws = Workspace(git.path, tmp_path / "index")
    ws.index(["main", "release"])
    assert {(row["symbol_type"], row["qualified_name"]) for row in ws.inspect("main")} == {("function", "nvm")}
    ws.close()
    old.undo()

    ws = Workspace(git.path, tmp_path / "index")
    change = ws.index(["main"]).recipe_change
    assert change is not None and change.recut == 0 and change.recut_files == 2
    for branch in ("main", "release"):
        after = {(row["symbol_type"], row["qualified_name"]) for row in ws.inspect(branch)}
        assert after == {("function", "nvm"), ("function", "nvm.install"), ("function", "nvm.use")}, branch
    assert _tombstones(ws) == []
    assert ws.index(["main", "release"]).recipe_change is None


def test_the_functions_a_call_installs_are_cut_from_an_older_index(tmp_path, monkeypatch):
    """Recipe `installs-1`: express's `defineGetter(req, 'ip', function ip() {...})` became the
    method `req.ip`, out of the module chunk that held it; the rest of the file is cut as before."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "app")
    git.write("lib/request.js", "var req = {};\n\nfunction defineGetter(obj, name, getter) {\n  return getter;\n}\n\n"
                                "defineGetter(req, 'ip', function ip() {\n  return this.socket.remoteAddress;\n});\n")
    git.commit("request")
    old = _older_chunker("nearest-doc-1", lambda definition: definition.receiver == "req")
    ws = Workspace(git.path, tmp_path / "index")
    ws.index(["main"])
    before = {(row["symbol_type"], row["qualified_name"]) for row in ws.inspect("main")}
    assert ("method", "req.ip") not in before and ("function", "defineGetter") in before
    ws.close()
    old.undo()

    ws = Workspace(git.path, tmp_path / "index")
    assert ws.index(["main"]).recipe_change is not None
    after = {(row["symbol_type"], row["qualified_name"]) for row in ws.inspect("main")}
    assert ("method", "req.ip") in after and ("function", "defineGetter") in after
    assert ws.index(["main"]).recipe_change is None


def _older_chunker(text_recipe: str, unknown) -> pytest.MonkeyPatch:
    """The chunker of `text_recipe`, which did not know the definitions `unknown` picks; undo
    the patch to get today's back."""
    patch = pytest.MonkeyPatch()
    real_find = chunker.find_symbols

    def older(*args):
        found = real_find(*args)
        found.definitions[:] = [d for d in found.definitions if not unknown(d)]
        return found

    patch.setattr(chunker, "find_symbols", older)
    patch.setattr(embedding_text, "TEXT_RECIPE", text_recipe)
    return patch


def test_written_code_an_older_rule_took_for_minified_is_source_after_the_migration(tmp_path, monkeypatch):
    """Recipe `arms-1`: one line of 1,000 characters or more made a file minified, so phoenix's
    `endpoint.ex` (a base64 logo in 1,100 written lines) was excluded from every answer. The
    migration reads each stored version's class again, and the file is source on every branch."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "app")
    logo = "x" * 1200
    git.write("endpoint.py", "".join(f"def step_{n}():\n    return {n}\n" for n in range(200)) + f'LOGO = "{logo}"\n')
    git.commit("endpoint")
    git.branch("release")
    old = _older_chunker("macros-1", lambda definition: False)
    old.setattr(pathclass, "_looks_minified", lambda data, rules: max(map(len, data.split(b"\n"))) >= 1000)
    ws = Workspace(git.path, tmp_path / "index")
    ws.index(["main", "release"])
    assert {row["path_class"] for row in ws.inspect("main")} == {"generated"}
    ws.close()
    old.undo()

    ws = Workspace(git.path, tmp_path / "index")
    assert ws.index(["main"]).recipe_change is not None
    for branch in ("main", "release"):
        assert {row["path_class"] for row in ws.inspect(branch)} == {"source"}, branch
    found = ws.search(SearchRequest("step_7", "main"))
    assert found and found[0].path_class.value == "source"


def _indexed_by_an_older_chunker(tmp_path, path: str, source: str, recipe: str, *patches) -> Workspace:
    """A repository of one file on `main` and `release`, indexed by the chunker of an older
    `recipe`: today's with `patches` ((target, attribute, value)) applied while it runs."""
    git = GitBuilder(tmp_path / "app")
    git.write(path, source)
    git.commit("file")
    git.branch("release")
    with pytest.MonkeyPatch.context() as old:
        for target, attribute, value in patches:
            old.setattr(target, attribute, value)
        old.setattr(embedding_text, "TEXT_RECIPE", recipe)
        ws = Workspace(git.path, tmp_path / "index")
        ws.index(["main", "release"])
    return ws


def test_a_macro_documented_inside_its_rules_is_found_by_its_doc_after_the_migration(tmp_path, monkeypatch):
    """Recipe `macro-docs-1`: a Rust `macro_rules!` documented by the `///` lines of its rules
    (tokio's `select!` helper) had no docstring. The migration reads each stored version's
    docstring again, into the lexical index too, on every branch."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    ws = _indexed_by_an_older_chunker(
        tmp_path, "src/select.rs", "macro_rules! doc {\n    ($select:item) => {\n"
        "        /// Waits on several concurrent branches.\n        $select\n    };\n}\n\nfn other() -> u8 {\n    1\n}\n",
        "arms-1", (macro_docs, "_first_doc_run", lambda tree: []))
    assert ws.search(SearchRequest("waits several concurrent branches", "main"))[0].docstring == ""
    ws.close()

    ws = Workspace(ws.repo.path, tmp_path / "index")
    assert ws.index(["main"]).recipe_change is not None
    for branch in ("main", "release"):
        found = ws.search(SearchRequest("waits several concurrent branches", branch, mode="lexical"))
        assert [r.identity.qualified_name for r in found] == ["doc"], branch
        assert found[0].docstring == "Waits on several concurrent branches."
    ws.close()
    with sqlite3.connect(tmp_path / "index" / "index.sqlite3") as db:  # the lexical document's docstring column
        assert db.execute("SELECT docstring FROM lexical WHERE docstring != ''").fetchall() == [
            ("Waits on several concurrent branches.",)]


def test_a_javadoc_is_read_as_prose_after_the_migration(tmp_path, monkeypatch):
    """Recipe `javadoc-1`: a Java doc comment kept its `{@link X}` and HTML tags, words the model
    and the lexical index read as the comment's own. The migration reads each stored version's
    docstring again, on every branch."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    ws = _indexed_by_an_older_chunker(
        tmp_path, "src/Tree.java", "class Tree {\n  /** Walks a {@link Node} tree. <p>Depth first. */\n  void walk() {}\n}\n",
        "macro-docs-1", (chunker, "javadoc_to_prose", lambda text: text))
    assert "{@link Node}" in ws.search(SearchRequest("walks a node tree", "main", mode="lexical"))[0].docstring
    ws.close()
    _assert_migrated_doc(ws.repo.path, tmp_path / "index", "walks a node tree", "Tree.walk",
                         "Walks a Node tree. Depth first.")


def test_a_definition_is_documented_by_its_nearest_comment_after_the_migration(tmp_path, monkeypatch):
    """Recipe `nearest-doc-1`: a C function kept every block comment stacked above it as its
    doc, a group's heading included. The migration reads each stored version's docstring
    again, on every branch."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    ws = _indexed_by_an_older_chunker(
        tmp_path, "src/json.c", "/* Memory Management: free what any parse returns. */\n"
        "/* Parses a json text into a tree. */\nint parse_text(const char *text) { return 0; }\n",
        "module-outline-1", (chunker, "nearest_doc", lambda texts: texts))
    assert ws.search(SearchRequest("parses json text tree", "main", mode="lexical"))[0].docstring.startswith("Memory")
    ws.close()
    _assert_migrated_doc(ws.repo.path, tmp_path / "index", "parses json text tree", "parse_text",
                         "Parses a json text into a tree.")


def _assert_migrated_doc(repo, index, question: str, name: str, docstring: str) -> None:
    """One index run migrates the recipe, after which `question` finds `name` with `docstring`
    on both branches."""
    ws = Workspace(repo, index)
    assert ws.index(["main"]).recipe_change is not None
    for branch in ("main", "release"):
        found = ws.search(SearchRequest(question, branch, mode="lexical"))
        assert found[0].identity.qualified_name == name, branch
        assert found[0].docstring == docstring, branch
    ws.close()
