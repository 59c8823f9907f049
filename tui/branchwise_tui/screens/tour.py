"""Tour player: walk a tour step by step, each checked against the branch as it is now.

`branchwise review --tour TOUR` opens this screen over the review app. Each step shows its
note, its verdict (a decayed step says so, and where its code went), the citation header and
the current code with the file's line numbers; `n`/`p` walk the steps and `e` exports the tour
as a bundle for a model ("explain this codebase along this path").
"""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from branchwise.review.tours import Tour, TourCheck
from branchwise_tui.screens.hosted import app_session
from branchwise_tui.widgets.badges import verdict_badge
from branchwise_tui.widgets.lists import KeyScroll

DEFAULT_TOUR_BUNDLE = Path("branchwise-tour.md")


class TourChecked(Message):
    def __init__(self, check: TourCheck) -> None:
        super().__init__()
        self.check = check


class TourBundleWritten(Message):
    def __init__(self, summary: str) -> None:
        super().__init__()
        self.summary = summary


class TourScreen(Screen[None]):
    BINDINGS = [
        # before the code pane's own keys: ← → always walk the steps
        Binding("n,right", "step(1)", "Next", priority=True),
        Binding("p,left", "step(-1)", "Previous", priority=True),
        Binding("e", "export", "Export"),
        Binding("q", "leave", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]
    #: (key, what it does): the help screen of this mode
    KEYS = [("n / →", "next step"), ("p / ←", "previous step"),
            ("↑↓ j k", "scroll the code"), ("PgUp/Dn", "scroll a page"), ("Home End", "top, bottom of the code"),
            ("e", "export the tour as a bundle for a model"), ("q", "quit")]
    AUTO_FOCUS = "#tour-code-scroll"  # the arrows, PageUp/PageDown, Home/End and j k g G scroll it

    def __init__(self, tour: Tour, branch: str) -> None:
        super().__init__()
        self.tour = tour
        self.branch = branch
        self.check: TourCheck | None = None
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"{self.tour.title}: checking {len(self.tour.steps)} steps against {self.branch} …",
                     id="tour-title")
        yield Static(id="tour-step")
        yield Static(id="tour-note")
        yield Static(id="tour-header")
        with KeyScroll(id="tour-code-scroll"):
            yield Static(id="tour-code")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"tour on {self.branch}"
        self.run_check()

    @work(thread=True, exclusive=True, name="tour", exit_on_error=False)
    def run_check(self) -> None:
        session = app_session(self.app)
        self.post_message(TourChecked(session.call(session.workspace.check_tour, self.tour, self.branch)))

    def on_tour_checked(self, message: TourChecked) -> None:
        self.check = message.check
        decayed = len(self.check.decayed)
        self.query_one("#tour-title", Static).update(Text.assemble(
            (self.tour.title, "bold"), f"  {len(self.check.steps)} steps against {self.check.target}; ",
            (f"{decayed} decayed", "bold red" if decayed else "green")))
        self.show_step()

    def show_step(self) -> None:
        from branchwise.review.tours.render import step_header, step_text

        check = self.check
        if check is None or not check.steps:
            self.query_one("#tour-step", Static).update("This tour has no steps.")
            return
        item = check.steps[self.index]
        self.query_one("#tour-step", Static).update(Text.assemble(
            (f"Step {item.number}/{len(check.steps)}  ", "bold"), verdict_badge(item.verdict),
            f"  {item.status}  ", (item.qualified_name or item.step.anchor, "bold")))
        self.query_one("#tour-note", Static).update(item.step.note or "(no note)")
        self.query_one("#tour-header", Static).update(Text("\n".join(step_header(check, item))))
        language = item.result.identity.language if item.result is not None else "text"
        start = item.start_line or item.step.start_line or 1
        self.query_one("#tour-code", Static).update(
            Syntax(step_text(item).rstrip("\n"), language, theme="monokai", line_numbers=True,
                   start_line=start, word_wrap=False))
        self.query_one("#tour-code-scroll", KeyScroll).scroll_home(animate=False)

    def action_step(self, delta: int) -> None:
        if self.check is None or not self.check.steps:
            return
        self.index = max(0, min(len(self.check.steps) - 1, self.index + delta))
        self.show_step()

    def action_export(self) -> None:
        if self.check is None:
            return
        from branchwise_tui.screens.export import ExportScreen

        summary = f"the {len(self.check.steps)} steps of “{self.tour.title}” with their current code"
        self.app.push_screen(ExportScreen(DEFAULT_TOUR_BUNDLE, summary), self._export_to)

    def _export_to(self, path: Path | None) -> None:
        if path is not None:
            self.write_bundle(path)

    @work(thread=True, exclusive=True, name="export", exit_on_error=False)
    def write_bundle(self, path: Path) -> None:
        from branchwise.review.tours.render import tour_bundle

        if self.check is None:
            return
        bundle = tour_bundle(self.check, app_session(self.app).workspace.repo)
        manifest = bundle.write(path)
        self.post_message(TourBundleWritten(f"wrote {path} ({len(bundle.sections)} steps) and {manifest}"))

    def on_tour_bundle_written(self, message: TourBundleWritten) -> None:
        self.notify(message.summary, title="Tour bundle written", timeout=8)

    def action_help(self) -> None:
        from branchwise_tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.KEYS))

    def action_leave(self) -> None:
        self.app.exit()
