"""Item `big_repo`: a big repository, from `index` start to the first search answer (issue 34).

Two repositories are built at run time: the CPython standard library of this machine
(`/usr/lib/python3.11`, else the interpreter's own lib: its `.py` files without the test
packages (`test`, `tests`, `idle_test`), `site-packages`/`dist-packages`, `lib-dynload` and
`config-*`, copied into a fresh git repository as one commit), and a synthetic repository of
`--synthetic` symbols (bench/synthrepo.py). For each, `branchwise index` runs as its own
process (under a small wrapper that reports its peak RSS and CPU time, children included)
while a second process polls `branchwise search` (the CLI, so this works with any indexer:
today's one-transaction index and a staged one alike). Reported per run:

- `first_answer_s`: from `index` start to the end of the first search that returned results
  (`first_answer_poll_started_s`: when that search started; polls are ~1 s apart until the
  first answer, then 15 s apart, so that they do not slow the embedding measured beside them);
- `full_dense_s`: until the foreground `index` exits (it embeds every version before it does);
  any coverage field a search answer carries is recorded as it was seen;
- `full_quality_answer_s`: the end of the first search started after `index` returned, every
  dense stage complete (with `--model branchwise-code-v2-static` the static model is the only
  one, as with `transformer = false`: the figure issue 47 asks <= 8 s of);
- `non_model_s`: the index process's wall time minus the time inside the embedder (and
  `non_model_in_indexer_s`: the branches' own `seconds - embed_seconds`, startup excluded);
  `cpu_s`: user+system CPU of the index process tree (the machine is shared; CPU seconds say
  what the work costs when wall time is stretched by other load);
- `pipeline_embed_rate`: texts embedded per second of the index run's embedding stage (its
  plain progress line; else wall time less non-model time), against `model_rate`: the same
  embedder in a fresh process embedding the same texts (the index's own texts, read back
  from it) in the same run; their ratio is the goal (at least 0.9);
- `peak_rss_mb`: the index process's high-water mark (the largest process of its tree, from
  `getrusage`), and `peak_tree_rss_mb`: the largest sum of RSS over the tree sampled every
  0.1 s (workers included; shared pages count twice, so this is an upper bound).

With the hashing embedder (`--model hashing-384`, named so in the report) the run measures
everything but the model; `model_resident` adds the default model's own memory, measured
in a separate process (its peak RSS after loading and embedding, less an import-only peak).

`python -m bench.big_repo [--model ID] [--synthetic N] [--only stdlib|synthetic] [--code DIR]
[--model-sample N] [--out NAME]`: `--code` measures another checkout (a before/after);
`--out NAME` writes bench/results/DATE-NAME.{md,json}. `python -m bench --only big_repo` runs
it in the suite (the real model on the stdlib, the hashing embedder at 100,000 symbols).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.synthrepo import GIT_ENV, generate

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).with_name("results")
HASHING = "hashing-384"
EXCLUDED_DIRS = frozenset({"test", "tests", "idle_test", "site-packages", "dist-packages", "lib-dynload",
                           "__pycache__"})
QUERIES = {"stdlib": "parse a url into its components", "synthetic": "refund the customer payment"}

WRAPPER = r"""
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "wb"))
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
json.dump({"returncode": done.returncode, "maxrss_kb": usage.ru_maxrss,
           "cpu_s": usage.ru_utime + usage.ru_stime}, open(sys.argv[1], "w"))
"""

MODEL_RATE = r"""
import json, random, sys, time
from pathlib import Path
from branchwise.embedding import get_embedder
from branchwise.chunking import path_embedding_text
from branchwise.store import Store
index, identity, sample = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
store = Store(index, create=False)
texts = dict(store.unembedded_texts("(none)"))
for key, path in store.unembedded_paths("(none)"):
    texts.setdefault(key, path_embedding_text(path))
store.close()
texts = list(texts.values())
if 0 < sample < len(texts):
    texts = random.Random(0).sample(texts, sample)
embedder = get_embedder(identity)
embedder.embed(texts[:8])
started, cpu = time.perf_counter(), time.process_time()
for start in range(0, len(texts), 512):
    embedder.embed(texts[start:start + 512])
seconds = time.perf_counter() - started
print(json.dumps({"texts": len(texts), "seconds": seconds, "rate": len(texts) / seconds,
                  "cpu_seconds": time.process_time() - cpu}))
"""

MODEL_MEMORY = r"""
import json, sys
def peak():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
import branchwise.workspace, numpy
if sys.argv[1] == "1":
    from branchwise.embedding import get_embedder
    get_embedder().embed(["def parse_url(text): return text.split('/')"] * 64)
