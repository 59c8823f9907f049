"""The reviewer's decisions in the review app: labels, notes, pins, marks and undo.

Each key's action checks what it acts on, hands the write to a thread worker, and the
worker posts a message whose handler updates the table, the status line and the running
token count of the bundle. The app (app.py) mixes this in; it owns the widgets.
"""

from __future__ import annotations

from textual import work

from branchwise.models import Label, Result
from branchwise.search.hybrid import SearchRequest
from branchwise_tui.jobs.base import ReviewAppBase
from branchwise_tui.messages import BundleMeasured, LabelSaved, LabelsRestored, NoteSaved, PinsSaved
from branchwise_tui.screens.note import NoteScreen
from branchwise_tui.widgets.keybar import KeyBar
from branchwise_tui.widgets.results import ResultsTable


class ReviewDecisions(ReviewAppBase):
    """The label, note, pin and undo keys of the review app, and the bundle's token count."""

    undo_stack: list
    bundle_tokens: int | None
    measures_started: int

    def action_label(self, value: str) -> None:
        """Label the marked rows, else the selected one; the same label again clears it."""
        targets = self.query_one(ResultsTable).targets
        if not targets:
            return
        label = Label(value)
        clear = all(r.label is label for r in targets)
        self.save_labels(targets, None if clear else label, dict(self.session.notes))

    @work(thread=True, group="label", name="label", exit_on_error=False)
    def save_labels(self, results: list[Result], label: Label | None, notes: dict[str, str]) -> None:
        self.post_message(LabelSaved(results, self.session.set_labels(results, label, notes)))

    def on_label_saved(self, message: LabelSaved) -> None:
        table = self.query_one(ResultsTable)
        if len(message.results) > 1:
            table.marked.clear()
        table.refresh_results()
        self._changed(message.change)
        self.measure_bundle()

    def _changed(self, change) -> None:
        """Every label or note change is said in the status line, with the key that undoes it."""
        self.undo_stack.append(change)
        self.query_one(KeyBar).set_status(f"{change.summary} · U undoes")

    def action_undo(self) -> None:
        """Take back the last label or note change (again: the one before), in the store too."""
        if not self.undo_stack:
            self.query_one(KeyBar).set_status("nothing to undo")
            return
        self.undo_change(self.undo_stack.pop())

    @work(thread=True, group="label", name="undo", exit_on_error=False)
    def undo_change(self, change) -> None:
        self.session.undo(change)
        self.post_message(LabelsRestored(change))

    def on_labels_restored(self, message: LabelsRestored) -> None:
        for result, record in message.change.before:
            if record is not None and record.note:
                self.session.notes[result.version_id] = record.note
            else:
                self.session.notes.pop(result.version_id, None)
        self.query_one(ResultsTable).refresh_results()
        left = f" · {len(self.undo_stack)} more to undo" if self.undo_stack else ""
        self.query_one(KeyBar).set_status(f"undone: {message.change.summary}{left}")
        self.measure_bundle()

    def action_toggle_pin(self) -> None:
        """Pin the marked rows' symbols, else the selected one's, on this branch: later searches
        here put them first when they find them; when all are pinned already, unpin them."""
        targets = [r for r in self.query_one(ResultsTable).targets if not r.history]
        if not targets:
            if self.selected is not None:
                self.notify("History is not on this branch: only its own code can be pinned.", severity="warning")
            return
        self.save_pins(targets, not all(r.pinned for r in targets))

    @work(thread=True, group="pin", name="pin", exit_on_error=False)
    def save_pins(self, results: list[Result], pinned: bool) -> None:
        self.session.set_pins(results, pinned)
        self.post_message(PinsSaved(results, pinned))

    def on_pins_saved(self, message: PinsSaved) -> None:
        table = self.query_one(ResultsTable)
        what = (message.results[0].identity.qualified_name if len(message.results) == 1
                else f"{len(message.results)} symbols")
        if len(message.results) > 1:
            table.marked.clear()
        table.refresh_results()
        if message.pinned:
            self.notify(f"Pinned {what} on {self.session.branch}: offered first when a search here finds it.")
        else:
            self.notify(f"Unpinned {what} on {self.session.branch}.")

    def measure_bundle(self) -> None:
        """Count (in a worker) the tokens of the bundle as reviewed so far; shown in the subtitle."""
        session = self.session
        if session.request is not None:
            self.measures_started += 1
            self.run_measure(self.measures_started, session.request, list(session.results),
                             frozenset(session.use_indexed_text))

    @work(thread=True, exclusive=True, group="measure", name="measure", exit_on_error=False)
    def run_measure(self, number: int, request: SearchRequest, results: list[Result],
                    use_indexed_text: frozenset[str]) -> None:
        self.post_message(BundleMeasured(self.session.bundle_tokens(request, results, use_indexed_text), number))

    def on_bundle_measured(self, message: BundleMeasured) -> None:
        if message.number != self.measures_started:
            return  # counted before a later change: the later count is on its way
        self.bundle_tokens = message.tokens
        self.sub_title = self.session.subtitle(message.tokens)
        self.query_one(ResultsTable).bundle_tokens = message.tokens

    def action_toggle_text(self) -> None:
        result = self.selected
        if result is None or result.current_text is None:
            self.notify("Only a changed result has a current text to choose.", severity="warning")
            return
        takes = self.session.toggle_current_text(result)
        self.query_one(ResultsTable).refresh_results()
        self.measure_bundle()
        self.notify(f"The bundle takes the {'current' if takes else 'indexed'} text of {result.identity.qualified_name}.")

    def action_toggle_mark(self) -> None:
        self.query_one(ResultsTable).toggle_mark()

    def action_mark_all(self) -> None:
        self.query_one(ResultsTable).mark_all()

    def action_edit_note(self) -> None:
        result = self.selected
        if result is None:
            return
        from branchwise.review.labels import effective_label

        label = result.label.value if result.label else f"{effective_label(result).value} by default"
        note = self.session.notes.get(result.version_id, "")

        def save(value: str | None) -> None:
            if value is not None:
                self.save_note(result, value)

        self.push_screen(NoteScreen(result.identity.qualified_name, label, note), save)

    @work(thread=True, group="label", name="note", exit_on_error=False)
    def save_note(self, result: Result, note: str) -> None:
        self.post_message(NoteSaved(result, note.strip(), self.session.set_note(result, note)))

    def on_note_saved(self, message: NoteSaved) -> None:
        if message.note:
            self.session.notes[message.result.version_id] = message.note
        else:
            self.session.notes.pop(message.result.version_id, None)
        self.query_one(ResultsTable).refresh_results()
        self._changed(message.change)
        self.measure_bundle()
