"""Small helpers for driving the review app with Textual's Pilot."""

from __future__ import annotations


async def settle(pilot) -> None:
    """Wait until every worker finished and the messages they posted were handled."""
    # workers.wait_for_complete() would raise the error of a failed worker, which the app
    # turns into a notification, so poll instead
    for _ in range(600):
        await pilot.pause(0.02)
        if all(worker.is_finished for worker in pilot.app.workers):
            break
    await pilot.pause()
    await pilot.pause()


def select_row(app, predicate) -> object:
    """Move the results cursor to the first result matching `predicate`; returns it."""
    from branchwise_tui.widgets.results import ResultsTable

    table = app.query_one(ResultsTable)
    row = next(i for i, r in enumerate(app.session.results) if predicate(r))
    table.move_cursor(row=row)
    return app.session.results[row]


def run_async(test):
    """Run an async test function with asyncio.run (no pytest async plugin is needed)."""
    import asyncio
    import functools

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return wrapper


SESSIONS = [  # (time, query, scope): the trend the statistics screen draws
    ("2026-10-02T10:00:00+00:00", "calculate the refund of a shipped order", "branch"),
    ("2026-10-05T14:30:00+00:00", "make order cancellation idempotent", "all"),
    ("2026-10-09T09:15:00+00:00", "send an email when an order is cancelled", "all"),
    ("2026-10-12T16:45:00+00:00", "reject a reused idempotency key", "all"),
]


def write_stats_log(repo, index_dir) -> None:
    """A log of real sessions over the sample, with fixed timestamps instead of the clock's."""
    import json

    from branchwise.review import stats
    from branchwise.search.hybrid import SearchRequest
    from branchwise.workspace import Workspace

    workspace = Workspace(repo, index_dir)
    main = next(b for b in workspace.indexed_branches() if b.name == "main")
    lines = []
    for time, query, scope in SESSIONS:
        results = workspace.search(SearchRequest(query, "main", scope=scope))
        record = stats.session_record("review", repo.name, "main", main.commit, 86400.0, results)
        lines.append(json.dumps({**record, "time": time}, sort_keys=True))
    workspace.close()
    stats.stats_path(index_dir).write_text("\n".join(lines) + "\n", encoding="utf-8")
