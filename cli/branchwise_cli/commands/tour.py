"""`branchwise tour`: check, fix, show, record, import-codetour, export-codetour.

`check` (and `fix`, for what it leaves) exits 1 when any step is no longer `current` or
`unchanged-older`, so a team can run it in CI next to its tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from branchwise.errors import UsageError
from branchwise.review.outfiles import refuse_overwrite
from branchwise.review.tours import TourCheck, fix_tour, load_tour, resolve_tour_path
from branchwise.wording import plural
from branchwise_cli.common import (EXIT_FAILED, EXIT_OK, as_user, backend, echo, index_option, json_option, print_json,
                                   workspace)

NAME = "tour"
HELP = "code tours anchored on symbols: check, fix, show, record, CodeTour"
OWN_HELP = True  # `tour ACTION --help` prints that action's own help (_ActionHelp)
ACTIONS = ("check", "fix", "show", "record", "import-codetour", "export-codetour")


#: each action's own help: what it does, and the options of its own (the rest are common)
ACTION_HELP = {
    "check": ("check every step against the branch; exit 1 when a step is neither current nor "
              "unchanged-older", {"--branch", "--json"}),
    "fix": ("re-anchor the steps that moved, were renamed or shifted lines; exit 1 when a step needs "
            "a human", {"--branch"}),
    "show": ("print each step's note, citation header and code as the branch has it now", {"--branch", "--json"}),
    "record": ("write a new tour from the checked-out code (or the use-labelled review results)",
               {"--branch", "--from-labels", "--query", "--title", "--force"}),
    "import-codetour": ("turn a VS Code CodeTour file (TOUR) into a tour anchored on symbols",
                        {"--out", "--force"}),
    "export-codetour": ("write the tour as a VS Code CodeTour file, lines as of the branch",
                        {"--branch", "--out", "--force"}),
}
_OWN = {flag for _what, flags in ACTION_HELP.values() for flag in flags}


def add_arguments(p) -> None:
    p.add_argument("-h", "--help", action=_ActionHelp, help="show this help (after an action: its own) and exit")
    p.add_argument("action", choices=ACTIONS, help="what to do with the tour")
    p.add_argument("tour", metavar="TOUR", help="a tour file, or a name under .branchwise/tours/ "
                   "(import-codetour: the .tour file to read)")
    _options(p)


def _options(p, own: set[str] = _OWN) -> None:
    """The options, those of the actions limited to `own` (the common ones always)."""
    def option(flag: str, **kwargs) -> None:
        if flag not in _OWN or flag in own:
            p.add_argument(flag, **kwargs)

    option("--repo", metavar="REPO", help="path to the git repository (default: the one around the current directory)")
    option("--branch", help="branch to check against (default: the checked-out branch)")
    index_option(p)
    option("--out", help="import-codetour: the tour to write; export-codetour: the .tour file")
    option("--from-labels", action="store_true", help="record: the use-labelled review results")
    option("--query", help="record --from-labels: the reviewed query (its results in rank order)")
    option("--title", help="record: the tour's title (default: from the file name)")
    option("--force", action="store_true",
           help="record, import-codetour: overwrite an existing tour; export-codetour: an existing .tour file")
    backend(p)
    as_user(p)
    if "--json" not in _OWN or "--json" in own:
        json_option(p)


class _ActionHelp(argparse.Action):
    """`--help`: the tour command's help, or after an action (`tour record --help`) that action's."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        action = getattr(namespace, "action", None)
        if action not in ACTION_HELP:
            parser.print_help()
            parser.exit()
        what, own = ACTION_HELP[action]
        helper = argparse.ArgumentParser(prog=f"{parser.prog} {action}", description=what)
        helper.add_argument("tour", metavar="TOUR", help="the .tour file to read" if action == "import-codetour"
                            else "a tour file, or a name under .branchwise/tours/")
        _options(helper, own)
        helper.print_help()
        parser.exit()


def run(args) -> int:
    action = args.action.replace("-", "_")
    return globals()[f"_{action}"](args, workspace(args))


def _branch(args, workspace) -> str:
    if args.branch is None:
        point = workspace.standpoint()
        if point.note:
            echo(f"branchwise: {point.note}", file=sys.stderr)
        return point.branch
    return workspace.repo.branch_name(args.branch)


