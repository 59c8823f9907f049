"""The repository layer: every read of git, and the rules that keep it safe.

`repo.GitRepo` (refs, trees, blobs, diffs, the work tree), `branches` (local and
remote-tracking branch names as one set), `names` (paths and branch names as text),
`safety` (the environment every git process runs in: a repository runs no command),
`standpoint` (the repository and branch the user stands on). It imports no other layer.
"""