print(json.dumps({"peak_rss_mb": peak()}))
"""


def stdlib_source() -> Path:
    system = Path("/usr/lib/python3.11")
    return system if (system / "os.py").exists() else Path(sysconfig.get_paths()["stdlib"])


def build_stdlib_repo(dest: Path, source: Path | None = None, limit: int = 0) -> dict:
    """The standard library's `.py` files (tests and installed packages left out) as one
    commit; `limit`: only the first files in path order (the smoke run)."""
    source = source or stdlib_source()
    files, size = 0, 0
    for path in sorted(source.rglob("*.py")):
        parts = path.relative_to(source).parts
        if any(p in EXCLUDED_DIRS or p.startswith("config-") for p in parts[:-1]) or not path.is_file():
            continue
        if limit and files >= limit:
            break
        target = dest / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        files += 1
        size += path.stat().st_size
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "stdlib"]):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True)
    return {"source": str(source), "files": files, "megabytes": round(size / 2**20, 1)}


def _env(code: Path, model: str) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "BRANCHWISE_MODEL": model,
           "PYTHONPATH": os.pathsep.join(str(code / part) for part in ("core", "tui", "cli"))}
    env.pop("BRANCHWISE_RUNTIME", None)
    return env


def _tree_rss_kb(pid: int) -> int:
    """The summed RSS of a process and its descendants (0 once it is gone)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            total += next(int(line.split()[1]) for line in (Path("/proc") / str(current) / "status").read_text()
                          .splitlines() if line.startswith("VmRSS"))
        except (OSError, StopIteration):
            pass
    return total


def _poll_search(repo: Path, index: Path, env: dict, query: str, t0: float, stop: threading.Event,
                 seen: list[dict], tried: list[int]) -> None:
    """Search the index from a second process until the index run has ended; every answer is kept."""
    command = [sys.executable, "-m", "branchwise_cli", "search", query, "--repo", str(repo), "--branch", "main",
               "--index", str(index), "--json", "--no-stats", "--top-k", "5"]
    while True:
        final = stop.is_set()  # one poll after the index run ended, so a last answer is always seen
        tried[0] += 1
        started = time.perf_counter() - t0
        done = subprocess.run(["nice", "-n", "5", *command], env=env, capture_output=True, text=True)
        ended = time.perf_counter() - t0
        if done.returncode == 0:
            try:
                answer = json.loads(done.stdout)
            except ValueError:
                answer = None
            results = answer.get("results", answer) if isinstance(answer, dict) else answer
            coverage = {k: v for k, v in answer.items() if "coverage" in k} if isinstance(answer, dict) else {}
            seen.append({"started_s": round(started, 2), "ended_s": round(ended, 2), "after_index": final,
                         "results": len(results) if isinstance(results, list) else 0, "coverage": coverage})
        if final:
            return
        # once answered, a poll every 15 s still records the coverage as it grows without taking
        # a core from the embedding it measures (each poll is a process that loads the model)
        stop.wait(15.0 if any(s["results"] for s in seen) else 1.0)


