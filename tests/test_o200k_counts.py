"""Our o200k_base counter (branchwise/review/bundle/o200k.py) counts exactly what bpe-openai counts.

bpe-openai (Rust, OpenAI's encoding) was the product's counter and stays in the `test` extra as
the reference: every text here is counted by both and the counts must be equal. The texts are
every file version of the sample repositories and of the click and cobra bundles (all
branches), text written to be hard (scripts and marks, CJK, emoji sequences, long runs of white
space and punctuation, CRLF, special-token text, lone surrogates), and every Unicode code point
in contexts that make each pattern class matter. The product path itself must not import
bpe-openai.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from branchwise.review.bundle import o200k, o200k_classes, tokens
from branchwise.review.bundle.o200k import O200kCounter, merged_parts, merged_parts_long

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared_data import realrepo_bundle  # noqa: E402

from bench.token_counting import every_file_version  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import bpe_openai

    REFERENCE = bpe_openai.get_encoding("o200k_base")


def reference(text: str) -> int:
    """bpe-openai's count of the text as ordinary text (special-token text included as text)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return len(REFERENCE.encode_ordinary(text))


@pytest.fixture(scope="module")
def counter() -> O200kCounter:
    return O200kCounter()


def assert_same_counts(counter: O200kCounter, texts: list[str]) -> None:
    differing = [t[:80] for t in texts if counter(t) != reference(t)]
    assert not differing, f"{len(differing)} of {len(texts)} texts counted differently, e.g. {differing[:3]}"


def test_every_file_of_the_sample_repositories(counter, sample_repos):
    texts = [t for repo in sample_repos.values() for t in every_file_version(repo)]
    assert len(texts) > 100
    assert_same_counts(counter, texts)


@pytest.mark.parametrize("name", ["click", "cobra"])
def test_every_file_of_the_real_repositories(counter, name, tmp_path):
    source = realrepo_bundle(name)
    subprocess.run(["git", "clone", "-q", "--mirror", str(source), str(tmp_path / name)], check=True)
    texts = every_file_version(tmp_path / name)
    assert len(texts) > 200
    assert_same_counts(counter, texts)


HARD_TEXTS = [
    "I'm sure they'll've gone; DON'T, it'S, we'D, you'RE, x'ſ and 'ſ, O'Neil's",
    "中文分词测试，日本語のテキスト、한국어 텍스트。漢字かなカナ混じり文",
    "👍🏽 👨‍👩‍👧‍👦 🇫🇷🇩🇪 ❤️‍🔥 1️⃣ 🏳️‍🌈 emoji😀in😀words",
    "नमस्ते दुनिया — مرحبا بالعالم — שלום עולם — e\u0301te\u0301 — Ελληνικά Кириллица ᏣᎳᎩ",
    "\u1c89\u0897 new in Unicode 16; \u0558 new in 17; \U0002ebf0 CJK I; \uf8ff private",
    "line one\r\nline two\r\n\r\n    indented\r\n\ttab\r\n\r\r\n\n\r",
    " " * 10_000, "\t" * 5_000, "\n" * 3_000, " \t\n" * 2_000, " " * 100_000 + "x", "\u3000" * 5_000,
    "x" + " " * 257 + "y" + "\n" * 129 + "z", "=" * 50_000, "-" * 10_000 + "\n", "a" * 20_000, "Ab" * 10_000,
    "1234567890" * 1_000, "0x" + "deadbeef" * 2_000, "ab1" * 3_000 + "//" * 3_000,
    "var a=function(b){return b?b.c:null};" * 500,
    "<|endoftext|> and <|endofprompt|> are text here<|endoftext|>",
    "lone surrogates \udc80 and \ud800 between",
    "\x00\x01\x1c\x1d\x1e\x1f\x7f\x85\xa0 controls \u2028\u2029\u200b\ufeff",
    "  \n  \n\n  x  \n", "x   ", "   ", "'", "'s", "s'", "A'S", "\r", "\n\r\n", "/\n/\r\n/",
]


def test_hard_texts(counter):
    assert_same_counts(counter, HARD_TEXTS)


