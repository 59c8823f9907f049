"""A warm MCP server keeps what a question needs between questions (issue 47: warm `search_code`
p50 <= 5 ms), and every answer still follows the repository: a file edited, committed, staged
or a branch switched between two calls is seen by the second call.

Real git repositories, the real service in-process, the hashing model (the caches are below
the model). No timing is asserted: the `git status` runs are counted instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from gittools import GitBuilder

from branchwise.errors import UsageError
from branchwise.git.blob_memo import BlobMemo
from branchwise.git import worktree_status
from branchwise.git.repo import GitRepo
from branchwise.mcp_server import answer_size
from branchwise.mcp_server.answer_size import with_token_count
from branchwise.mcp_server.service import AgentService
from branchwise.review.bundle.tokens import TokenCounter, token_counter
from branchwise.verify.verifier import blob_chunks
from branchwise.workspace import Workspace

LEDGER = '''class Ledger:
    """Keeps the balance of one account."""

    def deposit(self, amount):
        self.balance += amount
        return self.balance

    def withdraw(self, amount):
        self.balance -= amount
        return self.balance


def refund_total(items):
    """Sum the refunds of returned items."""
    return sum(item.refund for item in items)
'''
QUESTION = "refund total of returned items"


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    repo = GitBuilder(tmp_path / "ledger")
    repo.write("ledger.py", LEDGER)
    repo.commit("ledger")
    index = tmp_path / "index"
    ws = Workspace(repo.path, index)
    ws.index(["main"])
    ws.close()
    service = AgentService([Workspace(repo.path, index)])
    yield repo, service


def _row(service: AgentService, name: str, question: str = QUESTION, branch: str | None = "main") -> dict:
    answer = service.search_code(question, branch=branch, detail="full", max_tokens=None)
    return next(r for r in answer["results"] if r["qualified_name"] == name)


def _status_runs(repo: GitRepo, monkeypatch) -> list[int]:
    runs = [0]
    status = repo._worktree_status
    assert status is not None
    read = status._read_status

    def counted():
        runs[0] += 1
        return read()

    monkeypatch.setattr(status, "_read_status", counted)
    return runs


def test_an_edit_between_two_calls_is_seen_and_an_unchanged_tree_asks_git_once(served, monkeypatch):
    repo, service = served
    runs = _status_runs(service.workspaces["ledger"].repo, monkeypatch)
    assert _row(service, "refund_total")["verdict"] == "current"
    first = runs[0]
    for _ in range(3):
        assert _row(service, "refund_total")["verdict"] == "current"
    assert runs[0] == first  # nothing moved: no `git status` for the later calls
    repo.write("ledger.py", LEDGER.replace("item.refund for", "item.refund * 2 for"))
    changed = _row(service, "refund_total")
    assert changed["verdict"] == "changed" and "* 2" in changed["text"]
    assert _row(service, "refund_total")["verdict"] == "changed"
    repo.write("ledger.py", LEDGER)  # back as committed: clean again
    assert _row(service, "refund_total")["verdict"] == "current"


def test_a_same_size_edit_and_a_member_edit_are_seen(served):
    repo, service = served
    assert _row(service, "refund_total")["verdict"] == "current"
    same_size = LEDGER.replace("returned items", "returned ITEMS")
    assert len(same_size) == len(LEDGER)
    repo.write("ledger.py", same_size)
    assert _row(service, "refund_total")["verdict"] == "changed"
    assert _row(service, "Ledger", "ledger keeps the balance of one account")["verdict"] == "current"
    repo.write("ledger.py", same_size.replace("self.balance -= amount", "self.balance -= 2 * amount"))
    ledger = _row(service, "Ledger", "ledger keeps the balance of one account")
    assert ledger["verdict"] == "changed" and "Ledger.withdraw" in ledger["reason"]


def test_staging_committing_and_switching_branch_between_calls_are_seen(served):
    repo, service = served
    assert _row(service, "refund_total")["verdict"] == "current"
    repo.write("ledger.py", LEDGER.replace("item.refund for", "item.refund + 1 for"))
    repo.git("add", "ledger.py")  # staged only: the index file changed, the work tree matches it
    assert _row(service, "refund_total")["verdict"] == "changed"
    repo.commit("refunds plus one")  # HEAD moved: the file is clean, the index is behind
    committed = _row(service, "refund_total")
    assert committed["verdict"] == "changed" and "+ 1" in committed["text"]
    repo.git("checkout", "-q", "-b", "side", "HEAD~1")  # another branch, with an edit of its own
    repo.write("ledger.py", LEDGER.replace("item.refund for", "item.refund * 3 for"))
    on_main = _row(service, "refund_total")  # main is no longer checked out: its tip, not this work tree
    assert on_main["verdict"] == "changed" and "+ 1" in on_main["text"] and "* 3" not in on_main["text"]
    repo.git("checkout", "-q", "--", "ledger.py")
    repo.checkout("main")
    repo.write("ledger.py", LEDGER)  # main's work tree back at the indexed text, HEAD one ahead of it
    assert _row(service, "refund_total")["verdict"] == "unchanged-older"


def test_the_dirty_check_answers_as_git_status_does(tmp_path, monkeypatch):
    builder = GitBuilder(tmp_path / "r")
    builder.write("a.py", "a = 1\n")
    builder.write("b.py", "b = 1\n")
    builder.commit("two files")
    repo = GitRepo(builder.path)
    runs = _status_runs(repo, monkeypatch)

    def dirty() -> set[str]:
        check = repo.dirty_check()
        return {path for path in ("a.py", "b.py", "gone.py") if path in check}

    assert dirty() == set() and dirty() == set()
    builder.write("a.py", "a = 2\n")
    assert dirty() == {"a.py"} and repo.dirty_paths() == {"a.py"}
    builder.git("add", "a.py")
    assert dirty() == {"a.py"}
    builder.write("a.py", "a = 1\n")  # the work tree back as HEAD, the staged change stays
    assert dirty() == {"a.py"} and repo.dirty_paths() == {"a.py"}
    builder.git("reset", "-q")
    assert dirty() == set()
    (builder.path / "b.py").unlink()
    assert dirty() == {"b.py"}
    builder.git("checkout", "-q", "--", "b.py")
    assert dirty() == set()
    for name in ("a.py", "b.py"):  # written in the index's own clock tick: racy, so git is asked; not so once older
        os.utime(builder.path / name, (1_700_000_000, 1_700_000_000))
    builder.git("update-index", "-q", "--refresh")
    before = runs[0]
    assert dirty() == set() and dirty() == set()
    assert runs[0] <= before + 1  # at most one more run, for an index git rewrote on its own


def test_a_racily_clean_file_is_read_as_git_reads_it_not_asked_of_git(tmp_path, monkeypatch):
    """A fresh clone's last files share the index's clock tick: git compares their bytes with
    the entry's blob, and so does the dirty check, instead of a `git status` per question."""
    builder = GitBuilder(tmp_path / "r")
    builder.write("a.py", "a = 1\n")
    builder.write("b.py", "b = 1\n")
    builder.commit("two files")
    index = builder.path / ".git" / "index"
    newest = max(os.lstat(builder.path / name).st_mtime_ns for name in ("a.py", "b.py"))
    os.utime(index, ns=(newest, newest))  # the index written in the files' own tick: both racy
    repo = GitRepo(builder.path)
    runs = _status_runs(repo, monkeypatch)

    def dirty() -> set[str]:
        check = repo.dirty_check()
        return {path for path in ("a.py", "b.py") if path in check}

    assert dirty() == set()
    first = runs[0]
    assert dirty() == set() and dirty() == set()
    assert runs[0] == first  # answered from the files' bytes
    builder.write("a.py", "a = 2\n")
    assert dirty() == {"a.py"}


