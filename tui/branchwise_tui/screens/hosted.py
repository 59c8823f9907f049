"""The review session of the app a screen is shown in, typed.

The diff review and the tour player run their work through the session of the review app
that hosts them; Textual types `Screen.app` as a plain `App`, so they ask for it here.
"""

from __future__ import annotations

from textual.app import App

from branchwise_tui.session import ReviewSession


def app_session(app: App) -> ReviewSession:
    session = getattr(app, "session", None)
    if not isinstance(session, ReviewSession):
        raise TypeError(f"{type(app).__name__} holds no review session; this screen runs inside the review app")
    return session
