"""The training curve of the default model: steps against MRR@10 on click and cobra.

`python -m bench.training_curve --point NAME:STEP:RESULTS.json ... [--log NAME:FIT-LOG.json ...]
 [--include EARLIER-CURVE.json] --out STEM`

Each point is one `python -m bench.realrepos --model CHECKPOINT` run (every branch re-embedded
with that checkpoint on the int8 ONNX runtime); the fit logs (train/fit.py) add the loss and the
training seconds; --include carries an earlier curve's points, logs and notes over, so one file
holds every run measured. Writes STEM.json and STEM.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def point(spec: str) -> dict:
    name, step, file = spec.split(":", 2)
    doc = json.loads(Path(file).read_text())
    figures = {repo: {mode: {k: item["modes"][mode]["all"][k] for k in ("mrr_at_10", "hits_at_10", "leaks",
                                                                         "wrong_version")}
                      for mode in ("fused", "dense", "lexical")} for repo, item in doc["repos"].items()}
    return {"run": name, "step": int(step), "model": doc["meta"].get("model"), "commit": doc["meta"].get("commit"),
            "results_file": Path(file).name, "figures": figures}


def markdown(points: list[dict], logs: dict) -> str:
    lines = ["# Training curve of the default model (MRR@10, every branch, int8 ONNX)", "",
             "| run | step | click fused | click dense | cobra fused | cobra dense | leaks | wrong version | code measured |",
             "|---|---|---|---|---|---|---|---|---|"]
    for p in points:
        f = p["figures"]
        leaks = sum(f[r][m]["leaks"] for r in f for m in f[r])
        wrong = sum(f[r][m]["wrong_version"] for r in f for m in f[r])
        lines.append(f"| {p['run']} | {p['step']} | {f['click']['fused']['mrr_at_10']:.3f} | "
                     f"{f['click']['dense']['mrr_at_10']:.3f} | {f['cobra']['fused']['mrr_at_10']:.3f} | "
                     f"{f['cobra']['dense']['mrr_at_10']:.3f} | {leaks} | {wrong} | {p['commit'] or '?'} |")
    for name, log in logs.items():
        history = ", ".join(f"{h['step']}: {h['loss']}" for h in log["history"])
        lines += ["", f"{name}: {log['steps']} steps in {log['seconds']:.0f} s of training; loss by step: {history}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.training_curve", description=__doc__.split("\n")[0])
    parser.add_argument("--point", action="append", default=[], help="NAME:STEP:RESULTS.json")
    parser.add_argument("--include", type=Path, action="append", default=[], help="an earlier curve's JSON")
    parser.add_argument("--log", action="append", default=[], help="NAME:FIT-LOG.json")
    parser.add_argument("--note", action="append", default=[])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    points, logs, notes = [], {}, []
    for earlier in (json.loads(file.read_text()) for file in args.include):
        points += earlier["points"]
        logs.update(earlier["fit_logs"])
        notes += earlier["notes"]
    points += [point(spec) for spec in args.point]
    logs.update({name: json.loads(Path(file).read_text()) for name, file in (s.split(":", 1) for s in args.log)})
    notes += args.note
    if not points:
        print("bench.training_curve: no point given (--point or --include)", file=sys.stderr)
        return 2
    doc = {"points": points, "fit_logs": logs, "notes": notes}
    args.out.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    text = markdown(points, logs) + "".join(f"\n\n{n}" for n in notes) + "\n"
    args.out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
