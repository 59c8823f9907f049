"""Errors that reach the user as one clear line, with the exit code of the CLI contract.

Anything raised as a `BranchwiseError` is printed without a traceback; exit code 2 means bad
usage or input, 1 means the work itself failed.
"""


class BranchwiseError(Exception):
    """A failure the user can act on; `str(error)` is the one line they see."""

    exit_code = 1


class UsageError(BranchwiseError):
    """Bad usage or input: an unknown branch, a path that is not a repository, a bad file."""

    exit_code = 2


class IndexLockedError(BranchwiseError):
    """Another process is writing the index."""

    exit_code = 1


class AccessDeniedError(UsageError):
    """The access file does not let this user read the repository (exit 2: wrong input)."""