def test_a_file_holds_a_blob_when_its_bytes_hash_to_it(tmp_path):
    builder = GitBuilder(tmp_path / "r")
    builder.write("a.py", "a = 1\n")
    builder.commit("one file")
    oid = bytes.fromhex(builder.git("rev-parse", "HEAD:a.py"))
    assert worktree_status._holds_blob(builder.path / "a.py", oid)
    (builder.path / "link.py").symlink_to("a.py")
    assert not worktree_status._holds_blob(builder.path / "link.py", oid)  # git hashes a link's target name
    builder.write("a.py", "a = 2\n")
    assert not worktree_status._holds_blob(builder.path / "a.py", oid)


def test_a_question_reads_the_refs_once_and_the_next_question_sees_them_move(served):
    repo, service = served
    git = service.workspaces["ledger"].repo
    with git.refs_held(), git.refs_held():  # nested: the outer block's stamp serves both
        before = git.head_commit()
        assert git.current_branch() == "main"
    moved = repo.commit("another commit")
    assert moved != before and git.head_commit() == moved
    assert service.search_code(QUESTION)["branch"] == "main"  # the checked-out branch by default
    repo.git("checkout", "-q", "-b", "next")
    with pytest.raises(UsageError, match="'next'"):  # the next question reads the refs again
        service.search_code(QUESTION)


