"""The `branchwise` command line: argument parsing and printing over `branchwise.Workspace`.

It sits above the core library (`branchwise`) and the review app (`branchwise_tui`) and is
the only place that composes them, so the core never needs to know the app exists. One
module per command under `commands/`, listed in `registry.py`.
"""
