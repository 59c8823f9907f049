"""Every benchmark result records what its figures depend on, the int8 kernels included.

The default model runs as an int8 ONNX export, and ONNX Runtime picks its int8 kernels by the
CPU's vector extensions: the same texts give vectors that differ in their last digits on an AVX2
machine and on a VNNI one, enough to move a question's rank. A result that names only the CPU
model cannot be told apart from one that moved with the code.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import INT8_FEATURES, machine  # noqa: E402


def test_the_machine_record_names_the_onnx_runtime_and_the_int8_features_of_this_cpu():
    record = machine()
    assert record["onnxruntime"] == version("onnxruntime")
    cpuinfo = Path("/proc/cpuinfo")
    flags = set()
    if cpuinfo.is_file():
        flags = {flag for line in cpuinfo.read_text().splitlines() if line.startswith("flags")
                 for flag in line.split(":", 1)[1].split()}
    assert record["int8_features"] == [feature for feature in INT8_FEATURES if feature in flags]
    assert record["cpu"] and record["cores"] >= 1
