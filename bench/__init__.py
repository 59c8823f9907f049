"""branchwise's benchmark suite: `python -m bench` (full) or `python -m bench --quick` (CI).

One module per benchmark item; each exposes `run(...) -> dict` and measures every figure
against a baseline taken in the same run. See bench/__main__.py for the sizes.
"""
