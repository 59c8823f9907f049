"""The commands of `branchwise`, in the order `--help` lists them: a module name under
`branchwise_cli.commands` per line (a new command is a new module plus one line here)."""

COMMANDS = [
    "index",
    "search",
    "inspect",
    "verify",
    "review",
    "export",
    "stats",
    "labels",
    "diff",
    "tour",
    "hooks",
    "status",
    "mcp",
    "config",
    "completion",
]
