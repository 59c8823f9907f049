"""The command line of the training pipeline; each step reads and writes files in one work directory.

    python -m train all                  # mine, check, fit, mix, ship: rebuilds the shipped model
    python -m train mine [--source python]... [--seed N] [--docstring-share F]
    python -m train mine --source debian [--language L]... [--offline]   # Debian packages (issue 49)
    python -m train debian-list          # rewrite debian-packages.toml from the apt index
    python -m train balance --from DIR... [--per-language N]   # one set, at most N pairs a language
    python -m train check [MANIFEST]     # exit 1 when a source file is benchmark or sample code
    python -m train fit [--epochs N] [--checkpoint STEP]... [--no-symmetric] [--stop STEP]
    python -m train mix [--model DIR] [--alpha A]   # average with the base model's weights
    python -m train ship [--model DIR] [--name NAME]
    python -m train env [TRAINING_JSON]  # what differs from a shipped model's training run
    python -m train distill [--base NAME] [--name NAME] [--pca-dims N]   # the static model
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = 27
DOCSTRING_SHARE = 0.2
EPOCHS = 1
#: the shipped model stops at step 96 of the epoch's 143 (its schedule still the epoch's): the
#: dense channel peaks early and falls with more steps (bench/results/2026-12-02-model-round3.md)
STOP = 96
#: the loss both ways (question -> code and code -> question), measured in round 4
SYMMETRIC = True
#: batches from runs of up to GROUP pairs of one file (0: a plain shuffle; fit.make_batches)
GROUP = 0
#: the fine-tuned model's share in the weight average with its base (mix.py; 1.0: no mixing)
ALPHA = 1.0
#: the hard negative: the library's best BM25 match ("library"), or the own file's ("file")
NEGATIVES = "library"
BASE_MODEL = "all-MiniLM-L6-v2"
#: the shipped model's data: Python's and Go's standard libraries, 2,300 pairs of each (Go
#: alone gives 7,468 and would outweigh Python); measured against Python alone in
#: bench/results/ (train/README.md)
SOURCES = ["python", "go"]
MAX_PAIRS = ["python=2300", "go=2300"]
SHIPPED_NAME = "branchwise-code-v2"
#: the static model distilled from the shipped encoder (train/distill.py)
STATIC_NAME = SHIPPED_NAME + "-static"
#: the corpora `mine` knows (train/sources.py); Rust's is mined but not yet in the shipped model
KNOWN_SOURCES = ("python", "go", "rust", "debian")
#: pairs per language of a balanced set (issue 49): about Lua's and Bash's whole Debian yield
#: left out, the languages with data weigh the same
BALANCED_PER_LANGUAGE = 700
#: the data manifest of the shipped model, committed beside the pipeline
COMMITTED_MANIFEST = Path(__file__).with_name("data-manifest.json")


def _product_on_path() -> None:
    if str(ROOT / "core") not in sys.path:
        sys.path.insert(0, str(ROOT / "core"))


def command_mine(args) -> int:
    from train import sources as known
    from train.guard import benchmark_hashes, leaked_sources
    from train.manifest import data_manifest
    from train.mine import mine

    if "debian" in (args.source or ()):
        if args.source != ["debian"]:
            print("train: --source debian is mined alone", file=sys.stderr)
            return 2
        return command_mine_debian(args)
    chosen = []
    for name in args.source or SOURCES:
        source = known.KNOWN[name]()
        if source is None:
            print(f"train: source {name!r} is not installed on this machine", file=sys.stderr)
            return 2
        chosen.append(source)
    try:
        limits = {k: int(v) for k, v in (item.split("=", 1) for item in args.max_pairs or MAX_PAIRS)}
    except ValueError:
        print("train: --max-pairs takes LANGUAGE=N, e.g. go=2300", file=sys.stderr)
        return 2
    pairs, files = mine(chosen, args.docstring_share, args.seed, limits)
    leaks = leaked_sources(files, benchmark_hashes())
    if leaks:
        print(f"train: {len(leaks)} source file(s) are benchmark or sample code, refusing: {leaks[0]}",
              file=sys.stderr)
        return 1
    _write_pairs(args, pairs, data_manifest(chosen, pairs, files, args.seed, args.docstring_share, limits,
                                            args.negatives))
    print(f"{len(pairs)} pairs from {len(files)} files -> {args.work / 'pairs.jsonl'}")
    return 0


def _write_pairs(args, pairs, manifest: dict) -> None:
    """pairs.jsonl (each pair with its hard negative from the same source) and data-manifest.json."""
    from train.mine import as_records
    from train.negatives import negatives_per_source

    negatives = negatives_per_source(pairs, own_file=args.negatives == "file")
    args.work.mkdir(parents=True, exist_ok=True)
    with open(args.work / "pairs.jsonl", "w") as out:
        for record, negative in zip(as_records(pairs), negatives):
            out.write(json.dumps({**record, "negative": pairs[negative].code}) + "\n")
    (args.work / "data-manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def command_mine_debian(args) -> int:
    """Pairs from the Debian packages of debian-packages.toml, downloaded into WORK/debian."""
    from train import debian
    from train.guard import benchmark_hashes, excluded_projects, leaked_sources
    from train.manifest import data_manifest

    listing = debian.read_package_list(args.packages)
    if args.language:
        unknown = sorted(set(args.language) - set(listing))
        if unknown:
            print(f"train: no language {unknown[0]!r} in {args.packages}", file=sys.stderr)
            return 2
        listing = {k: v for k, v in listing.items() if k in args.language}
    try:
        caps = {k: int(v) for k, v in (item.split("=", 1) for item in args.max_pairs or ())}
    except ValueError:
        print("train: --max-pairs takes LANGUAGE=N, e.g. go=2300", file=sys.stderr)
        return 2
    caps = {language: caps.get(language, debian.MAX_PAIRS) for language in listing}
    accepted, refused, fetched = debian.prepare(listing, args.work / "debian", excluded_projects(),
                                                fetch=not args.offline)
    benchmark = benchmark_hashes()
    pairs, files, figures = debian.mine_packages(accepted, refused, args.docstring_share, args.seed, caps, benchmark)
    leaks = leaked_sources(files, benchmark)
    if leaks:  # mine_packages refuses such packages: this is the last line of defence
        print(f"train: {len(leaks)} source file(s) are benchmark or sample code, refusing: {leaks[0]}",
              file=sys.stderr)
        return 1
    used = [p for group in accepted.values() for p in group]
    manifest = data_manifest(used, pairs, files, args.seed, args.docstring_share, caps, args.negatives)
    _write_pairs(args, pairs, debian.debian_manifest(manifest, accepted, refused, listing, figures, fetched))
    print(f"{len(pairs)} pairs from {len(files)} files of {len({p.source for p in pairs})} packages, "
          f"{len(refused)} refused -> {args.work / 'pairs.jsonl'}")
    return 0


def command_debian_list(args) -> int:
    import subprocess

    from train import debian

    records = debian.parse_control(subprocess.run(["apt-cache", "dumpavail"], check=True, capture_output=True,
                                                  text=True, errors="replace").stdout)
    chosen = debian.select_packages(records)
    release = subprocess.run(["sh", "-c", "grep -h '^Suites' /etc/apt/sources.list.d/*.sources | head -1"],
                             capture_output=True, text=True).stdout.split(":")[-1].strip() or "this machine's apt sources"
    debian.write_package_list(chosen, args.out, f"`apt-cache dumpavail` ({release} main)")
    print(f"{sum(map(len, chosen.values()))} packages of {len(chosen)} languages -> {args.out}")
    return 0


def command_balance(args) -> int:
    """WORK/pairs.jsonl and WORK/data-manifest.json from the corpora of --from, balanced by language."""
    from train.balance import balance

    missing = [str(d) for d in args.corpus if not (d / "pairs.jsonl").is_file() or not (d / "data-manifest.json").is_file()]
    if missing:
        print(f"train: {missing[0]} holds no mined corpus (pairs.jsonl and data-manifest.json)", file=sys.stderr)
        return 2
    if any(d.resolve() == args.work.resolve() for d in args.corpus):
        print("train: --work must be another directory than the corpora it balances", file=sys.stderr)
        return 2
    try:
        pairs, manifest = balance(args.corpus, args.per_language, args.seed)
    except ValueError as error:
        print(f"train: {error}", file=sys.stderr)
        return 2
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "pairs.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs))
    (args.work / "data-manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    taken = ", ".join(f"{k} {v['taken']}" for k, v in manifest["languages"].items())
    print(f"{len(pairs)} pairs ({taken}) -> {args.work / 'pairs.jsonl'}")
    return 0


def command_check(args) -> int:
    from train.guard import benchmark_hashes, leaked_sources

    manifest = json.loads(args.manifest.read_text())
    leaks = leaked_sources(manifest["files"], benchmark_hashes())
    for line in leaks:
        print(line)
    if leaks:
        print(f"train: {len(leaks)} training source file(s) are benchmark or sample code", file=sys.stderr)
        return 1
    print(f"{len(manifest['files'])} source files, none of them benchmark or sample code")
    return 0


def command_fit(args) -> int:
    from train.fit import fit

    pairs = [json.loads(line) for line in open(args.work / "pairs.jsonl")]
    base = args.base
    if base == BASE_MODEL:
        from branchwise.embedding.location import model_location

        base = str(model_location(BASE_MODEL))
    log = fit(pairs, base, args.work / "model", args.epochs, args.seed, args.checkpoint or [],
              symmetric=args.symmetric, stop=args.stop or None, group=args.group)
    (args.work / "fit-log.json").write_text(json.dumps({"base": args.base, "epochs": args.epochs,
                                                         "seed": args.seed, **log}, indent=1) + "\n")
    return 0


def command_mix(args) -> int:
    from branchwise.embedding.location import model_location
    from train.mix import mix

    trained = Path(args.model or args.work / "model")
    if not (trained / "model.safetensors").is_file():
        print(f"train: no trained model in {trained} (run `python -m train fit` first)", file=sys.stderr)
        return 2
    try:
        out = mix(trained, Path(model_location(BASE_MODEL)), args.alpha, args.work / "model-mixed")
    except ValueError as error:
        print(f"train: {error}", file=sys.stderr)
        return 2
    print(f"mixed {args.alpha} x {trained} + {1 - args.alpha:g} x {BASE_MODEL} -> {out}")
    return 0


def command_ship(args) -> int:
    from branchwise.embedding.location import SHIPPED_MODELS_DIR
    from train import fit
    from train.ship import ship

    model = args.model or args.work / ("model-mixed" if args.alpha < 1.0 else "model")
    manifest = json.loads((args.work / "data-manifest.json").read_text())
    log_file = args.work / "fit-log.json"
    fitted = json.loads(log_file.read_text()) if log_file.is_file() and not args.model else None
    training = {
        "base": BASE_MODEL, "loss": "MultipleNegativesRankingLoss (in-batch + 1 BM25 hard negative)"
                                    + (", both ways" if fitted and fitted.get("symmetric") else ""),
        "batch": fit.BATCH, "learning_rate": fit.LEARNING_RATE, "max_tokens": fit.MAX_TOKENS, "scale": fit.SCALE,
        "data": {k: manifest[k] for k in ("seed", "docstring_share", "pairs", "pairs_sha256")},
        "sources": manifest["sources"],
        "fit": fitted,
        "mixed_with_base": {"alpha": args.alpha, "base": BASE_MODEL} if args.alpha < 1.0 else None,
        "command": "python -m train all",
    }
    done = ship(Path(model), SHIPPED_MODELS_DIR / args.name, training)
    shutil.copy2(args.work / "data-manifest.json", COMMITTED_MANIFEST)
    print(f"shipped {args.name}: {len(done['files'])} files into {SHIPPED_MODELS_DIR / args.name}")
    return 0


def command_distill(args) -> int:
    from branchwise.embedding.location import SHIPPED_MANIFEST, SHIPPED_MODELS_DIR
    from train.distill import distill_model

    encoder = SHIPPED_MODELS_DIR / args.base
    if not (encoder / SHIPPED_MANIFEST).is_file():
        print(f"train: no shipped encoder {args.base!r} in {SHIPPED_MODELS_DIR}", file=sys.stderr)
        return 2
    done = distill_model(encoder, SHIPPED_MODELS_DIR / args.name, args.pca_dims)
    size = sum(f["bytes"] for f in done["files"].values())
    print(f"distilled {args.base} into {args.name}: {len(done['files'])} files, {size / 1e6:.1f} MB, "
          f"into {SHIPPED_MODELS_DIR / args.name}")
    return 0


def _compared_environment(path: Path) -> tuple[dict, dict | None, list[str]]:
    """(this machine's training environment, the one `path` records or None, what differs);
    OSError or ValueError when `path` cannot be read."""
    from branchwise.embedding.location import model_location
    from train.environment import differences, environment, training_threads

    try:
        recorded = (json.loads(Path(path).read_text()).get("fit") or {}).get("environment")
    except AttributeError as error:
        raise ValueError(f"not a training.json: {error}") from error
    import torch  # its CPU kernels and threads are part of the environment

    torch.set_num_threads(training_threads())
    current = environment(Path(model_location(BASE_MODEL)))
    return current, recorded, differences(recorded, current) if recorded else []


def command_env(args) -> int:
    """This machine's training environment against the one a shipped model was trained in."""
    from branchwise.embedding.location import SHIPPED_MODELS_DIR

    path = args.training or SHIPPED_MODELS_DIR / SHIPPED_NAME / "training.json"
    try:
        current, recorded, changed = _compared_environment(path)
    except (OSError, ValueError) as error:
        print(f"train: cannot read {path}: {error}", file=sys.stderr)
        return 2
    print(json.dumps(current, indent=1))
    if not recorded:
        print(f"{path} records no environment (trained before environments were recorded): "
              "a rebuild can match it only by chance", file=sys.stderr)
        return 1
    for line in changed:
        print(f"differs: {line}")
    if changed:
        print(f"train: {len(changed)} difference(s) from {path}: a rebuild here may not be byte-identical",
              file=sys.stderr)
        return 1
    print(f"same environment as {path}")
    return 0


def note_environment(args) -> int:
    """Before `all` replaces a shipped model: say when this environment differs from its run's."""
    from branchwise.embedding.location import SHIPPED_MODELS_DIR

    path = SHIPPED_MODELS_DIR / args.name / "training.json"
    if not path.is_file():
        return 0
    try:
        _current, recorded, changed = _compared_environment(path)
    except (OSError, ValueError):
        return 0  # a shipped folder without a readable record: nothing to compare against
    if not recorded:
        print(f"train: note: {args.name} records no training environment; the rebuild will match it "
              "only by chance", file=sys.stderr)
    elif changed:
        print(f"train: note: this environment differs from {args.name}'s run ({'; '.join(changed)}); "
              "the rebuild may not be byte-identical", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    _product_on_path()
    parser = argparse.ArgumentParser(prog="python -m train", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--work", type=Path, default=Path("/tmp/branchwise-train"),
                        help="the work directory (pairs, checkpoints, logs; default %(default)s)")
    sub = parser.add_subparsers(dest="command", required=True)
    every = sub.add_parser("all", help="mine, check, fit and ship: rebuild the shipped model")
    mine = sub.add_parser("mine", help="mine (question, code) pairs with hard negatives")
    for command in (every, mine):
        command.add_argument("--source", action="append", choices=sorted(KNOWN_SOURCES), help="default: python and go")
        command.add_argument("--seed", type=int, default=SEED)
        command.add_argument("--docstring-share", type=float, default=DOCSTRING_SHARE)
        command.add_argument("--negatives", choices=("library", "file"), default=NEGATIVES,
                             help="where the hard negative comes from: the library's best BM25 match, or "
                                  "the question's own file first (default %(default)s)")
        command.add_argument("--max-pairs", action="append", metavar="LANGUAGE=N",
                             help="at most N pairs of that language's library (a seeded sample; "
                                  "default: python=2300 go=2300, or 3000 a language with --source debian; "
                                  "'python=1000000' lifts the cap)")
    from train.debian import PACKAGE_LIST

    mine.add_argument("--packages", type=Path, default=PACKAGE_LIST,
                      help="with --source debian: the package list (default train/%(default)s)".replace(
                          str(PACKAGE_LIST.parent) + "/", ""))
    mine.add_argument("--language", action="append", help="with --source debian: only this language's packages")
    mine.add_argument("--offline", action="store_true",
                      help="with --source debian: download nothing, use the packages already in WORK/debian/debs")
    listing = sub.add_parser("debian-list", help="rewrite the Debian package list from this machine's apt index")
    listing.add_argument("--out", type=Path, default=PACKAGE_LIST)
    check = sub.add_parser("check", help="fail when a source file of a data manifest is benchmark code")
    check.add_argument("manifest", type=Path, nargs="?", default=COMMITTED_MANIFEST)
    balanced = sub.add_parser("balance", help="one training set from mined corpora, at most N pairs a language")
    balanced.add_argument("--from", dest="corpus", type=Path, action="append", required=True, metavar="DIR",
                          help="a work directory of `mine` (repeat for each corpus)")
    balanced.add_argument("--per-language", type=int, default=BALANCED_PER_LANGUAGE, metavar="N",
                          help="at most N pairs of each language (default %(default)s)")
    balanced.add_argument("--seed", type=int, default=SEED)
    fit = sub.add_parser("fit", help="fine-tune the base model on the mined pairs")
    for command in (every, fit):
        command.add_argument("--base", default=BASE_MODEL)
        command.add_argument("--epochs", type=int, default=EPOCHS)
        command.add_argument("--checkpoint", type=int, action="append", help="also save the model after this step")
        command.add_argument("--symmetric", action=argparse.BooleanOptionalAction, default=SYMMETRIC,
                             help="also train code -> question, the two losses averaged (default: %(default)s)")
        command.add_argument("--group", type=int, default=GROUP, metavar="N",
                             help="build batches from runs of up to N pairs of one file (default "
                                  "%(default)s; 0: a plain shuffle)")
        command.add_argument("--stop", type=int, default=STOP,
                             help="end after this step of the epoch's schedule (default %(default)s; 0: the whole epoch)")
    fit.add_argument("--seed", type=int, default=SEED)
    mix_ = sub.add_parser("mix", help="average the trained model's weights with its base model's")
    ship_ = sub.add_parser("ship", help="write the trained model into the package")
    for command in (every, mix_, ship_):
        command.add_argument("--alpha", type=float, default=ALPHA,
                             help="the trained model's share of the weight average (default %(default)s; 1: no mixing)")
    for command in (every, ship_):
        command.add_argument("--name", default=SHIPPED_NAME)
    for command in (mix_, ship_):
        command.add_argument("--model", type=Path, help="a model directory (default: the work directory's model)")
    env = sub.add_parser("env", help="compare this machine's training environment with a shipped model's")
    env.add_argument("training", type=Path, nargs="?", help=f"a training.json (default: {SHIPPED_NAME}'s)")
    from train.distill import PCA_DIMS

    distill_ = sub.add_parser("distill", help="distill the shipped encoder into a static embedding")
    distill_.add_argument("--base", default=SHIPPED_NAME, help="the shipped encoder (default %(default)s)")
    distill_.add_argument("--name", default=STATIC_NAME, help="the static model's folder (default %(default)s)")
    distill_.add_argument("--pca-dims", type=int, default=PCA_DIMS, help="dimensions kept (default %(default)s)")
    args = parser.parse_args(argv)
    if args.command == "distill":
        return command_distill(args)
    if args.command == "env":
        return command_env(args)
    if args.command == "mine":
        return command_mine(args)
    if args.command == "debian-list":
        return command_debian_list(args)
    if args.command == "check":
        return command_check(args)
    if args.command == "balance":
        return command_balance(args)
    if args.command == "fit":
        return command_fit(args)
    if args.command == "mix":
        return command_mix(args)
    if args.command == "ship":
        return command_ship(args)
    args.model = None
    steps = [note_environment, command_mine, command_fit] + ([command_mix] if args.alpha < 1.0 else []) + [command_ship]
    return next((code for code in (step(args) for step in steps) if code), 0)
