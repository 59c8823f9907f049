"""One timed run of the review app, for bench/review.py (run as a script, in a fresh process).

`python bench/review_child.py MODE REPO INDEX`, with PYTHONPATH naming the code under test
(this checkout, or the baseline's). It only uses what every version of the app has:
`create_app`, `app.session`, Textual's headless `run_test`. MODE:

- `first`: the query is given at start; seconds from process start to the first results.
- `enter`: no query at start; the reviewer types for THINK seconds, presses Enter (cold: the
  app's first search), then asks a second question (warm); seconds from each Enter to results.
- `quit-searching` / `quit-idle`: `q` pressed while the first search still runs (the model
  is loading), or after the results are in; prints the wall-clock time of the key press, and
  the parent times the process's end. The app runs and ends as `branchwise review` runs and
  ends it: with `branchwise_tui.runner` (daemon-thread loop, exit without teardown) when the
  version has it, else on `asyncio.run`'s loop with a normal interpreter exit.
"""

import time

STARTED = time.perf_counter()

import asyncio  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402

THINK = 10.0  # seconds a reviewer spends typing the first question
QUERY = "make order cancellation idempotent"
SECOND = "refund a shipped order"


async def _results(app, after_request=None, timeout=300.0) -> float:
    """Wait until a search newer than `after_request` was accepted; returns perf_counter then."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        request = app.session.request
        if request is not None and request is not after_request:
            return time.perf_counter()
        await asyncio.sleep(0.01)
    raise TimeoutError("no results")


try:
    from branchwise_tui import runner
except ImportError:  # the baseline has no runner
    runner = None


async def drive(mode: str, repo: str, index: str) -> dict:
    from branchwise.workspace import Workspace
    from branchwise_tui.app import create_app

    query = QUERY if mode in ("first", "quit-searching", "quit-idle") else ""
    app = create_app(Workspace(repo, index), branch="main", query=query, scope="all")
    async with app.run_test(size=(160, 45)) as pilot:
        if mode == "first":
            measured = {"start_to_results_s": await _results(app) - STARTED}
            await pilot.pause(0.5)  # let the screen take the results before the app closes
            return measured
        if mode == "enter":
            await asyncio.sleep(THINK)
            box = app.query_one("#query")
            box.value = QUERY
            box.focus()
            await pilot.pause()
            pressed = time.perf_counter()
            await pilot.press("enter")
            cold = await _results(app) - pressed
            first = app.session.request
            box.value = SECOND
            box.focus()
            await pilot.pause()
            pressed = time.perf_counter()
            await pilot.press("enter")
            warm = await _results(app, first) - pressed
            await pilot.pause(0.5)
            return {"enter_cold_s": cold, "enter_warm_s": warm}
        if mode == "quit-searching":
            await asyncio.sleep(0.5)
        else:
            await _results(app)
            await pilot.pause(0.5)
        if runner is not None and hasattr(runner, "leave_now"):
            app.quick_exit = True  # as `branchwise review` runs it (runner.run_app)
        print(json.dumps({"q_pressed_at": time.time()}), flush=True)  # the app may end the process
        await pilot.press("q")
        return {}


def main() -> None:
    mode, repo, index = sys.argv[1:4]
    if mode == "index":
        from branchwise.workspace import Workspace

        Workspace(repo, index).index([], all_branches=True)
        return
    if runner is None:
        result = asyncio.run(drive(mode, repo, index))
        if result:
            print(json.dumps(result), flush=True)
        return
    loop = runner.new_loop()
    result = loop.run_until_complete(drive(mode, repo, index))
    loop.close()
    if result:
        print(json.dumps(result), flush=True)
    runner.end_process(0)


if __name__ == "__main__":
    main()
