"""`branchwise index`: bring branches up to date, with the index's maintenance."""

from __future__ import annotations

from branchwise_cli.common import EXIT_OK, backend, print_json, progress_bar, workspace

NAME = "index"
HELP = "index branches of a repository (incrementally)"


def add_arguments(p) -> None:
    p.add_argument("repo", help="path to the git repository")
    p.add_argument("--branch", action="append", default=[], help="branch to index (repeatable)")
    p.add_argument("--all-branches", action="store_true", help="index every local branch")
    p.add_argument("--index", help="index directory (default: inside the repository's .git)")
    p.add_argument("--wait", action="store_true", help="wait for another writer instead of failing")
    p.add_argument("--prune", action="store_true", help="forget indexed branches that no longer exist")
    p.add_argument("--gc", action="store_true", help="remove unused versions past their retention")
    p.add_argument("--rebuild", action="store_true", help="rebuild the vectors (file or server) from the database")
    backend(p)
    p.add_argument("--json", action="store_true")


def run(args) -> int:
    ws = workspace(args)
    report = ws.index(args.branch, args.all_branches, progress=progress_bar(), wait=args.wait,
                      prune=args.prune, gc=args.gc, rebuild=args.rebuild)
    if args.json:
        data: dict[str, object] = {"repository": ws.repo.name, "index": str(ws.index_dir),
                "branches": [s.to_json() for s in report]}
        if report.gc_removed is not None:
            data["gc_removed_versions"] = report.gc_removed
        print_json(data)
    else:
        for s in report:
            print(f"{s.branch} @ {s.commit[:7]}: {s.files_parsed} files parsed, {s.versions_added} new versions, "
                  f"{s.embedded} embedded, {s.reused} reused, {s.tombstoned} tombstoned "
                  f"({s.base}; {s.seconds:.1f}s)")
        if report.gc_removed is not None:
            print(f"gc: removed {report.gc_removed} unused versions")
    return EXIT_OK
