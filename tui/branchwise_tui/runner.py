"""Run the review app so that quitting never waits for a background worker or for teardown.

Thread workers run in the event loop's default executor. `asyncio.run` (what `App.run` uses)
joins that executor's threads on the way out, and so does the interpreter at exit: quitting
while the model loads or a search runs would wait for it to finish, seconds later. Here the
loop's executor starts daemon threads that nobody joins. Then, once the app has closed (the
session's statistics are written by then), the process ends without the interpreter's
teardown, which takes seconds once torch is loaded. Label writes are single SQLite
transactions, so one cut short by quitting is simply not applied.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor


class DaemonExecutor(ThreadPoolExecutor):
    """One daemon thread per task; never joined, at shutdown or at interpreter exit.

    A ThreadPoolExecutor only because asyncio accepts no other kind as the default executor;
    none of its pooled (joined) threads is ever started.
    """

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as error:  # handed to the awaiting worker, which reports it
                future.set_exception(error)

        threading.Thread(target=run, name="branchwise-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass


def new_loop() -> asyncio.AbstractEventLoop:
    loop = asyncio.new_event_loop()
    loop.set_default_executor(DaemonExecutor())
    return loop


def run_app(app) -> None:
    """`app.run()` on a loop whose workers are daemon threads, then end the process at once."""
    app.quick_exit = True
    loop = new_loop()
    try:
        app.run(loop=loop)
    finally:
        loop.close()
    end_process(app.return_code or 0)


def leave_now(app, message: str | None = None) -> None:
    """Quit from inside the app without Textual's teardown: restore the terminal, then exit.

    Closing every widget takes seconds while a worker thread holds the interpreter (loading
    torch does); the terminal only needs its modes restored and the output flushed. Uses the
    app's driver directly (Textual offers no public handle for it).
    """
    driver = getattr(app, "_driver", None)
    if driver is not None and not app.is_headless:
        driver.stop_application_mode()
        driver.close()  # stops its writer thread once everything queued is written
    if message:
        print(message, file=sys.stderr)
    end_process(0)


def end_process(code: int) -> None:
    """Exit now: flush the output, skip the interpreter's teardown (see the module docstring)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
