"""Which text should the embedding model see for a symbol? Measured on the real repositories.

`python -m bench.embedding_recipes [--branch-of click=main]... [--cache DIR] [--out FILE]`

The dense channel is only as good as the text it embeds. This compares compositions of a
symbol's parts (path, qualified name, identifier words, signature, docstring, body; a
container's outline instead of its body; the file path's vector mixed in) on the questions
of bench/realrepos/, dense channel alone, whole repository, on one branch per repository
(the composition does not depend on the branch; one branch keeps the embedding bill low).
Each question is scored twice: plain cosine ranking, and with the source-first prior of
branchwise.ranking applied to the dense channel alone. It also counts, with the model's own
tokenizer, how much of each text survives the model's 256-token window, part by part.

Chunks are cut by the real chunker; the parts are captured from its composition call, so
the recipes differ only in how they assemble the same parts.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench.realrepos import CachedEmbedder, clone, load_questions
from bench.report import print_json

from branchwise.chunking import chunker as chunker_module
from branchwise.chunking import chunk_file, embedding_text
from branchwise.chunking.rules import ChunkingRules
from branchwise.ranking import RankingSettings, prior_factor, role_of, wanted_roles


def _capture_parts(repo_path: Path, branch: str) -> dict[tuple[str, str], dict]:
    """Every live chunk of a branch -> its parts, as the chunker hands them to `compose`."""
    calls = []

    def recording(symbol_type, qualified_name, parent_name, signature, docstring, body, path=""):
        calls.append(dict(symbol_type=symbol_type, qualified_name=qualified_name, parent=parent_name,
                          signature=signature, docstring=docstring, body=body))
        return json.dumps(len(calls) - 1)

    files = subprocess.run(["git", "-C", str(repo_path), "ls-tree", "-r", "--name-only", branch],
                           check=True, capture_output=True, text=True).stdout.splitlines()
    rules = ChunkingRules()
    out = {}
    original = chunker_module.embedding_text.compose
    chunker_module.embedding_text.compose = recording
    try:
        for path in files:
            data = subprocess.run(["git", "-C", str(repo_path), "show", f"{branch}:{path}"],
                                  check=True, capture_output=True).stdout
            for chunk in chunk_file(repo_path.name, path, data, rules).chunks:
                parts = dict(calls[json.loads(chunk.embedding_text)])
                parts.update(path=path, language=chunk.identity.language, text=chunk.text,
                             path_class=chunk.path_class.value,
                             outline=parts["body"] if chunk.identity.symbol_type in chunker_module.CONTAINER_KINDS else None)
                out[(path, chunk.identity.qualified_name)] = parts
    finally:
        chunker_module.embedding_text.compose = original
    return out


def _body_of(parts: dict, outline: bool) -> str:
    if parts["outline"] is not None and not outline:
        return parts["text"]  # the container's whole source instead of its outline
    return parts["body"]


def recipe_current(parts: dict) -> str:
    return embedding_text.compose(parts["symbol_type"], parts["qualified_name"], parts["parent"],
                                  parts["signature"], parts["docstring"], parts["body"])


def _plain(parts: dict, outline: bool, words: bool, max_chars: int = embedding_text.MAX_CHARS) -> str:
    head = [parts["path"], parts["qualified_name"]]
    if words:
        head.append(embedding_text.split_words(parts["qualified_name"]))
    if parts["signature"]:
        head.append(parts["signature"])
    text = "\n".join(head)
    if parts["docstring"]:
        text = embedding_text._append(text, parts["docstring"], max_chars * 2 // 3)
    return embedding_text._append(text, embedding_text._compact(_body_of(parts, outline)), max_chars)


def _doc_first(parts: dict) -> str:
    """Words a person would use first (name words, then the doc), code after."""
    text = "\n".join(p for p in (embedding_text.split_words(parts["qualified_name"]), parts["docstring"]) if p)
    text = embedding_text._append(text, parts["signature"], embedding_text.MAX_CHARS) if text else parts["signature"]
    return embedding_text._append(text, embedding_text._compact(parts["body"]), embedding_text.MAX_CHARS)


_COMPOUND = re.compile(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b")


def _split_compounds(text: str) -> str:
    """`levenshteinDistance` -> `levenshtein distance`, `get_app_dir` -> `get app dir` in code."""
    return _COMPOUND.sub(lambda m: embedding_text.split_words(m.group(0)), text)


def _split_body(parts: dict) -> str:
    return embedding_text.compose(parts["symbol_type"], parts["qualified_name"], parts["parent"],
                                  parts["signature"], parts["docstring"], _split_compounds(parts["body"]))


def _own_words(parts: dict) -> str:
    """The split-words line holds the symbol's own name, not its container's (said by `in ...`)."""
    text = embedding_text.compose(parts["symbol_type"], parts["qualified_name"], parts["parent"],
                                  parts["signature"], parts["docstring"], parts["body"])
    lines = text.split("\n")
    if parts["parent"] and len(lines) > 1:
        lines[1] = embedding_text.split_words(parts["qualified_name"].rsplit(".", 1)[-1])
    return "\n".join(lines)


RECIPES = {
    "outline (current)": recipe_current,
    "outline, code identifiers split into words": _split_body,
    "outline, own name words": _own_words,
    "path+name+sig+doc+body": lambda p: _plain(p, outline=False, words=False),
    "path+name+sig+doc+body, outline for containers": lambda p: _plain(p, outline=True, words=False),
    "path+name+words+sig+doc+body, outline for containers": lambda p: _plain(p, outline=True, words=True),
    "path+name+sig+doc+body, outline for containers, 600 chars": lambda p: _plain(p, outline=True, words=False,
                                                                              max_chars=600),
    "words+doc+sig+body, outline for containers": _doc_first,
}
PATH_WEIGHTS = (0.0, 0.25)


def _truncation(texts: list[str], parts: list[dict], tokenizer) -> dict:
    """Share of texts cut by the 256-token window, and of the body that survives the cut."""
    cut, kept = 0, []
    for text, p in zip(texts, parts):
        ids = tokenizer(text, add_special_tokens=True)["input_ids"]
        if len(ids) > 256:
            cut += 1
            head = tokenizer.decode(ids[:255], skip_special_tokens=True)
            body = embedding_text._compact(p["body"] or "")
            body_tokens = max(len(tokenizer(body, add_special_tokens=False)["input_ids"]), 1)
            surviving = len(tokenizer(head, add_special_tokens=False)["input_ids"]) - (
                len(ids) - 2 - body_tokens)
            kept.append(max(0.0, min(1.0, surviving / body_tokens)))
    return {"texts": len(texts), "cut_share": round(cut / max(len(texts), 1), 3),
            "body_kept_when_cut": round(float(np.mean(kept)), 3) if kept else None}


class _Counting:
    """The ONNX runtime's `tokenizers` tokenizer, untruncated, called as the torch one is."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict:
        return {"input_ids": self.tokenizer.encode(text, add_special_tokens=add_special_tokens).ids}

    def decode(self, ids, skip_special_tokens: bool = True) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=skip_special_tokens)


