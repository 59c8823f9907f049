"""The headline guarantee: the allowed set is fixed before ranking, in every channel.

Each corpus here puts far more strong matches outside the allowed set (another branch's
code, or paths the user may not read) than the search depth of any channel, so a search that
ranked everything and filtered afterwards would come back empty or short. With the filter
applied first, the one visible answer is found and nothing outside the allowed set appears.
"""

from __future__ import annotations

import pytest
from gittools import GitBuilder

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

#: More than any channel's search depth (max(50, 5 * top_k) for the top_k used here).
CROWD = 120

ANSWER = '''def invoice_total(invoice):
    """Sum the invoice lines."""
    return sum(line.amount for line in invoice.lines)
'''

UNRELATED = '''def send_welcome_mail(user):
    return user.email
'''


def crowd_file(n: int) -> str:
    """Ten methods whose names and docstrings hold the question's words more often than the answer."""
    return "\n\n".join(
        f"class Variant{n}x{i}:\n    def invoice_total_invoice_total(self, invoice):\n"
        f'        """Invoice total: the total of an invoice, invoice total {n}.{i}."""\n'
        f"        return invoice_total_of(invoice, total={i})\n"
        for i in range(10)
    ) + "\n"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch, backend):
    """Every test here runs on each vector backend (see conftest.py)."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    monkeypatch.delenv("BRANCHWISE_USER", raising=False)


def visible(workspace: Workspace, branch: str) -> set[tuple[str, str]]:
    return {(row["path"], row["qualified_name"]) for row in workspace.inspect(branch)}


def assert_found_within(workspace: Workspace, branch: str, answer: tuple[str, str]) -> None:
    allowed = visible(workspace, branch)
    assert answer in allowed
    for mode in ("dense", "lexical", "fused"):
        results = workspace.search(SearchRequest("invoice total", branch, top_k=5, mode=mode))
        found = [(r.path, r.identity.qualified_name) for r in results]
        assert answer in found, (mode, found)
        assert set(found) <= allowed, (mode, set(found) - allowed)


def crowded_feature_branch(tmp_path) -> GitBuilder:
    """`main` with the one answer; `feature` adds the crowd of stronger matches."""
    repo = GitBuilder(tmp_path / "billing")
    repo.write("src/billing.py", ANSWER)
    repo.write("src/mail.py", UNRELATED)
    repo.commit("billing")
    repo.git("checkout", "-q", "-b", "feature")
    for n in range(CROWD // 10):
        repo.write(f"src/variants/v{n}.py", crowd_file(n))
    repo.commit("many invoice totals")
    repo.git("checkout", "-q", "main")
    return repo


def test_another_branchs_crowd_cannot_hide_the_answer(tmp_path):
    repo = crowded_feature_branch(tmp_path)
    workspace = Workspace(repo.path, tmp_path / "index")
    workspace.index(["main", "feature"])
    assert len(visible(workspace, "feature")) >= CROWD
    assert_found_within(workspace, "main", ("src/billing.py", "invoice_total"))


def test_forbidden_paths_cannot_hide_the_answer(tmp_path):
    repo = GitBuilder(tmp_path / "billing")
    repo.write("src/public/billing.py", ANSWER)
    repo.write("src/public/mail.py", UNRELATED)
    for n in range(CROWD // 10):
        repo.write(f"src/secret/v{n}.py", crowd_file(n))
    repo.commit("billing")
    index = tmp_path / "index"
    Workspace(repo.path, index).index(["main"])
    (index / "access.toml").write_text(
        '[users.bob]\nrepositories = ["billing"]\npaths = { billing = ["src/public/"] }\n'
    )
    bob = Workspace(repo.path, index, user="bob")
    assert visible(bob, "main") == {("src/public/billing.py", "invoice_total"),
                                    ("src/public/mail.py", "send_welcome_mail")}
    assert_found_within(bob, "main", ("src/public/billing.py", "invoice_total"))


def test_the_ivf_path_filters_before_ranking_too(tmp_path, backend):
    """The same crowd with the flat/IVF threshold lowered, so FAISS searches an inverted file."""
    if backend != "faiss":
        pytest.skip("the IVF index is FAISS's")
    import faiss

    repo = crowded_feature_branch(tmp_path)
    index = tmp_path / "index"
    index.mkdir()
    (index / "config.toml").write_text("flat_max_vectors = 32\n")
    workspace = Workspace(repo.path, index)
    workspace.index(["main", "feature"])
    assert isinstance(workspace.searcher.vectors.index, faiss.IndexIVF)
    assert_found_within(workspace, "main", ("src/billing.py", "invoice_total"))
