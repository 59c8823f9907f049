"""Searching in the review app: the model loaded in the background, a search per Enter,
branch or scope change, each in a thread worker whose message fills the results table.
"""

from __future__ import annotations

from textual import on, work
from textual.widgets import Input, Switch

from branchwise.search.hybrid import SearchRequest
from branchwise_tui.jobs.base import focus_now
from branchwise_tui.jobs.decisions import ReviewDecisions
from branchwise_tui.messages import ModelLoaded, SearchCompleted
from branchwise_tui.widgets.keybar import KeyBar
from branchwise_tui.widgets.preview import Preview
from branchwise_tui.widgets.results import ResultsTable


class ReviewSearch(ReviewDecisions):
    """The search half of the review app; a finished search recounts the bundle's tokens."""

    search_from_enter: bool
    typed_since_search: bool


    @work(thread=True, group="model", name="model", exit_on_error=False)
    def load_model(self) -> None:
        self.session.warm()
        self.post_message(ModelLoaded())

    def on_model_loaded(self, message: ModelLoaded) -> None:
        # once results are shown their count stays in the bar (the search needed the model anyway)
        if not self.query_one(ResultsTable).loading and not self.session.results:
            self.query_one(KeyBar).set_status("model ready")

    def current_request(self) -> SearchRequest | None:
        query = self.query_one("#query", Input).value.strip()
        if not query:
            return None
        scope = "all" if self.query_one("#scope", Switch).value else "branch"
        return SearchRequest(query=query, branch=self.session.branch, scope=scope)

    def start_search(self, from_enter: bool = False) -> None:
        request = self.current_request()
        if request is None:
            if self.query_one("#query", Input).value:
                self.notify("The query is blank: type a question.", severity="warning")
            return
        self.search_from_enter = from_enter
        self.typed_since_search = False
        self.query_one(ResultsTable).loading = True
        waiting = "" if self.session.model_ready else " (loading the model first)"
        self.query_one(KeyBar).set_status(f"searching{waiting}", busy=True)
        self.run_search(request)

    @work(thread=True, exclusive=True, group="search", name="search", exit_on_error=False)
    def run_search(self, request: SearchRequest) -> None:
        results, target = self.session.search(request)
        self.post_message(SearchCompleted(request, results, target))

    def on_search_completed(self, message: SearchCompleted) -> None:
        self.session.accept(message.request, message.results, message.target)
        self.sub_title = self.session.subtitle(self.bundle_tokens)
        table = self.query_one(ResultsTable)
        table.loading = False
        table.indexed_text = self.session.use_indexed_text
        table.show(self.session.results, self.session.commit_dates())
        if self._results_may_take_focus():
            focus_now(table)  # a loading table cannot take the focus, so it takes it now
        self.query_one(KeyBar).set_status(self.session.results_status(len(message.results)))
        if not message.results:
            self.query_one(Preview).clear("No results on this branch: try other words or all history (a).")
        self.measure_bundle()

    def _results_may_take_focus(self) -> bool:
        """Never from a query box the reviewer typed in (or went to) after the search started:
        the keys they type next would become commands on the results."""
        focused = self.query_one(ResultsTable).screen.focused
        if isinstance(focused, Input):
            return focused.id == "query" and self.search_from_enter and not self.typed_since_search
        return True

    @on(Input.Submitted, "#query")
    def query_submitted(self) -> None:
        self.start_search(from_enter=True)

    @on(Input.Changed, "#query")
    def query_changed(self) -> None:
        self.typed_since_search = True
