"""branchwise: branch-aware, version-verified code search.

The core library. Importing it never imports Textual or torch; the review app and the
command line are separate packages above it, and the model loads only when something is
embedded. `branchwise.workspace.Workspace` is its service API.
"""

__version__ = "0.1.0"
