"""Export bundles: citation headers, purpose lines, exclusions, dedup, context lines, secrets."""

import json

import pytest
from gittools import GitBuilder
from test_verify import LEGACY, PATHS, SERVICE, TEXT, indexed_results, move_past_index

from branchwise.errors import BranchwiseError, UsageError
from branchwise.git.repo import GitRepo
from branchwise.models import Label, PathClass
from branchwise.review.bundle import BundleContext, header_for, manifest_path_for, write_bundle
from branchwise.verify.verifier import Verifier

DAY = "2026-01-01"  # GitBuilder's commit dates


@pytest.fixture
def moved(tmp_path):
    """main moved past an index of its first commit; feature/old-arch still has that commit."""
    builder = GitBuilder(tmp_path / "shop")
    builder.write("src/orders/service.py", SERVICE)
    builder.write("src/orders/legacy.py", LEGACY)
    builder.write("src/util/text.py", TEXT)
    old = builder.commit("initial")
    builder.branch("feature/old-arch")
    new = move_past_index(builder)
    repo = GitRepo(builder.path)
    old_results = indexed_results(repo, "main", old, PATHS)
    old_results["old_cancel"].branch = "feature/old-arch"
    new_results = indexed_results(repo, "main", new, ["src/orders/service.py"])
    return builder, repo, old, new, old_results, new_results


def verified(repo, results):
    verifier = Verifier(repo, "main")
    verifier.verify(results)
    return verifier


def context_for(repo, verifier, **extra) -> BundleContext:
    return BundleContext(
        query="cancel an order twice", repository="shop", branch="main", target_commit=verifier.target_commit,
        target=verifier.target, target_is_work_tree=verifier.uses_work_tree, repo=repo,
        index_commit=verifier.target_commit, index_age_seconds=7200.0, **extra,
    )


def header_of(markdown: str, name: str) -> list[str]:
    section = markdown.split(f". {name}\n", 1)[1]
    return section.split("```text\n", 1)[1].split("\n```", 1)[0].splitlines()


def code_of(markdown: str, name: str, language: str = "python") -> str:
    section = markdown.split(f". {name}\n", 1)[1]
    return section.split(f"```{language}\n", 1)[1].split("\n```", 1)[0]


def test_headers_for_each_verdict(moved, tmp_path):
    _, repo, old, new, old_results, new_results = moved
    results = [
        new_results["OrderService.place_order"], old_results["helper"], old_results["OrderService.cancel_order"],
        old_results["old_cancel"],
    ]
    for rank, result in enumerate(results, start=1):
        result.rank = rank
    verifier = verified(repo, results)
    out = tmp_path / "bundle.md"
    report = write_bundle(results, out, context_for(repo, verifier, notes={results[3].version_id: "the idempotency design"}))
    markdown = out.read_text()

    assert header_of(markdown, "OrderService.place_order") == [
        "Source: src/orders/service.py#L13-L15 (OrderService.place_order)",
        f"Version: main @ {new[:7]} ({DAY})",
        "Check: current; content hash matches",
    ]
    assert header_of(markdown, "helper") == [
        "Source: src/orders/service.py#L18-L19 (helper)",  # the current lines
        f"Version: main @ {old[:7]} ({DAY})",
        "Check: unchanged-older; older commit, content identical",
    ]
    assert header_of(markdown, "OrderService.cancel_order") == [
        "Source: src/orders/service.py#L8-L11 (OrderService.cancel_order)",
        f"Version: main @ {new[:7]} ({DAY}), work tree",
        f"Check: changed; showing the current text at the work tree of main (HEAD {new[:7]})",
    ]
    assert "order.cancel(reason)" in code_of(markdown, "OrderService.cancel_order")
    assert header_of(markdown, "old_cancel") == [
        "Source: src/orders/legacy.py (deleted on main)",
        f"Version: feature/old-arch @ {old[:7]} ({DAY})",
        "Check: deleted; file deleted at target",
        "Purpose: reference for the idempotency design only; do not copy the implementation",
    ]
    assert header_for(results[3], context_for(repo, verifier, notes={})) == [
        "Source: src/orders/legacy.py (deleted on main)",
        f"Version: feature/old-arch @ {old[:7]} ({DAY})",
        "Check: deleted; file deleted at target",
        "Purpose: reference for the idea only; do not copy the implementation",
    ]
    assert markdown.startswith("# Code for: cancel an order twice\n")
    assert f"- Target: the work tree of main (HEAD {new[:7]}), commit {new}" in markdown
    assert "- Index: " in markdown and "2.0 hours old" in markdown
    assert (report.included, report.reference_only, report.left_out) == (4, 1, 0)


def test_reviewer_can_keep_the_indexed_text_of_a_changed_result(moved, tmp_path):
    _, repo, old, _, old_results, _ = moved
    cancel = old_results["OrderService.cancel_order"]
    verifier = verified(repo, [cancel])
    out = tmp_path / "bundle.md"
    write_bundle([cancel], out, context_for(repo, verifier, use_indexed_text=frozenset({cancel.version_id})))
    markdown = out.read_text()
    assert header_of(markdown, "OrderService.cancel_order")[:2] == [
        "Source: src/orders/service.py#L5-L8 (OrderService.cancel_order)",
        f"Version: main @ {old[:7]} ({DAY})",
    ]
    assert "order.cancel()" in code_of(markdown, "OrderService.cancel_order")
    manifest = json.loads(manifest_path_for(out).read_text())
    assert manifest["results"][0]["text"] == "indexed"


