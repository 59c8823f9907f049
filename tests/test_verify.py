"""Use-time verification against real git repositories whose code moved past the index."""

from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.chunking import chunk_file
from branchwise.errors import UsageError
from branchwise.git.repo import GitRepo
from branchwise.models import PathClass, Result, Verdict
from branchwise.verify.verifier import Verifier

SERVICE = '''"""Orders."""


class OrderService:
    def cancel_order(self, order_id):
        order = self.repo.get(order_id)
        order.cancel()
        return order

    def place_order(self, order):
        self.repo.save(order)
        return order


def helper(x):
    return x + 1
'''

LEGACY = '''def old_cancel(order):
    order.status = "cancelled"
    return order
'''

TEXT = '''def slugify(value):
    return value.lower().replace(" ", "-")


def titlecase(value):
    return value.title()
'''


def indexed_results(repo: GitRepo, branch: str, commit: str, paths: list[str]) -> dict[str, Result]:
    """Results as the index would return them: chunk_file output of files committed at `commit`."""
    results = {}
    for path in paths:
        blob = repo.blob_at(commit, path)
        file_chunks = chunk_file(repo.name, path, repo.read_blob(blob))
        for chunk in file_chunks.chunks:
            results[chunk.identity.qualified_name] = Result(
                rank=len(results) + 1, score=1.0, identity=chunk.identity, branch=branch, commit=commit,
                start_line=chunk.start_line, end_line=chunk.end_line, indexed_at="2026-01-01T00:00:00+00:00",
                content_hash=chunk.content_hash, text=chunk.text, blob=blob, version_id=chunk.version_id,
                signature=chunk.signature, parent=chunk.parent.qualified_name if chunk.parent else None,
                path_class=file_chunks.path_class, class_reason=file_chunks.class_reason,
            )
    return results


PATHS = ["src/orders/service.py", "src/orders/legacy.py", "src/util/text.py"]


@pytest.fixture
def shop(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "shop")
    builder.write("src/orders/service.py", SERVICE)
    builder.write("src/orders/legacy.py", LEGACY)
    builder.write("src/util/text.py", TEXT)
    builder.write("README.md", "# shop\n")
    builder.commit("initial")
    return builder


def move_past_index(builder: GitBuilder) -> str:
    """Edit cancel_order, shift helper down, delete legacy.py, move slugify to another file."""
    edited = SERVICE.replace("order.cancel()", "order.cancel(reason)").replace(
        '"""Orders."""\n', '"""Orders."""\nimport logging\n\nLOG = logging.getLogger(__name__)\n'
    )
    builder.write("src/orders/service.py", edited)
    builder.delete("src/orders/legacy.py")
    builder.write("src/util/text.py", TEXT.split("\n\n\n")[1])
    builder.write("src/util/slug.py", TEXT.split("\n\n\n")[0] + "\n")
    return builder.commit("move on")


def test_clean_checkout_at_indexed_commit_reads_no_files(shop):
    repo = GitRepo(shop.path)
    commit = shop.head()
    results = list(indexed_results(repo, "main", commit, PATHS).values())
    results = (results * 3)[:10]
    verifier = Verifier(repo, "main")
    verifier.verify(results)
    assert verifier.uses_work_tree and verifier.target_commit == commit
    assert {r.verdict for r in results} == {Verdict.CURRENT}
    assert results[0].reason == "indexed at target commit; file clean"
    assert verifier.files_read == 0
    assert all(r.current_path is None for r in results)


