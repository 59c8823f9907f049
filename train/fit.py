"""Fine-tuning the encoder on the mined pairs: in-batch negatives plus one hard negative.

MultipleNegativesRankingLoss, written out (cross-entropy over scaled cosine similarities of
each question to every code text of its batch and to the batch's hard negatives), so the
loop needs torch and sentence-transformers only. AdamW with a linear warm-up and decay, a
fixed seed, one thread per core; checkpoints along the way measure the training curve.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

#: the measured recipe (DESIGN.md, "Notes for training a retrieval model")
BATCH = 32
LEARNING_RATE = 2e-5
MAX_TOKENS = 128
SCALE = 20.0
WARMUP_SHARE = 0.1


def fit(pairs: list[dict], base: str, out: Path, epochs: int, seed: int,
        checkpoints: list[int] | None = None, log=print, symmetric: bool = False,
        stop: int | None = None, group: int = 0) -> dict:
    """Train `base` on `pairs` (query, code, negative) and save it to `out`; returns the log.

    `stop` ends the run after that step, the learning-rate schedule still the whole run's (so
    the model is the one a checkpoint at that step of the full run would be).

    `symmetric` adds the loss the other way round (each code text of the batch to pick its own
    question among the batch's questions), averaged with the question-to-code loss."""
    import torch
    from sentence_transformers import SentenceTransformer

    from train.environment import environment, training_threads

    random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(training_threads())
    model = SentenceTransformer(base, device="cpu")
    reading_length = model.max_seq_length  # what the product reads at search time, kept on save
    model.max_seq_length = MAX_TOKENS
    model.train()
    rng = random.Random(seed)
    batches = [batch for _epoch in range(epochs) for batch in make_batches(pairs, rng, group)]
    total = len(batches)
    warmup = max(1, int(total * WARMUP_SHARE))
    optimiser = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup))))
    wanted = set(checkpoints or ())
    history: list[dict] = []
    started = time.perf_counter()
    running = 0.0
    for step, batch in enumerate(batches, 1):
        queries = [pairs[i]["query"] for i in batch]
        codes = [pairs[i]["code"] for i in batch] + [pairs[i]["negative"] for i in batch]
        q = _embed(model, queries)
        c = _embed(model, codes)
        scores = SCALE * torch.nn.functional.normalize(q, dim=-1) @ torch.nn.functional.normalize(c, dim=-1).T
        loss = batch_loss(scores, symmetric)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        running += float(loss.detach())
        if step % 20 == 0 or step in (total, stop):
            entry = {"step": step, "of": total, "loss": round(running / (20 if step % 20 == 0 else step % 20), 4),
                     "seconds": round(time.perf_counter() - started, 1)}
            history.append(entry)
            log(json.dumps(entry))
            running = 0.0
        if step == stop:
            break
        if step in wanted and step != total:
            _save(model, out.parent / f"{out.name}-step{step}", reading_length)
    _save(model, out, reading_length)
    return {"steps": step, "of": total, "symmetric": symmetric, "group": group, "seconds": round(time.perf_counter() - started, 1),
            "history": history, "environment": environment(Path(base))}


def make_batches(pairs: list[dict], rng: random.Random, group: int = 0) -> list[list[int]]:
    """One epoch's batches of BATCH pair indices (a last partial batch dropped).

    With `group`, each file's pairs are shuffled and cut into runs of at most `group`, the
    runs shuffled and laid end to end before cutting batches: a question then meets up to
    group - 1 siblings of its own file among its batch's code texts, the neighbours search
    most often confuses with the answer; without, a plain shuffle of every pair."""
    order = list(range(len(pairs)))
    rng.shuffle(order)
    if group > 0:
        by_file: dict[tuple[str, str], list[int]] = {}
        for i in order:
            by_file.setdefault((pairs[i].get("source", ""), pairs[i].get("path", "")), []).append(i)
        runs = [members[k:k + group] for members in by_file.values() for k in range(0, len(members), group)]
        rng.shuffle(runs)
        order = [i for run in runs for i in run]
    return [order[i:i + BATCH] for i in range(0, len(order) - BATCH + 1, BATCH)]


def batch_loss(scores, symmetric: bool = False):
    """The loss of one batch from its (questions x code texts) scores, the code texts being the
    questions' own in order, then the hard negatives: each question is to pick its own code
    text; `symmetric`: also each own code text its question, the two losses averaged."""
    import torch

    size = scores.shape[0]
    target = torch.arange(size)
    loss = torch.nn.functional.cross_entropy(scores, target)
    if symmetric:
        loss = (loss + torch.nn.functional.cross_entropy(scores[:, :size].T, target)) / 2
    return loss


def _save(model, folder: Path, reading_length: int) -> None:
    model.eval()
    model.max_seq_length = reading_length
    model.save(str(folder))
    model.max_seq_length = MAX_TOKENS
    model.train()


def _embed(model, texts: list[str]):
    features = model.preprocess(texts)
    return model(features)["sentence_embedding"]
