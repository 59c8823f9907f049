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