def _tokenizer(model):
    loaded = model._load()
    if loaded is not None:  # the torch runtime returns its sentence-transformers model
        return loaded.tokenizer
    import copy

    tokenizer = copy.deepcopy(model._tokenizer)
    tokenizer.no_truncation()
    return _Counting(tokenizer)


def evaluate(repo: str, branch: str, cache: Path, embedder, settings: RankingSettings,
             recipes: list[str] | None = None) -> dict:
    parts = _capture_parts(clone(repo, cache), branch)
    keys = sorted(parts)
    questions = [q for q in load_questions(repo) if branch in q.branches]
    qvec = embedder.embed([q.question for q in questions])
    roles = [role_of(k[0], parts[k]["path_class"], parts[k]["language"], k[1]) for k in keys]
    from branchwise.chunking import path_embedding_text
    path_vecs = embedder.embed([path_embedding_text(k[0]) for k in keys])
    tokenizer = _tokenizer(embedder.inner)
    out = {"branch": branch, "symbols": len(keys), "questions": len(questions), "recipes": {}}
    for name, recipe in RECIPES.items():
        if recipes and name not in recipes:
            continue
        texts = [recipe(parts[k]) for k in keys]
        vectors = embedder.embed(texts)
        entry = {"truncation": _truncation(texts, [parts[k] for k in keys], tokenizer)}
        for weight in PATH_WEIGHTS:
            mixed = vectors + weight * path_vecs
            mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
            sims = qvec @ mixed.T
            for use_prior in (False, True):
                mrr = 0.0
                for qi, q in enumerate(questions):
                    order = np.argsort(-sims[qi])[:50]
                    wanted = wanted_roles(q.question)
                    scored = [(prior_factor(roles[i], wanted, settings) if use_prior else 1.0)
                              / (settings.rrf_k + pos + 1) for pos, i in enumerate(order)]
                    scored = list(zip(scored, order))
                    scored.sort(key=lambda s: -s[0])
                    answers = set(q.answers)
                    rank = next((r for r, (_s, i) in enumerate(scored[:10], 1) if keys[i] in answers), None)
                    mrr += 1 / rank if rank else 0.0
                entry[f"path {weight}{' + prior' if use_prior else ''}"] = round(mrr / len(questions), 4)
        out["recipes"][name] = entry
        print(repo, name, entry, file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.embedding_recipes", description=__doc__.split("\n")[0])
    parser.add_argument("--branch-of", action="append", default=[], help="REPO=BRANCH (default click=main, cobra=main)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "branchwise-realrepos")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--ranking", default="{}", help="[ranking] settings as JSON, for the prior")
    parser.add_argument("--recipe", action="append", choices=list(RECIPES), help="only these recipes")
    args = parser.parse_args(argv)
    from branchwise.embedding import get_embedder

    targets = dict(item.split("=", 1) for item in args.branch_of) or {"click": "main", "cobra": "main"}
    embedder = CachedEmbedder(get_embedder(), args.cache / "embeddings.sqlite")
    settings = RankingSettings.from_mapping(json.loads(args.ranking))
    doc = {repo: evaluate(repo, branch, args.cache, embedder, settings, args.recipe)
           for repo, branch in targets.items()}
    return print_json(doc, args.out)


if __name__ == "__main__":
    sys.exit(main())