def _tour_path(args, workspace) -> Path:
    return resolve_tour_path(args.tour, workspace.repo.work_tree)


def _checked(args, workspace) -> TourCheck:
    return workspace.check_tour(load_tour(_tour_path(args, workspace)), _branch(args, workspace))


def _check(args, workspace) -> int:
    check = _checked(args, workspace)
    if args.json:
        print_json(check.to_json())
    else:
        echo(f"{check.tour.title}: {plural(len(check.steps), 'step')} against {check.target}")
        for item in check.steps:
            where = f"{item.path}#L{item.start_line}-L{item.end_line}" if item.path else "(gone)"
            echo(f"  {item.number:>2}. {item.verdict.value:<15} {item.status:<13} {item.step.anchor} -> {where}")
            echo(f"      {item.reason}")
    return EXIT_FAILED if check.decayed else EXIT_OK


def _fix(args, workspace) -> int:
    check = _checked(args, workspace)
    verifier = workspace.verifier(check.branch)
    fixed, left, anchored = fix_tour(check, verifier.dirty.paths())
    path = check.tour.save()
    for item in anchored:
        echo(f"anchored step {item.number}: {item.step.anchor} at {item.path} ({item.qualified_name}) "
             f"L{item.start_line}-L{item.end_line}, {check.target}")
    for item in fixed:
        echo(f"re-anchored step {item.number} ({item.status}): {item.step.anchor} -> "
              f"{item.path} ({item.qualified_name}) L{item.start_line}-L{item.end_line}")
    for item in left:
        echo(f"needs a human: step {item.number} ({item.verdict.value}): {item.step.anchor}: {item.reason}")
    echo(f"wrote {path} ({len(anchored)} anchored, {len(fixed)} re-anchored, {len(left)} left)")
    return EXIT_FAILED if left else EXIT_OK


def _show(args, workspace) -> int:
    from branchwise.review.tours.render import render_show

    check = _checked(args, workspace)
    if args.json:
        print_json(check.to_json())
    else:
        echo(*render_show(check, workspace.repo).split("\n"))
    return EXIT_OK


def _record(args, workspace) -> int:
    from branchwise.review.tours.record import record_tour

    path = _tour_path(args, workspace)
    if args.query and not args.from_labels:
        raise UsageError("--query goes with --from-labels")
    title = args.title or path.stem.replace("-", " ").replace("_", " ")
    refuse_overwrite(path, args.force)  # record: an existing tour is kept without --force
    tour = record_tour(workspace, _branch(args, workspace), title, args.from_labels, args.query)
    tour.save(path)
    echo(f"wrote {path} ({plural(len(tour.steps), 'step')})")
    return EXIT_OK


def _import_codetour(args, workspace) -> int:
    from branchwise.review.tours.codetour import import_codetour, read_codetour

    if not args.out:
        raise UsageError("import-codetour needs --out TOUR (the tour to write)")
    out = resolve_tour_path(args.out, workspace.repo.work_tree)
    _refuse_overwrite(out, args.force)
    tour, skipped = import_codetour(workspace.repo, read_codetour(Path(args.tour)), workspace.config.chunking_rules())
    path = tour.save(out)
    for message in skipped:
        echo(f"skipped {message}")
    echo(f"wrote {path} ({plural(len(tour.steps), 'step')})")
    return EXIT_OK


def _export_codetour(args, workspace) -> int:
    from branchwise.review.tours.codetour import export_codetour, write_codetour

    if not args.out:
        raise UsageError("export-codetour needs --out FILE.tour")
    _refuse_overwrite(Path(args.out), args.force)
    check = _checked(args, workspace)
    data, warnings = export_codetour(check)
    write_codetour(data, Path(args.out))
    for warning in warnings:
        echo(warning)
    echo(f"wrote {args.out} ({len(data['steps'])} of {plural(len(check.steps), 'step')}, lines as of {check.target})")
    return EXIT_OK


def _refuse_overwrite(out: Path, force: bool) -> None:
    if out.is_dir():
        raise UsageError(f"{out} is a directory")
    if out.exists() and not force:
        raise UsageError(f"{out} exists; pass --force to overwrite it")