def test_work_tree_moved_past_the_index(shop):
    repo_path = shop.path
    old = shop.head()
    results = indexed_results(GitRepo(repo_path), "main", old, PATHS)
    move_past_index(shop)
    Verifier(GitRepo(repo_path), "main").verify(list(results.values()))

    cancel = results["OrderService.cancel_order"]
    assert cancel.verdict is Verdict.CHANGED
    assert cancel.reason == "symbol text differs from indexed version; now lines 8-11"
    assert "order.cancel(reason)" in cancel.current_text
    assert (cancel.current_path, cancel.current_start_line, cancel.current_end_line) == (cancel.path, 8, 11)

    helper = results["helper"]
    assert helper.verdict is Verdict.UNCHANGED_OLDER
    assert helper.reason == "older commit, content identical; lines moved 15-16 -> 18-19"
    assert (helper.current_start_line, helper.current_end_line) == (18, 19)
    assert helper.current_text == helper.text

    legacy = results["old_cancel"]
    assert legacy.verdict is Verdict.DELETED and legacy.reason == "file deleted at target"
    assert legacy.current_path is None

    slugify = results["slugify"]  # moved unchanged: what a fresh index would list, at its new place
    assert slugify.verdict is Verdict.UNCHANGED_OLDER and slugify.moved_unchanged
    assert slugify.reason.startswith("moved unchanged to src/util/slug.py#L1-L2 (symbol no longer in file at ")
    assert (slugify.current_path, slugify.current_text) == ("src/util/slug.py", slugify.text)

    titlecase = results["titlecase"]  # its file changed, it did not: now at the top of the file
    assert titlecase.verdict is Verdict.UNCHANGED_OLDER and titlecase.current_start_line == 1


def test_uncommitted_edits_are_the_target(shop):
    commit = shop.head()
    results = indexed_results(GitRepo(shop.path), "main", commit, ["src/orders/service.py"])
    text = SERVICE.replace("return x + 1", "return x + 2").replace('"""Orders."""\n', '"""Orders."""\n\n\n')
    (shop.path / "src/orders/service.py").write_text(text)

    verifier = Verifier(GitRepo(shop.path), "main")
    verifier.verify(list(results.values()))
    helper, cancel = results["helper"], results["OrderService.cancel_order"]
    assert helper.verdict is Verdict.CHANGED and "x + 2" in helper.current_text
    # same commit, dirty file, same text two lines lower: current, with the current lines
    assert cancel.verdict is Verdict.CURRENT
    assert cancel.reason == "content identical; lines moved 5-8 -> 7-10"
    assert verifier.files_read == 1  # the dirty file, read once for all its results


def test_function_moved_to_an_untracked_file_is_found(shop):
    results = indexed_results(GitRepo(shop.path), "main", shop.head(), ["src/orders/legacy.py"])
    (shop.path / "src/orders/legacy.py").unlink()
    (shop.path / "src/orders/cancel.py").write_text(LEGACY)
    Verifier(GitRepo(shop.path), "main").verify(list(results.values()))
    moved = results["old_cancel"]  # same commit, uncommitted move: current at the new place
    assert moved.verdict is Verdict.CURRENT and moved.moved_unchanged
    assert moved.reason.startswith("moved unchanged to src/orders/cancel.py#L1-L3 (file deleted at target at ")


def test_branch_not_checked_out_is_verified_against_its_tip(shop):
    base = shop.head()
    shop.branch("feature")
    shop.checkout("feature")
    move_past_index(shop)
    shop.checkout("main")
    (shop.path / "src/orders/legacy.py").write_text("# edited in main's work tree\n")  # must not matter

    repo = GitRepo(shop.path)
    results = indexed_results(repo, "feature", base, PATHS)
    verifier = Verifier(repo, "feature")
    verifier.verify(list(results.values()))
    assert not verifier.uses_work_tree and verifier.target_commit == shop.head("feature")
    assert verifier.target == f"feature @ {shop.head('feature')[:7]}"
    assert results["OrderService.cancel_order"].verdict is Verdict.CHANGED
    assert results["old_cancel"].verdict is Verdict.DELETED
    assert results["helper"].verdict is Verdict.UNCHANGED_OLDER


