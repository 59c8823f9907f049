"""Snapshots of the main screen and the statistics screen on fixed data.

Fixed: the sample repositories (pinned commits and dates), the hashing embedder, the indexer's
clock (tests/tui/conftest.py) and the stats log's timestamps (written here). Regenerate with
`pytest tests/tui --snapshot-update` after checking the new SVGs by eye.
"""

from __future__ import annotations

import json

from pilot_helpers import select_row, settle

from branchwise import stats
from branchwise.models import Verdict
from branchwise.search import SearchRequest
from branchwise.workspace import Workspace
from branchwise_tui.app import create_app

QUERY = "make order cancellation idempotent"
SIZE = (160, 45)
SESSIONS = [  # (time, query, scope): the trend the statistics screen draws
    ("2026-10-02T10:00:00+00:00", "calculate the refund of a shipped order", "branch"),
    ("2026-10-05T14:30:00+00:00", QUERY, "all"),
    ("2026-10-09T09:15:00+00:00", "send an email when an order is cancelled", "all"),
    ("2026-10-12T16:45:00+00:00", "reject a reused idempotency key", "all"),
]


def test_main_screen(shop_index, snap_compare):
    repo, index_dir = shop_index
    app = create_app(Workspace(repo, index_dir), branch="main", query=QUERY, scope="all")

    async def review_a_deleted_result(pilot):
        await settle(pilot)
        select_row(app, lambda r: r.verdict is Verdict.DELETED and "Handler" in r.identity.qualified_name)
        await pilot.press("r")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=review_a_deleted_result)


def test_statistics_screen(shop_index, snap_compare):
    repo, index_dir = shop_index
    _write_stats_log(repo, index_dir)
    app = create_app(Workspace(repo, index_dir), branch="main")

    async def open_statistics(pilot):
        await settle(pilot)
        await pilot.press("escape", "s")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=open_statistics)


def _write_stats_log(repo, index_dir) -> None:
    """A log of real sessions over the sample, with fixed timestamps instead of the clock's."""
    workspace = Workspace(repo, index_dir)
    main = next(b for b in workspace.indexed_branches() if b.name == "main")
    lines = []
    for time, query, scope in SESSIONS:
        results = workspace.search(SearchRequest(query, "main", scope=scope))
        record = stats.session_record("review", repo.name, "main", main.commit, 86400.0, results)
        lines.append(json.dumps({**record, "time": time}, sort_keys=True))
    workspace.close()
    stats.stats_path(index_dir).write_text("\n".join(lines) + "\n", encoding="utf-8")
