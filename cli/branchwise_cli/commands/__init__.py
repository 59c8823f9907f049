"""One module per command. Each defines `NAME`, `HELP`, `add_arguments(parser)` and
`run(args) -> int` (an exit code), and keeps heavy imports inside `run` so that building the
parser stays cheap. A handler parses nothing itself: it calls one `Workspace` method and
prints the answer (text by default, the JSON contract with `--json`)."""
