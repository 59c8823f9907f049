"""Command-palette entries for every action of the review app.

The palette lists the same actions as the keys (`keys.KEYS`), so a reviewer who does not know
a key can still find what the app can do by typing a word of it.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class ReviewCommands(Provider):
    def _commands(self):
        return [(f"{key.description} ({key.shown})", key.title, key.action) for key in self.app.KEYS if key.bound]

    async def discover(self) -> Hits:
        for title, help_text, action in self._commands():
            yield DiscoveryHit(title, partial(self.app.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self.app.run_action, action), help=help_text)