def test_kept_chunks_are_handed_out_as_copies_and_kept_blobs_stay_within_their_limit(served):
    repo, service = served
    git = service.workspaces["ledger"].repo
    blob = repo.git("rev-parse", "HEAD:ledger.py")
    first = blob_chunks(git, "ledger", "ledger.py", blob, None)
    first[0].text = "mangled"
    assert blob_chunks(git, "ledger", "ledger.py", blob, None)[0].text != "mangled"

    memo = BlobMemo(limit=100)
    for name in "abc":
        memo.put(name, name.encode() * 25)
    assert memo.get("a") == b"a" * 25  # now the most recent
    memo.put("d", b"d" * 25)
    memo.put("e", b"e" * 25)  # 125 bytes: the least recent (b) goes
    assert memo.get("b") is None and all(memo.get(name) == name.encode() * 25 for name in "acde")
    assert memo.put("f", b"f" * 26) == b"f" * 26 and memo.get("f") is None  # over a quarter: not kept


def test_an_answer_counts_its_own_size_as_when_it_counted_every_whole_text(served, monkeypatch):
    _repo, service = served
    answers = [service.search_code(q, max_tokens=None) for q in (QUESTION, "deposit into the ledger", "x")]
    counter = token_counter()
    assert counter.ending is not None

    def shapes() -> list[dict]:  # the field new, last with a value, first (not last), or null
        rests = [{k: v for k, v in a.items() if k != "tokens"} for a in answers]
        return [*rests, *({**r, "tokens": 7} for r in rests), *({"tokens": 7, **r} for r in rests),
                *({**r, "tokens": None} for r in rests)]

    fast = [with_token_count(a) for a in shapes()]
    monkeypatch.setattr(answer_size, "token_counter", lambda: TokenCounter(counter.name, counter.count))
    whole = [with_token_count(a) for a in shapes()]
    assert fast == whole and fast[:3] == answers


def test_a_reindex_between_two_calls_is_answered_from_the_new_index(served):
    repo, service = served
    assert _row(service, "refund_total")["verdict"] == "current"
    repo.write("ledger.py", LEDGER.replace("item.refund for", "item.refund - 1 for"))
    repo.commit("refunds minus one")
    assert _row(service, "refund_total")["verdict"] == "changed"
    ws = Workspace(repo.path, service.workspaces["ledger"].index_dir)
    ws.index(["main"])
    ws.close()
    fresh = _row(service, "refund_total")
    assert fresh["verdict"] == "current" and "- 1" in fresh["text"] and fresh["indexed"]["commit"] == repo.head()[:12]


def test_a_question_reads_the_branches_once_and_the_next_question_sees_them_change(served):
    """`prune` deletes a branch without a new generation: the next question must not keep it."""
    repo, service = served
    repo.git("branch", "side")
    writer = Workspace(repo.path, service.workspaces["ledger"].index_dir)
    writer.index(["side"])
    store = service.workspaces["ledger"].store
    reads = []
    store.conn.set_trace_callback(reads.append)
    assert service.search_code(QUESTION, branch="side")["branch"] == "side"
    store.conn.set_trace_callback(None)
    assert sum("FROM branches" in sql for sql in reads) == 1
    assert sum("key = 'generation'" in sql for sql in reads) == 1
    repo.git("branch", "-D", "side")
    writer.index([], prune=True)
    writer.close()
    with pytest.raises(UsageError, match="'side'.* not indexed"):
        service.search_code(QUESTION, branch="side")


_FIRST_QUESTION = """
import json, sys
from branchwise.mcp_server.service import AgentService
from branchwise.review.bundle.tokens import token_counter
from branchwise.workspace import Workspace

service = AgentService([Workspace(sys.argv[1], sys.argv[2])])
if sys.argv[3] == "warm":
    service.warm()
loaded = set(sys.modules)
counter_ready = token_counter.cache_info().currsize == 1
service.search_code("keeps the balance of one account", branch="main", detail="outline")
print(json.dumps({"counter_ready": counter_ready,
                  "imported": sorted(name for name in set(sys.modules) - loaded if name.startswith(("branchwise", "tree_sitter")))}))
"""


def test_after_warm_up_the_first_question_loads_nothing_more(served, tmp_path):
    """A server warms up before it serves, so an agent's first question costs what the next one
    does: without the warm-up the same question loads the chunker (to outline a class), the
    review desk and the token counter (about 170 ms on the sample repositories)."""
    repo, _service = served
    env = {**os.environ, "BRANCHWISE_MODEL": "hashing-384"}

    def first_question(mode: str) -> dict:
        out = subprocess.run([sys.executable, "-c", _FIRST_QUESTION, str(repo.path), str(tmp_path / "index"), mode],
                             capture_output=True, text=True, env=env, check=True)
        return json.loads(out.stdout)

    cold = first_question("cold")
    assert not cold["counter_ready"] and "branchwise.chunking.chunker" in cold["imported"]
    assert "branchwise.review.desk" in cold["imported"]
    warm = first_question("warm")
    assert warm == {"counter_ready": True, "imported": []}