def test_json_as_mcp_answers_carry_it(counter, sample_repos):
    """Long texts are counted in parts cut before a '"' that follows an ASCII letter or digit
    (o200k.SEAM): JSON of files and of the hard texts, and texts full of such cuts."""
    files = [t for repo in sample_repos.values() for t in every_file_version(repo)]
    texts = [json.dumps({"results": [{"rank": i, "code": t}]}, separators=(",", ":"), ensure_ascii=False)
             for i, t in enumerate(files + HARD_TEXTS)]
    texts.append(json.dumps([{"path": f"p{i}.py", "code": "\n".join(files[i:i + 3])} for i in range(30)]))
    texts += ['abc"' * 1_000, '1"' * 1_000, 'x"\'s"' * 500, 'é"中"a"\u0301"' * 300, 'A" "\n"  "' * 500]
    assert sum(len(o200k.SEAM.split(t)) > 1 for t in texts) > len(files)
    assert all(o200k.seam_parts(t) == o200k.SEAM.split(t) for t in texts + ["", '"', '""a"', 'a""', '\n"'])
    for text in texts[:40] + texts[-6:]:  # a text's count with endings, its start counted once
        head = text[: len(text) * 2 // 3]
        ending = o200k.O200kCounter(counter.ranks).ending_counter(head)
        assert all(ending(e) == counter(head + e) for e in ("", "7}", "1234}", " x", "é9", '"q"', "\n\n}"))
    assert_same_counts(counter, texts)
    assert_same_counts(O200kCounter(counter.ranks), list(reversed(texts)))  # parts met in another order


#: planes with no letter, mark, number or space in Unicode 16 (4-13 unassigned, 15-16 private
#: use): every code point there has one class, so a sample of them is enough
UNIFORM_PLANES = (0x40000, 0xE0000), (0xF0000, 0x110000)


def test_every_code_point(counter):
    """Each code point (of the uniform planes, every 97th) in contexts where its class (letter
    by case, mark, number, space, other) decides the split: the pieces must be bpe-openai's (its
    pre-tokenizer, bound as `_backend.pretokenize`; where a later version drops it, the counts
    are compared)."""
    table = o200k_classes.class_table()
    for first, end in UNIFORM_PLANES:
        assert {o200k_classes.class_of(cp, table) for cp in range(first, end)} == {""}
    code_points = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000
                   and not any(first <= cp < end and cp % 97 for first, end in UNIFORM_PLANES)]
    split = getattr(getattr(REFERENCE, "_backend", None), "pretokenize", None)
    for block in range(0, len(code_points), 4096):
        text = "".join(f"a{ch}b {ch}{ch}\n{ch} 1{ch}A{ch}'s{ch}  {ch}\r\nx'{ch} {ch}'{ch}{ch}"
                       for ch in map(chr, code_points[block:block + 4096]))
        if split is not None:
            ours, theirs = counter.pieces(text), split(text)
            first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
            assert ours == theirs, f"from {code_points[block]:#x}: first difference {ours[first:first + 3]} != {theirs[first:first + 3]}"
        else:
            assert_same_counts(counter, [text])


def test_random_texts_over_a_mixed_alphabet(counter):
    alphabet = list("aAzZ09 '\t\r\n/.-_(){}<>|sStTlLdDmMvVrReE") + list("é中😀\u0301\u3000ſ\u1c89\xa0½")
    rng = random.Random(20261202)
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 400))) for _ in range(3_000)]
    assert_same_counts(counter, texts)


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=300))
def test_the_heap_merge_equals_the_plain_merge(counter, data):
    assert merged_parts_long(data, counter.ranks) == merged_parts(data, counter.ranks)


def test_the_rank_file_is_o200k_base_and_a_wrong_one_is_refused(tmp_path, monkeypatch):
    ranks = o200k.load_ranks()
    assert len(ranks) == 199_998 and sorted(ranks.values()) == list(range(199_998))
    wrong = tmp_path / "o200k_base.tiktoken.gz"
    import gzip

    wrong.write_bytes(gzip.compress(b"IQ== 0\nIg== 1\n"))
    with pytest.raises(ValueError, match="SHA-256"):
        o200k.load_ranks(wrong)
    # the manifest names what counted: without our rank file the next tokenizer counts
    monkeypatch.setattr(o200k, "RANKS_FILE", wrong)
    tokens.token_counter.cache_clear()
    try:
        fallback = tokens.token_counter()
        assert not fallback.name.startswith("o200k_base")
        assert fallback("some words to count") > 0
        monkeypatch.setattr(o200k, "RANKS_FILE", tmp_path / "missing.gz")
        tokens.token_counter.cache_clear()
        assert not tokens.token_counter().name.startswith("o200k_base")
    finally:
        tokens.token_counter.cache_clear()
    monkeypatch.undo()
    assert tokens.token_counter().name == "o200k_base (branchwise, tiktoken ranks)"


def test_the_product_never_imports_bpe_openai():
    """Every module of the three packages imported, a bundle's counter and an MCP answer's
    count used, in a process where importing bpe_openai fails loudly."""
    script = """
import importlib, pkgutil, sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'bpe_openai':
            raise ImportError('the product imported bpe_openai')
sys.meta_path.insert(0, Refuse())
for package in ('branchwise', 'branchwise_cli', 'branchwise_tui'):
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, package + '.'):
        if not info.name.endswith('__main__'):
            importlib.import_module(info.name)
from branchwise.review.bundle.tokens import token_counter
from branchwise.mcp_server.service import with_token_count
counter = token_counter()
assert counter.name.startswith('o200k_base'), counter.name
assert counter(SAMPLE) == EXPECTED, counter(SAMPLE)
assert with_token_count({'results': []})['tokens'] > 0
assert 'bpe_openai' not in sys.modules
print('ok')
"""
    sample = "def f(x):\n    return x  # ½ 中文 👍🏽"
    script = f"SAMPLE = {sample!r}\nEXPECTED = {reference(sample)}\n" + script
    env = {"PYTHONPATH": f"{ROOT / 'core'}:{ROOT / 'tui'}:{ROOT / 'cli'}", "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
    sources = [p for d in ("core", "tui", "cli") for p in (ROOT / d).rglob("*.py")]
    assert sources and not [p for p in sources if "bpe_openai" in p.read_text(encoding="utf-8")]