def test_against_forces_a_commit(shop):
    base = shop.head()
    results = indexed_results(GitRepo(shop.path), "main", base, PATHS)
    move_past_index(shop)
    (shop.path / "src/util/text.py").write_text("")  # uncommitted: ignored when --against is given

    verifier = Verifier(GitRepo(shop.path), "main", against="HEAD~1")
    verifier.verify(list(results.values()))
    assert verifier.target_commit == base and not verifier.uses_work_tree
    assert {r.verdict for r in results.values()} == {Verdict.CURRENT}
    assert verifier.files_read == 0

    unchanged_file = results["OrderService.cancel_order"]
    Verifier(GitRepo(shop.path), "main", against="HEAD").verify([unchanged_file])
    assert unchanged_file.verdict is Verdict.CHANGED


def test_unchanged_file_at_older_commit_reads_nothing(shop):
    base = shop.head()
    results = indexed_results(GitRepo(shop.path), "main", base, ["src/orders/service.py"])
    shop.write("README.md", "# shop, now with more words\n")
    shop.commit("docs")
    verifier = Verifier(GitRepo(shop.path), "main")
    verifier.verify(list(results.values()))
    assert {r.verdict for r in results.values()} == {Verdict.UNCHANGED_OLDER}
    assert results["helper"].reason == "older commit; file unchanged since"
    assert verifier.files_read == 0


def test_excluded_unverifiable_and_lost_commits(shop):
    results = indexed_results(GitRepo(shop.path), "main", shop.head(), PATHS)
    generated = results["slugify"]
    generated.path_class, generated.class_reason = PathClass.GENERATED, "generated code (header marker)"
    no_hash = results["titlecase"]
    no_hash.content_hash = ""
    lost = results["old_cancel"]
    lost.commit, lost.blob = "0" * 40, None  # indexed at a commit this clone never had
    (shop.path / "src/orders/legacy.py").unlink()

    Verifier(GitRepo(shop.path), "main").verify([generated, no_hash, lost])
    assert (generated.verdict, generated.reason) == (Verdict.EXCLUDED, "generated code (header marker)")
    assert no_hash.verdict is Verdict.UNVERIFIABLE
    assert (lost.verdict, lost.reason) == (Verdict.DELETED, "file deleted at target")


def test_reverification_clears_earlier_findings(shop):
    results = indexed_results(GitRepo(shop.path), "main", shop.head(), ["src/orders/service.py"])
    helper = results["helper"]
    helper.current_path, helper.current_text, helper.reason = "elsewhere.py", "stale", "old"
    Verifier(GitRepo(shop.path), "main").verify([helper])
    assert helper.verdict is Verdict.CURRENT and helper.current_path is None and helper.current_text is None


def test_bad_refs_are_usage_errors(shop):
    repo = GitRepo(shop.path)
    with pytest.raises(UsageError, match="unknown branch"):
        Verifier(repo, "nope")
    with pytest.raises(UsageError, match="unknown revision"):
        Verifier(repo, "main", against="v9.9")


def test_bare_clone_verifies_against_the_tip(shop, tmp_path):
    results = indexed_results(GitRepo(shop.path), "main", shop.head(), PATHS)
    bare = Path(tmp_path / "bare.git")
    shop.git("clone", "-q", "--bare", str(shop.path), str(bare))
    verifier = Verifier(GitRepo(bare), "main")
    verifier.verify(list(results.values()))
    assert not verifier.uses_work_tree
    assert {r.verdict for r in results.values()} == {Verdict.CURRENT}


def test_a_long_lived_repository_sees_later_edits(shop):
    repo = GitRepo(shop.path)
    results = indexed_results(repo, "main", shop.head(), ["src/orders/service.py"])
    Verifier(repo, "main").verify([results["helper"]])
    assert results["helper"].verdict is Verdict.CURRENT
    (shop.path / "src/orders/service.py").write_text(SERVICE.replace("x + 1", "x + 3"))
    Verifier(repo, "main").verify([results["helper"]])  # same GitRepo, as in the review app
    assert results["helper"].verdict is Verdict.CHANGED