def test_labels_exclusions_and_the_manifest(moved, tmp_path):
    _, repo, old, new, old_results, new_results = moved
    place, helper = new_results["OrderService.place_order"], new_results["helper"]
    generated = new_results["OrderService.cancel_order"]
    generated.path_class, generated.class_reason = PathClass.GENERATED, "generated code (header marker)"
    deleted = old_results["old_cancel"]
    results = [place, helper, generated, deleted]
    for rank, result in enumerate(results, start=1):
        result.rank = rank
    verifier = verified(repo, results)
    helper.label = Label.EXCLUDE
    place.label = Label.REFERENCE_ONLY
    deleted.label = Label.USE

    out = tmp_path / "bundle.md"
    report = write_bundle(results, out, context_for(repo, verifier))
    markdown = out.read_text()
    shown = markdown.split("## Left out", 1)[0]
    assert "helper" not in shown and "cancel_order" not in shown
    assert "- rank 2 `helper` (src/orders/service.py): excluded by reviewer" in markdown
    assert header_of(markdown, "OrderService.place_order")[-2:] == [
        "Check: current; content hash matches",
        "Purpose: reference for the idea only; do not copy the implementation",
    ]
    assert header_of(markdown, "old_cancel")[-1] == "Check: deleted; file deleted at target"

    manifest = json.loads(report.manifest_path.read_text())
    assert report.manifest_path == tmp_path / "bundle.md.manifest.json"
    assert manifest["target_commit"] == new and manifest["index_age_seconds"] == 7200.0
    assert manifest["commits"] == sorted({new, old})
    by_name = {entry["qualified_name"]: entry for entry in manifest["results"]}
    assert by_name["helper"]["included"] is False and by_name["helper"]["left_out"] == "excluded by reviewer"
    assert by_name["OrderService.cancel_order"]["left_out"] == "excluded: generated code (header marker)"
    assert by_name["OrderService.cancel_order"]["verdict"] == "excluded"
    assert by_name["old_cancel"]["label"] == "use" and by_name["old_cancel"]["reviewer_label"] == "use"
    assert by_name["OrderService.place_order"]["label"] == "reference-only"


def test_duplicates_appear_once_and_methods_get_their_class_line(moved, tmp_path):
    _, repo, _, new, _, new_results = moved
    cancel = new_results["OrderService.cancel_order"]
    again = indexed_results(repo, "main", new, ["src/orders/service.py"])["OrderService.cancel_order"]
    cancel.rank, again.rank = 1, 4
    verifier = verified(repo, [cancel, again])
    out = tmp_path / "bundle.md"
    context = context_for(repo, verifier, parent_signature=lambda r: "class OrderService:" if r.parent else None)
    report = write_bundle([again, cancel], out, context)
    markdown = out.read_text()
    assert markdown.count("def cancel_order") == 1
    assert code_of(markdown, "OrderService.cancel_order").splitlines()[:4] == [
        "# context, not part of this chunk:", "class OrderService:", "# chunk:", "    def cancel_order(self, order_id):",
    ]
    assert [e["left_out"] for e in report.entries] == [None, "duplicate of rank 1 (same symbol)"]


def test_secrets_are_refused_unless_allowed(tmp_path):
    """The export's last look: text that still holds a key (chunking redacts keys, so the
    result's text is set by hand here) is refused unless allowed."""
    builder = GitBuilder(tmp_path / "shop")
    builder.write("settings.py", 'def aws():\n    return "AKIAIOSFODNN7ABCDEFG"\n')
    commit = builder.commit()
    repo = GitRepo(builder.path)
    results = list(indexed_results(repo, "main", commit, ["settings.py"]).values())
    assert "AKIAIOSFODNN7ABCDEFG" not in results[0].text
    results[0].text = 'def aws():\n    return "AKIAIOSFODNN7ABCDEFG"\n'
    verifier = verified(repo, results)
    out = tmp_path / "bundle.md"
    with pytest.raises(BranchwiseError, match=r"possible secrets: AWS access key id at settings.py:L2"):
        write_bundle(results, out, context_for(repo, verifier))
    assert not out.exists() and not manifest_path_for(out).exists()
    write_bundle(results, out, context_for(repo, verifier, allow_secrets=True))
    assert "AKIAIOSFODNN7ABCDEFG" in out.read_text()


def test_output_safety(moved, tmp_path):
    _, repo, _, _, _, new_results = moved
    results = [new_results["helper"]]
    verifier = verified(repo, results)
    with pytest.raises(UsageError, match="directory does not exist"):
        write_bundle(results, tmp_path / "missing" / "bundle.md", context_for(repo, verifier))
    with pytest.raises(UsageError, match="is a directory"):
        write_bundle(results, tmp_path, context_for(repo, verifier))
    results[0].verdict = None
    with pytest.raises(BranchwiseError, match="was not verified"):
        write_bundle(results, tmp_path / "b.md", context_for(repo, verifier))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shop"]  # no temp files left behind


def test_code_with_backtick_fences_stays_fenced(tmp_path):
    builder = GitBuilder(tmp_path / "shop")
    builder.write("doc.py", 'def doc():\n    return """\n```python\nx = 1\n```\n"""\n')
    commit = builder.commit()
    repo = GitRepo(builder.path)
    results = list(indexed_results(repo, "main", commit, ["doc.py"]).values())
    verifier = verified(repo, results)
    out = tmp_path / "bundle.md"
    write_bundle(results, out, context_for(repo, verifier))
    assert "````python\ndef doc():" in out.read_text()
