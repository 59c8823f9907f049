"""What every job of the review app stands on: the session, the selected result, the focus."""

from __future__ import annotations

from textual.app import App

from branchwise.models import Result
from branchwise_tui.session import ReviewSession
from branchwise_tui.widgets.results import ResultsTable


class ReviewAppBase(App[None]):
    """The review app's state that its jobs share; the app (app.py) sets it up."""

    session: ReviewSession

    @property
    def selected(self) -> Result | None:
        return self.query_one(ResultsTable).selected


def focus_now(widget) -> None:
    """Focus `widget` before the next key is handled. `Widget.focus` only schedules it, after
    the keys already queued: typed fast, they would still go to the widget focused before."""
    widget.screen.set_focus(widget)
