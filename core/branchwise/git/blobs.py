"""Reading blobs out of a repository's object store, one by one or streamed by the thousand.

An index run reads every file of a branch and a search reads the few it shows; both go to
`git cat-file --batch` (a long-lived one for single reads, one per stream), and a partial
clone's missing objects are found without letting git fetch them. GitRepo (repo.py) takes
these methods from here so that module keeps to refs, trees, diffs and the work tree.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Callable, Generator, Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

from branchwise.errors import BranchwiseError
from branchwise.git.blob_memo import BlobMemo
from branchwise.git.command import CatFile

#: up to this many objects, a partial clone is asked about each one (else it lists all it holds)
_FEW_OBJECTS = 32


class BlobReading:
    """GitRepo's blob reads; GitRepo provides `name` and what is declared here."""

    @property
    def name(self) -> str:
        raise NotImplementedError

    git_dir: Path
    _env: dict[str, str]
    _cwd: Path
    _opening: tuple[object, list[str]]
    _blobs: BlobMemo
    _git: Callable[..., Any]
    _git_or_none: Callable[..., str | None]

    def read_blob(self, blob: str) -> bytes:
        """A blob's bytes; ValueError when the object store lacks it. The id names the bytes,
        so the last ones read are kept (blob_memo.py): a warm server reads the same files again."""
        kept = self._blobs.get(blob)
        if kept is not None:
            return kept
        if self.partial_clone and self.absent_objects([blob]):
            raise ValueError(f"blob {blob} is missing from the object store of {self.name}")
        return self._blobs.put(blob, self._cat_file.read(blob))

    @cached_property
    def _cat_file(self) -> CatFile:
        return CatFile(self._env, self._cwd)

    def close(self) -> None:
        """End the object reader's git process, if one started (a later read starts another)."""
        reader = self.__dict__.pop("_cat_file", None)
        if reader is not None:
            reader.close()

    @cached_property
    def partial_clone(self) -> bool:
        """A clone made with `--filter`: objects it lacks belong to a promisor remote (no git
        process when the configuration read at opening has neither setting)."""
        if not any(key == "extensions.partialclone" or (key.startswith("remote.") and key.endswith(".promisor"))
                   for key in self._opening[1]):
            return False
        out = self._git_or_none("config", "--get-regexp", r"^(extensions\.partialclone|remote\..*\.promisor)$")
        if out is None:  # neither is set
            return False
        return any(value.strip().lower() not in ("false", "no", "off", "0")
                   for _key, _, value in (line.partition(" ") for line in out.splitlines()))

    def absent_objects(self, ids: list[str]) -> frozenset[str]:
        """Of `ids`, those a partial clone does not hold (empty for any other repository, whose
        `cat-file --batch` answers `missing`). Git would fetch such an object from the promisor
        remote, which branchwise never lets it reach, and a `cat-file --batch` that fails to
        fetch ends (git before 2.40), so objects are looked up without asking for them."""
        if not self.partial_clone or not ids:
            return frozenset()
        if len(ids) <= _FEW_OBJECTS:  # one short process each (a refused fetch is quick)
            return frozenset(oid for oid in ids if not self._holds(oid))
        wanted = set(ids)
        process = subprocess.Popen(["git", "cat-file", "--batch-all-objects", "--batch-check=%(objectname)",
                                    "--unordered"], cwd=self.git_dir, stdout=subprocess.PIPE,
                                   env={**os.environ, **self._env})
        assert process.stdout is not None
        with process.stdout:
            for line in process.stdout:
                wanted.discard(line.strip().decode("ascii", "replace"))
        process.wait()
        return frozenset(wanted)

    def _holds(self, oid: str) -> bool:
        return self._git_or_none("cat-file", "-e", oid) is not None

    def read_blobs(self, blobs: list[str]) -> dict[str, bytes]:
        """Many blobs in one `git cat-file --batch` run (one round trip, not one per blob);
        a blob the repository does not have is left out."""
        ids = list(dict.fromkeys(blobs))
        absent = self.absent_objects(ids)
        ids = [blob for blob in ids if blob not in absent]
        if not ids:
            return {}
        with tempfile.TemporaryFile() as request:
            request.write("".join(f"{blob}\n" for blob in ids).encode())
            request.seek(0)
            out = self._git("cat-file", "--batch", istream=request, stdout_as_string=False)
        found: dict[str, bytes] = {}
        position = 0
        for blob in ids:
            end = out.index(b"\n", position)
            header = out[position:end].split()
            position = end + 1
            if len(header) < 3 or header[1] == b"missing":
                continue
            size = int(header[2])
            found[blob] = out[position:position + size]
            position += size + 1
        return found

    def iter_blobs(self, blobs: Iterable[str]) -> Generator[tuple[str, bytes | None], None, None]:
        """Each blob's bytes, in the order asked (None for a blob the repository does not have),
        from one `git cat-file --batch` process for the whole list: a thread writes the ids
        while the caller reads, so git streams ahead of the caller by a pipe's buffer and only
        the blob being read is held in memory, however many there are."""
        ids = list(blobs)
        absent = self.absent_objects(ids)
        if not absent:
            yield from self._stream_blobs(ids)
            return
        present = self._stream_blobs([blob for blob in ids if blob not in absent])
        try:
            for blob in ids:
                yield (blob, None) if blob in absent else next(present)
        finally:
            present.close()

    def _stream_blobs(self, ids: list[str]) -> Generator[tuple[str, bytes | None], None, None]:
        if not ids:
            return
        process = subprocess.Popen(["git", "cat-file", "--batch"], cwd=self.git_dir, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, env={**os.environ, **self._env})
        assert process.stdin is not None and process.stdout is not None
        requests, replies = process.stdin, process.stdout

        def feed() -> None:
            try:
                for blob in ids:
                    requests.write(f"{blob}\n".encode())
                requests.close()
            except (OSError, ValueError):  # git exited, or the caller stopped reading
                pass

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        try:
            for blob in ids:
                header = replies.readline().split()
                if len(header) < 3 or header[1] == b"missing":
                    if not header:  # git died: no later answer will come either
                        raise BranchwiseError(f"git cat-file stopped before blob {blob} of {self.name}")
                    yield blob, None
                    continue
                size = int(header[2])
                data = replies.read(size)
                replies.read(1)  # the newline after each object
                yield blob, data
        finally:
            replies.close()
            if process.poll() is None:
                process.kill()
            process.wait()
            feeder.join()
