"""`branchwise hooks install|uninstall|status`: git hooks that keep the index fresh by themselves."""

from __future__ import annotations

from branchwise_cli.common import EXIT_OK, echo, index_option, json_option, print_json, repo_option, workspace

NAME = "hooks"
HELP = "install, remove or inspect the git hooks that refresh the index in the background"


def add_arguments(p) -> None:
    p.add_argument("action", choices=("install", "uninstall", "status"),
                   help="install or uninstall the refresh hooks, or show their state and the last refresh")
    repo_option(p)
    index_option(p)
    json_option(p)


def run(args) -> int:
    ws = workspace(args)
    if args.action == "status":
        data = ws.hooks.status()
        if args.json:
            print_json(data)
        else:
            _print_status(data)
        return EXIT_OK
    done = ws.hooks.install() if args.action == "install" else ws.hooks.uninstall()
    if args.json:
        print_json({"action": args.action, "hooks": done})
    else:
        for name, what in done.items():
            echo(f"{name}: {what}")
    return EXIT_OK


def _print_status(data: dict) -> None:
    state = "installed" if data["installed"] else "not installed"
    echo(f"hooks: {state} in {data['hooks_dir']}")
    for name, what in data["hooks"].items():
        echo(f"  {name}: {what}")
    last = data["last_refresh"]
    if last is None:
        echo("last refresh: none yet")
    else:
        when = last.get("finished") or last.get("started")
        echo(f"last refresh: {last['outcome']} at {when} ({last['hook']} on {last.get('branch')})"
              + (f": {last['message']}" if last.get("message") else ""))
    echo(f"log: {data['log']}")
