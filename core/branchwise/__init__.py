"""branchwise: branch-aware, version-verified code search.

The core library. Importing it never imports Textual or torch; the review app lives in
the separate `branchwise_tui` package and the model loads only when something is embedded.
"""

__version__ = "0.1.0"
