"""The size of a user's install against the development environment, measured in one run.

`python -m bench.install_size [--out DIR] [--label NAME]`

A user installs the wheel (`pipx install .`): the default dependencies only, no torch. The
development `.venv` holds the torch CPU build, sentence-transformers and the test tools. This
builds the wheel, installs it into a new virtual environment exactly as tests/test_clean_install.py
does, and reports both sizes on disk (`du`), the ratio, the largest packages of each, and
whether torch is importable in the clean one. Writes `<date>-install-size[-NAME].{md,json}` to DIR.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def du(path: Path) -> int:
    return int(subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True).stdout.split()[0])


def largest(site: Path, n: int = 8) -> list[tuple[str, int]]:
    sizes = [(p.name, du(p)) for p in site.iterdir() if p.is_dir() and not p.name.endswith(".dist-info")]
    return sorted(sizes, key=lambda item: -item[1])[:n]


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def run(work: Path) -> dict:
    wheels = work / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
                    str(ROOT)], check=True)
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    wheel = next(wheels.glob("branchwise-*.whl"))
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    str(wheel)], check=True)
    torch = subprocess.run([str(venv / "bin" / "python"), "-c", "import torch"], capture_output=True).returncode == 0
    dev = Path(sys.prefix)  # the environment running this: the development .venv
    clean_size, dev_size = du(venv), du(dev)
    return {"clean_install_bytes": clean_size, "dev_venv_bytes": dev_size, "ratio": round(clean_size / dev_size, 3),
            "torch_importable_in_clean": torch, "wheel_bytes": wheel.stat().st_size,
            "largest_clean": largest(site_packages(venv)), "largest_dev": largest(site_packages(dev))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--label", default="", help="added to the file names (a second run on one day)")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as work:
        figures = run(Path(work))
    figures["commit"] = commit
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d") + "-install-size" + (f"-{args.label}" if args.label else "")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stamp}.json").write_text(json.dumps(figures, indent=2) + "\n")
    mb = 1024 * 1024
    lines = [f"# Install size (commit {commit})", "",
             f"- clean `pip install` of the wheel: {figures['clean_install_bytes'] / mb:.0f} MB "
             f"(wheel {figures['wheel_bytes'] / mb:.1f} MB); torch importable there: {figures['torch_importable_in_clean']}",
             f"- development `.venv` (torch CPU, sentence-transformers, test tools): {figures['dev_venv_bytes'] / mb:.0f} MB",
             f"- ratio: {figures['ratio']:.3f} (goal: at most 0.25)", "",
             "| largest in the clean install | MB | largest in .venv | MB |", "|---|---|---|---|"]
    for (a, sa), (b, sb) in zip(figures["largest_clean"], figures["largest_dev"]):
        lines.append(f"| {a} | {sa / mb:.1f} | {b} | {sb / mb:.1f} |")
    (args.out / f"{stamp}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