def index_run(repo: Path, index: Path, code: Path, model: str, query: str, work: Path) -> dict:
    """One `index` of `repo` into a new `index`, measured as the module docstring says."""
    env = _env(code, model)
    record = work / f"rusage-{index.name}.json"
    command = [sys.executable, "-c", WRAPPER, str(record), sys.executable, "-m", "branchwise_cli", "index",
               str(repo), "--index", str(index), "--json"]
    stop, seen, samples, tried = threading.Event(), [], [0], [0]
    t0 = time.perf_counter()
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    poller = threading.Thread(target=_poll_search, args=(repo, index, env, query, t0, stop, seen, tried))
    poller.start()

    def sample() -> None:
        while process.poll() is None:
            samples[0] = max(samples[0], _tree_rss_kb(process.pid))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    lines: list[tuple[float, str]] = []
    for line in process.stderr:  # type: ignore[union-attr]
        lines.append((time.perf_counter() - t0, line.rstrip("\n")))
    process.wait()
    wall = time.perf_counter() - t0
    stop.set()
    poller.join()
    sampler.join()
    usage = json.loads(record.read_text())
    if usage["returncode"] != 0:
        raise RuntimeError(f"index failed ({usage['returncode']}): " + " | ".join(l for _t, l in lines[-5:]))
    report = json.loads(Path(str(record) + ".out").read_text())
    branch = report["branches"][0]
    embed_s = sum(b["embed_seconds"] for b in report["branches"])
    answered = [s for s in seen if s["results"] > 0]
    stage = next((m for _t, text in lines if (m := re.search(r"embed (\d+) \w+ in ([\d.]+)s", text))), None)
    embedded = sum(b["embedded"] for b in report["branches"])
    non_model = wall - embed_s
    embed_stage_s = float(stage[2]) if stage else wall - non_model
    return {
        "model": model, "files_parsed": branch["files_parsed"], "symbols": branch["symbols_parsed"],
        "versions": branch["versions_added"], "embedded": embedded,
        "index_wall_s": round(wall, 2), "full_dense_s": round(wall, 2),
        "first_answer_s": answered[0]["ended_s"] if answered else None,
        "first_answer_poll_started_s": answered[0]["started_s"] if answered else None,
        # every dense stage complete (a foreground run embeds them all before it exits): the
        # first answer of a search started once `index` had returned
        # (the last poll is marked: its rounded start can read a few milliseconds before `wall`)
        "full_quality_answer_s": next((s["ended_s"] for s in answered if s["after_index"] or s["started_s"] >= wall),
                                      None),
        "polls": tried[0], "polls_answered": len(seen), "coverage_seen": [s["coverage"] for s in seen if s["coverage"]][:50],
        "embed_s": round(embed_s, 2), "non_model_s": round(non_model, 2),
        "non_model_in_indexer_s": round(sum(b["seconds"] - b["embed_seconds"] for b in report["branches"]), 2),
        "cpu_s": round(usage["cpu_s"], 2), "embed_stage_s": round(embed_stage_s, 2),
        "embed_stage_source": "progress line" if stage else "wall less non-model",
        "pipeline_embed_rate": round(embedded / embed_stage_s, 1) if embed_stage_s > 0 else None,
        "peak_rss_mb": round(usage["maxrss_kb"] / 1024, 1), "peak_tree_rss_mb": round(samples[0] / 1024, 1),
        "progress_lines": [f"{t:7.1f}s {text}" for t, text in lines][:40],
    }


def len_ratio(embedded: int, measured: int) -> float:
    """Scale a sample's model time to every text the run embedded."""
    return embedded / measured if measured else 0.0


def model_rate(index: Path, code: Path, model: str, sample: int) -> dict:
    done = subprocess.run([sys.executable, "-c", MODEL_RATE, str(index), model, str(sample)],
                          env=_env(code, model), capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def model_resident(code: Path) -> dict:
    """The default model's own memory: peak RSS with it loaded and used, less without it."""
    def probe(flag: str) -> float:
        done = subprocess.run([sys.executable, "-c", MODEL_MEMORY, flag], env=_env(code, ""),
                              capture_output=True, text=True, check=True)
        return json.loads(done.stdout)["peak_rss_mb"]

    without, loaded = probe("0"), probe("1")
    return {"import_only_peak_mb": round(without, 1), "model_loaded_peak_mb": round(loaded, 1),
            "model_own_mb": round(loaded - without, 1)}


def measure(work: Path, name: str, repo: Path, code: Path, model: str, sample: int) -> dict:
    index = work / f"index-{name}-{model.replace('+', '_')}"
    result = index_run(repo, index, code, model, QUERIES[name], work)
    rate = model_rate(index, code, model, sample)
    result["model_rate"] = round(rate["rate"], 1)
    result["model_rate_texts"] = rate["texts"]
    result["model_cpu_s"] = round(rate["cpu_seconds"] * len_ratio(result["embedded"], rate["texts"]), 2)
    result["non_model_cpu_s"] = round(result["cpu_s"] - result["model_cpu_s"], 2)
    if result["pipeline_embed_rate"]:
        result["pipeline_vs_model"] = round(result["pipeline_embed_rate"] / rate["rate"], 3)
    shutil.rmtree(index, ignore_errors=True)
    return result


def run(work: Path, stdlib_model: str | None, synthetic: int, synthetic_model: str = HASHING,
        code: Path = ROOT, sample: int = 0, only: str | None = None, stdlib_files: int = 0) -> dict:
    """The item: the stdlib with `stdlib_model` (and with the hashing embedder), the synthetic
    repository with `synthetic_model`; `sample` texts for the model's own rate (0: all);
    `stdlib_files`: only that many of the stdlib's files (0: all; the smoke run takes a few)."""
    work.mkdir(parents=True, exist_ok=True)
    out: dict = {"code": str(code), "commit": _commit(code)}
    if only in (None, "stdlib"):
        repo = work / "cpython-stdlib"
        if not repo.exists():
            repo.mkdir(parents=True)
            out["stdlib_repo"] = build_stdlib_repo(repo, limit=stdlib_files)
        out["stdlib_hashing"] = measure(work, "stdlib", repo, code, HASHING, 0)
        if stdlib_model and stdlib_model != HASHING:
            out["stdlib_model"] = measure(work, "stdlib", repo, code, stdlib_model, sample)
    if only in (None, "synthetic") and synthetic:
        repo = work / f"synthetic-{synthetic}"
        if not repo.exists():
            generate(repo, synthetic)
        out["synthetic_repo"] = {"symbols_generated": synthetic}
        out["synthetic"] = measure(work, "synthetic", repo, code, synthetic_model,
                                   0 if synthetic_model == HASHING else sample)
        out["model_resident"] = model_resident(code)
        projected = out["synthetic"]["peak_rss_mb"] + out["model_resident"]["model_own_mb"]
        out["synthetic"]["peak_rss_with_model_projected_mb"] = round(projected, 1)
    return out


def _commit(code: Path) -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=code, capture_output=True, text=True).stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return (git("rev-parse", "HEAD") or "unknown") + (" plus uncommitted changes" if dirty else "")


