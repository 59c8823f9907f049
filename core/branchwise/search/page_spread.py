"""The first page of results shows as many files as the candidates justify.

A reader, like the peer benchmark's scorer, learns little from a file's fourth chunk on the
first page while another file that answers the question waits just below it. But the sibling
function a question asks for often sits beside the first hit in one file, and decaying every
further chunk of a file (the peer's saturation) pushes it out: click and cobra lost 0.02-0.04
MRR@10 to that. So here nothing moves up by decay; a result on the page whose file a result
above it already shows (a repeat) only gives its slot to a result from a file the page does not
show yet (a newcomer), and only when

- the newcomer scores at least `threshold` times the repeat (the peer's saturation factor: a
  file's further chunk counts for half against another file), and
- the newcomer weighs no less than the repeat: a test never takes source's slot, nor a
  re-export, a prototype or an older copy of the code the slot of a definition.

Repeats give way in this order: those of a lower role first (a test file's second chunk before
a source file's), then those with the most chunks of their file above them (a file's sixth chunk
before another's second), then the weakest. The kept results keep their order and the newcomers
follow them, best first; everything below the page, the displaced repeats among it, stays in
score order: scores fall along the page and along what follows it, and a displaced repeat just
after the page may score above the newcomers that took its slot.
"""

from __future__ import annotations

from collections.abc import Callable

from branchwise.models import Result


def spread(results: list[Result], page: int, threshold: float, weight: Callable[[Result], float],
           shown: Callable[[Result], bool] = lambda _result: True) -> list[Result]:
    """`results` (best first) with their first `page` shown results spread over files.
    `weight`: the role prior and step-back in each result's score; `shown`: whether a result
    takes a page slot (history and excluded code are placed aside and keep their positions)."""
    slots = [index for index, result in enumerate(results) if shown(result)]
    ordered = _spread([results[index] for index in slots], page, threshold, weight)
    spread_out = list(results)
    for index, result in zip(slots, ordered):
        spread_out[index] = result
    return spread_out


def _spread(results: list[Result], page: int, threshold: float,
            weight: Callable[[Result], float]) -> list[Result]:
    head, below = results[:page], results[page:]
    shown_before: dict[str, int] = {}
    repeats: list[tuple[float, int, int]] = []  # (its weight, times its file is shown above, position)
    for position, result in enumerate(head):
        times = shown_before.get(result.identity.path, 0)
        if times:
            repeats.append((weight(result), times, position))
        shown_before[result.identity.path] = times + 1
    files = set(shown_before)
    displaced: list[int] = []
    newcomers: list[Result] = []
    for floor, _times, position in sorted(repeats, key=lambda repeat: (repeat[0], -repeat[1], -repeat[2])):
        newcomer = next((candidate for candidate in below if candidate.identity.path not in files
                         and candidate.score >= threshold * head[position].score
                         and weight(candidate) >= floor), None)
        if newcomer is not None:
            newcomers.append(newcomer)
            files.add(newcomer.identity.path)
            displaced.append(position)
    if not newcomers:
        return results
    taken = {id(newcomer) for newcomer in newcomers}
    kept = [result for position, result in enumerate(head) if position not in displaced]
    rest = [head[position] for position in displaced] + [result for result in below if id(result) not in taken]
    return kept + sorted(newcomers, key=_score, reverse=True) + sorted(rest, key=_score, reverse=True)


def _score(result: Result) -> float:
    return result.score
