"""Command-palette entries for every action of the review app.

The palette lists the same actions as the keys (the app's `ACTIONS` table), so a reviewer who
does not know a key can still find what the app can do by typing a word of it.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class ReviewCommands(Provider):
    def _commands(self):
        return [(f"{title} ({key})", description, action)
                for _, key, action, title, description in self.app.ACTIONS]

    async def discover(self) -> Hits:
        for title, description, action in self._commands():
            yield DiscoveryHit(title, partial(self.app.run_action, action), help=description)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, description, action in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self.app.run_action, action), help=description)
