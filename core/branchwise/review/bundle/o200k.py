"""OpenAI's o200k_base token counts in plain Python, from the encoding's own ranks.

Bundles and MCP answers state their size in o200k_base tokens. The encoding is two published
things: a list of byte strings by merge rank (`data/o200k_base.tiktoken.gz`, tiktoken's file,
checked against its SHA-256 on load) and a pre-tokenizer pattern. Counting is the same as
tiktoken's: split the text with the pattern, then merge each piece's bytes pairwise, always the
lowest-ranked adjacent pair first (the leftmost among equals), until no pair is in the ranks;
the piece costs as many tokens as parts remain. Special tokens (`<|endoftext|>`) are counted as
the ordinary text they are in a pasted bundle.

Speed: the pattern runs on the standard library's `re` over a "shape" of the text in which
every non-ASCII character stands in for its class (o200k_classes, Unicode 16.0), so the pattern
needs only small ASCII classes; ASCII text is its own shape. Pieces repeat (identifiers,
indentation), so each piece's count is kept; so is each text's, and a long text is counted as
parts cut where no piece can cross (`SEAM`): an MCP answer counts its entries, then itself
around them, and a repeated question counts the same texts again.
"""

from __future__ import annotations

import gzip
import hashlib
import heapq
import re
from binascii import a2b_base64
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path

from branchwise.review.bundle import o200k_classes

RANKS_FILE = Path(__file__).with_name("data") / "o200k_base.tiktoken.gz"
#: of the uncompressed file: the hash tiktoken checks the file it downloads against
RANKS_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

# one character per class: ASCII characters are their own class; every other character is
# replaced by the one below for its class before the pattern runs ("" = none: kept as it is)
_STAND_IN = {"upper": "A", "lower": "a", "other_letter": "\u00aa", "mark": "\u0300", "number": "\u00b2",
             "space": "\u00a0", "": ""}
_LONG_S = 0x17F  # 'ſ': a lowercase letter that (?i:'s) matches, as "s" does

_UPPER, _LOWER, _OTHER, _MARK = "A-Z", "a-z", "\u00aa", "\u0300"
_NUMBER, _SPACE = "0-9\u00b2", "\t\n\x0b\x0c\r \u00a0"
_LETTER_OR_NUMBER = _UPPER + _LOWER + _OTHER + _NUMBER
_CASED_UP = _UPPER + _OTHER + _MARK  # [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
_CASED_LOW = _LOWER + _OTHER + _MARK  # [\p{Ll}\p{Lm}\p{Lo}\p{M}]
_CONTRACTION = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
#: o200k_base's pattern (tiktoken's `pat_str`), its classes spelled for the text's shape
PATTERN = re.compile("|".join([
    f"[^\r\n{_LETTER_OR_NUMBER}]?[{_CASED_UP}]*[{_CASED_LOW}]+{_CONTRACTION}?",
    f"[^\r\n{_LETTER_OR_NUMBER}]?[{_CASED_UP}]+[{_CASED_LOW}]*{_CONTRACTION}?",
    f"[{_NUMBER}]{{1,3}}",
    f" ?[^{_SPACE}{_LETTER_OR_NUMBER}]+[\r\n/]*",
    f"[{_SPACE}]*[\r\n]+",
    f"[{_SPACE}]+(?![^{_SPACE}])",
    f"[{_SPACE}]+",
]))

_LONG_PIECE = 128  # bytes: longer pieces merge with a heap (a run of 100,000 spaces is one piece)
_CACHE_LIMIT = 200_000  # pieces; the cache starts again when it is full
#: where a text can be cut without changing its pieces: no piece runs from an ASCII letter or
#: digit into a following '"', and the pattern looks neither behind nor past its piece's end
#: but for white space. JSON answers are cut at every string's end, so the entries an MCP
#: answer counted on their own are found again inside the answer.
SEAM = re.compile(r'(?<=[A-Za-z0-9])(?=")')
_SEAM_BEFORE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def seam_parts(text: str) -> list[str]:
    """`SEAM.split(text)`, about twice as fast: a split at every '"' and a look at the character
    before it, instead of a look-behind at every position (a warm MCP answer counts itself
    several times)."""
    pieces = text.split('"')
    out: list[str] = []
    current = pieces[0]
    for piece in pieces[1:]:
        if current[-1:] in _SEAM_BEFORE:
            out.append(current)
            current = '"' + piece
        else:
            current += '"' + piece  # in place: CPython grows the one reference it holds
    out.append(current)
    return out


_SEAMED_CHARS = 512  # shorter texts are counted whole
_KEPT_CHARS = 8_000_000  # the counts of texts and seamed parts kept, by their total length
_KEPT_LONGEST = 65_536  # longer texts are not kept (a bundle is counted once)


def load_ranks(path: Path | None = None) -> dict[bytes, int]:
    """The merge ranks of a tiktoken file (`base64-token rank` lines), the shipped one unless
    `path`; raises when the file is not o200k_base's."""
    path = path or RANKS_FILE
    raw = gzip.decompress(path.read_bytes())
    if hashlib.sha256(raw).hexdigest() != RANKS_SHA256:
        raise ValueError(f"{path} is not o200k_base's rank file (SHA-256 differs)")
    fields = raw.split()
    return dict(zip(map(a2b_base64, fields[0::2]), map(int, fields[1::2])))