def markdown(doc: dict) -> str:
    lines = [f"# Big repository: from `index` start to the first answer ({doc['date']})", "",
             f"Commit measured: `{doc['commit']}`. Machine: {doc['machine']}.", "",
             "| repository | embedder | symbols | first answer | full dense | first full-quality answer "
             "| non-model s (in indexer) | CPU s (non-model CPU s) | embed rate / model's own | peak RSS (tree) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for key, label in (("stdlib_hashing", "CPython stdlib"), ("stdlib_model", "CPython stdlib"),
                       ("synthetic", "synthetic")):
        r = doc["result"].get(key)
        if not r:
            continue
        embedder = r["model"] + (" (hashing embedder: no model)" if r["model"] == HASHING else "")
        rate = (f"{r['pipeline_embed_rate']} / {r['model_rate']} = {r['pipeline_vs_model']:.0%}"
                if "pipeline_vs_model" in r else "n/a")
        first = f"{r['first_answer_s']} s" if r["first_answer_s"] is not None else "none"
        full = f"{r['full_quality_answer_s']} s" if r.get("full_quality_answer_s") is not None else "none"
        lines.append(f"| {label} | {embedder} | {r['symbols']:,} | {first} | {r['full_dense_s']} s | {full} | "
                     f"{r['non_model_s']} ({r['non_model_in_indexer_s']}) | {r['cpu_s']} ({r.get('non_model_cpu_s', 'n/a')}) | {rate} | "
                     f"{r['peak_rss_mb']} MB ({r['peak_tree_rss_mb']} MB) |")
    resident = doc["result"].get("model_resident")
    if resident:
        lines += ["", f"Model's own resident memory (separate process): {resident['model_own_mb']} MB "
                  f"({resident['model_loaded_peak_mb']} MB loaded and used, {resident['import_only_peak_mb']} MB "
                  "import only); synthetic peak plus it: "
                  f"{doc['result']['synthetic']['peak_rss_with_model_projected_mb']} MB."]
    if "stdlib_repo" in doc["result"]:
        s = doc["result"]["stdlib_repo"]
        lines += ["", f"Stdlib repository: {s['files']} files, {s['megabytes']} MB from {s['source']}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.big_repo", description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="embedder for the stdlib's model run "
                        "(default: the default model; 'none': only the hashing run)")
    parser.add_argument("--synthetic", type=int, default=100_000, help="symbols of the synthetic repository (0: skip)")
    parser.add_argument("--synthetic-model", default=HASHING, help="embedder for the synthetic repository")
    parser.add_argument("--only", choices=("stdlib", "synthetic"))
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--model-sample", type=int, default=0, help="texts for the model's own rate (0: all)")
    parser.add_argument("--stdlib-files", type=int, default=0, help="only the first N stdlib files (0: all)")
    parser.add_argument("--out", help="write bench/results/DATE-OUT.{md,json}")
    args = parser.parse_args(argv)
    from bench import report
    from branchwise.embedding import DEFAULT_MODEL, model_identity

    model = None if args.model == "none" else (args.model or model_identity(DEFAULT_MODEL))
    with tempfile.TemporaryDirectory(prefix="branchwise-bigrepo-") as tmp:
        result = run(Path(tmp), model, args.synthetic, args.synthetic_model, args.code.resolve(),
                     args.model_sample, args.only, args.stdlib_files)
    doc = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "commit": result["commit"],
           "machine": report.machine(), "argv": sys.argv[1:] if argv is None else argv, "result": result}
    print(markdown(doc))
    if args.out:
        stem = RESULTS / f"{doc['date'][:10]}-{args.out}"
        stem.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
        stem.with_suffix(".md").write_text(markdown(doc))
        print(stem.with_suffix(".md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
