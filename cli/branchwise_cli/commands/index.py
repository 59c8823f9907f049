"""`branchwise index`: bring branches up to date, with the index's maintenance."""

from __future__ import annotations

import sys

from branchwise.review.status import ref_words
from branchwise_cli.common import EXIT_OK, backend, echo, echo_text, index_option, json_option, print_json, workspace
from branchwise_cli.progress import BranchWatch, make_progress

NAME = "index"
#: the exit status of a run stopped by Ctrl-C (128 + SIGINT), as the shell's
EXIT_INTERRUPTED = 130
HELP = "index branches of a repository (incrementally)"


def add_arguments(p) -> None:
    p.add_argument("repo", nargs="?",
                   help="path to the git repository (default: the one around the current directory)")
    p.add_argument("--branch", action="append", default=[], metavar="NAME",
                   help="branch to index (repeatable): a local or remote-tracking branch (`release/v2`, "
                        "`origin/release/v2`) or a pattern (`'release/*'`); default: the checked-out branch")
    p.add_argument("--all-branches", action="store_true",
                   help="index every branch: local ones, and remote-tracking ones no local branch shares a "
                        "name with (a fresh clone's release lines)")
    p.add_argument("--tag", action="append", default=[], metavar="NAME",
                   help="also index this tag (repeatable), as a branch named after it")
    index_option(p)
    p.add_argument("--wait", action="store_true", help="wait for another writer instead of failing")
    p.add_argument("--prune", action="store_true", help="forget indexed branches that no longer exist")
    p.add_argument("--gc", action="store_true", help="remove unused versions past their retention")
    p.add_argument("--rebuild", action="store_true", help="rebuild the vectors (file or server) from the database")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--background", action="store_true",
                       help="return once the branches are searchable; a detached worker embeds the rest "
                            "(`branchwise status` shows its progress); the default on a terminal when the "
                            "static stage makes them searchable by every channel first")
    where.add_argument("--foreground", action="store_true",
                       help="embed with the transformer before returning, also on a terminal (the default "
                            "when output goes to a file or a pipe)")
    p.add_argument("--stale-only", action="store_true",
                   help="only re-parse files whose records failed verification, at the indexed commit")
    backend(p)
    json_option(p)
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress display and no per-branch lines (errors still go to stderr)")


def files_words(s) -> str:
    """"206 files changed (100 parsed, 106 removed)": the count the progress display showed,
    then what became of those files."""
    left_out = sum(s.left_out.values())
    parts = [f"{n} {word}" for n, word in ((s.files_parsed, "parsed"), (s.files_removed, "removed"),
                                           (left_out, "left out")) if n]
    return f"{s.files_changed} files changed" + (f" ({', '.join(parts)})" if parts else "")


def _in_background(args, ws) -> bool:
    """Where the transformer stage runs: as asked, else in a detached worker when a person
    watches (a terminal) and a static stage makes the branches searchable by every channel
    the moment they are stored; a script (output to a file or a pipe) gets its index whole."""
    if args.background or args.foreground:
        return args.background
    watched = sys.stdout.isatty() and sys.stderr.isatty() and not args.json
    return watched and ws.backend.kind == "faiss" and ws.static_embedder is not None


def run(args) -> int:
    ws = workspace(args)
    progress = make_progress(args.quiet)
    watch = BranchWatch(progress)
    try:
        report = ws.index(args.branch, args.all_branches, progress=watch, wait=args.wait,
                          prune=args.prune, gc=args.gc, rebuild=args.rebuild,
                          stale_only=args.stale_only, background=_in_background(args, ws), tags=args.tag)
    except KeyboardInterrupt:
        if progress is not None:
            progress.close(interrupted=True)
        echo(f"branchwise: interrupted; {watch.kept()}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if progress is not None:
            progress.close()
    if not args.branch and not args.all_branches and not args.tag:
        note = ws.standpoint().note
        if note:
            echo(f"branchwise: {note}", file=sys.stderr)
    if report.recipe_change is not None:
        echo_text(report.recipe_change.message(), file=sys.stderr)
    if report.model_change is not None:
        echo_text(report.model_change.message(), file=sys.stderr)
    if args.json:
        data: dict[str, object] = {"repository": ws.repo.name, "index": str(ws.index_dir),
                "branches": [s.to_json() for s in report]}
        if report.gc_removed is not None:
            data["gc_removed_versions"] = report.gc_removed
        if report.recipe_change is not None:
            data["embedding_recipe_change"] = report.recipe_change.to_json()
        if report.model_change is not None:
            data["embedding_model_change"] = report.model_change.to_json()
        data["embedding"] = report.embedding
        print_json(data)
    elif not args.quiet:
        for s in report:
            source = ref_words(s.ref)
            echo(f"{s.branch} @ {s.commit[:7]}{source}: {files_words(s)}, {s.versions_added} new versions, "
                  f"{s.embedded} embedded, {s.reused} reused, {s.tombstoned} tombstoned "
                  f"({s.base}; {s.seconds:.1f}s)")
            if s.unreadable_files:
                shown = ", ".join(s.unreadable_files[:5])
                more = f" and {len(s.unreadable_files) - 5} more" if len(s.unreadable_files) > 5 else ""
                echo(f"  skipped {len(s.unreadable_files)} file(s) whose blob is missing from the object store "
                     f"(indexed the rest; `branchwise status` lists them): {shown}{more}")
        if report.gc_removed is not None:
            echo(f"gc: removed {report.gc_removed} unused versions")
        if report.embedding["background"]:
            echo(f"searchable now; embedding {report.embedding['missing_texts']:,} texts of "
                 f"{report.embedding['missing_versions']:,} versions in the background",
                 f"  (worker {report.embedding['worker_pid']}; its progress: `branchwise status`"
                 f"{'' if args.background else '; `--foreground` waits for it'})")
    return EXIT_OK
