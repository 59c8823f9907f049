"""One OpenBLAS thread for the commands that do no sizeable linear algebra, set before numpy loads.

numpy's OpenBLAS and FAISS's each start a thread per core when they load. A `search`, `status`
or `verify` multiplies nothing large (a question's vector against a flat index is no matrix
product), yet on a 2-core machine starting those threads cost a cold search about 50 ms. The
commands that may index (`index`, `diff`, `mcp`, `review`, `tour`, `hooks`: an inverted file is
trained with BLAS) keep the default, and a value the user set is never changed.
"""

from __future__ import annotations

import os
import sys

#: commands that only read the index: their process never trains or multiplies matrices
READ_ONLY = frozenset({"search", "inspect", "verify", "export", "stats", "status", "labels", "config", "completion"})


def limit(argv: list[str]) -> None:
    """Ask for one OpenBLAS thread when `argv` runs a read-only command (numpy not loaded yet)."""
    if argv[:1] and argv[0] in READ_ONLY and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