class _StandIns(dict):
    """str.translate's table from a character to its class's stand-in, filled as characters
    are met."""

    def __init__(self) -> None:
        super().__init__()
        self.table = o200k_classes.class_table()

    def __missing__(self, code_point: int) -> int:
        if code_point < 0x80:
            shown = code_point
        elif code_point == _LONG_S:
            shown = ord("s")
        else:
            stand_in = _STAND_IN[o200k_classes.class_of(code_point, self.table)]
            shown = ord(stand_in) if stand_in else code_point
        self[code_point] = shown
        return shown


class O200kCounter:
    """Counts o200k_base tokens of a text: `counter(text)`."""

    def __init__(self, ranks: dict[bytes, int] | None = None) -> None:
        self.ranks = load_ranks() if ranks is None else ranks
        self._stand_ins = _StandIns()
        self._cache = _PieceCounts(self._piece_tokens)
        self._texts: dict[str, int] = {}
        self._kept_chars = 0

    def __call__(self, text: str) -> int:
        if len(text) <= _SEAMED_CHARS:
            return self._part(text)
        known = self._texts.get(text)
        if known is not None:
            return known
        tokens = sum(map(self._part, seam_parts(text)))
        self._keep(text, tokens)
        return tokens

    def ending_counter(self, head: str) -> Callable[[str], int]:
        """`ending -> self(head + ending)`, with `head`'s seam parts counted once (a JSON answer
        counting its own size tries `"tokens":N}` for several N). A seam depends only on the
        character before a '"', so the parts of `head + ending` are `head`'s but the last,
        then the parts of that last one followed by `ending`."""
        parts = seam_parts(head)
        before = sum(map(self._part, parts[:-1]))

        def count(ending: str) -> int:
            if len(head) + len(ending) <= _SEAMED_CHARS:
                return self(head + ending)
            return before + sum(map(self._part, seam_parts(parts[-1] + ending)))

        return count

    def _part(self, text: str) -> int:
        known = self._texts.get(text)
        if known is not None:
            return known
        if len(self._cache) > _CACHE_LIMIT:
            self._cache.clear()
        tokens = sum(map(self._cache.__getitem__, self.pieces(text))) if text else 0
        self._keep(text, tokens)
        return tokens

    def _keep(self, text: str, tokens: int) -> None:
        if len(text) > _KEPT_LONGEST:
            return
        if self._kept_chars > _KEPT_CHARS:
            self._texts.clear()
            self._kept_chars = 0
        self._texts[text] = tokens
        self._kept_chars += len(text) + 50  # and the entry itself

    def pieces(self, text: str) -> list[str]:
        """The text split by the o200k_base pattern."""
        if text.isascii():
            return PATTERN.findall(text)
        text = _well_formed(text)
        ends = list(accumulate(map(len, PATTERN.findall(text.translate(self._stand_ins)))))
        return [text[start:end] for start, end in zip([0, *ends], ends)]

    def _piece_tokens(self, piece: str) -> int:
        data = piece.encode("utf-8")
        if data in self.ranks:
            return 1
        if len(data) > _LONG_PIECE:
            return merged_parts_long(data, self.ranks)
        return merged_parts(data, self.ranks)


class _PieceCounts(dict):
    def __init__(self, count_piece) -> None:
        super().__init__()
        self.count_piece = count_piece

    def __missing__(self, piece: str) -> int:
        tokens = self[piece] = self.count_piece(piece)
        return tokens


def _well_formed(text: str) -> str:
    """Lone surrogates (from undecodable file names or bytes) as U+FFFD, as tiktoken does."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


_NONE = 1 << 62  # the rank of a pair that is not a token


def merged_parts(data: bytes, ranks: dict[bytes, int]) -> int:
    """How many tokens byte-pair merging leaves of `data` (quadratic: for short pieces)."""
    parts = [data[i:i + 1] for i in range(len(data))]
    pairs = [ranks.get(a + b, _NONE) for a, b in zip(parts, parts[1:])]
    while pairs:
        best = min(pairs)
        if best == _NONE:
            break
        i = pairs.index(best)  # the leftmost of the lowest rank
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
        del pairs[i]
        if i < len(pairs):
            pairs[i] = ranks.get(parts[i] + parts[i + 1], _NONE)
        if i > 0:
            pairs[i - 1] = ranks.get(parts[i - 1] + parts[i], _NONE)
    return len(parts)


def merged_parts_long(data: bytes, ranks: dict[bytes, int]) -> int:
    """The same as `merged_parts`, in n log n: a heap of (rank, start) over a linked list of
    parts, each part named by its first byte's offset; entries whose pair has since changed
    are skipped."""
    n = len(data)
    end = list(range(1, n + 1))  # part starting at i ends at end[i]; its right neighbour starts there
    before = list(range(-1, n - 1))
    heap = [(rank, i) for i in range(n - 1) if (rank := ranks.get(data[i:i + 2])) is not None]
    heapq.heapify(heap)
    alive = [True] * n
    parts = n
    while heap:
        rank, i = heapq.heappop(heap)
        right = end[i]
        if not alive[i] or right >= n or ranks.get(data[i:end[right]]) != rank:
            continue
        alive[right] = False
        end[i] = end[right]
        if end[i] < n:
            before[end[i]] = i
        parts -= 1
        left = before[i]
        if left >= 0 and (pair := ranks.get(data[left:end[i]])) is not None:
            heapq.heappush(heap, (pair, left))
        if end[i] < n and (pair := ranks.get(data[i:end[end[i]]])) is not None:
            heapq.heappush(heap, (pair, i))
    return parts
