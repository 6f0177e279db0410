"""One `senet-pi run` per journal: a lock file beside the journal, held for as long as the run lasts.

Two runs writing one journal both give out the same game ids and input numbers, and one of them
loses its writes. The second run is refused at start, in one line that names the first by its
pid. The lock is the kernel's (flock), so a run that is killed or crashes lets go of it at once:
no stale lock file to clear by hand.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ..errors import JournalInUse, SenetError


class RunLock:
    """`<journal>-lock`, locked while this process runs the service on the journal."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.path = journal.with_name(journal.name + "-lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or JournalInUse naming the run that holds it; SenetError when the file
        beside the journal cannot be made (a folder that is not writable)."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise SenetError(f"cannot use the journal {self.journal}: {self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise JournalInUse(
                f"the journal {self.journal} is in use by another senet-pi run (pid {holder}): stop that one first, "
                "or give this one another --journal"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Let go of the lock (the file stays: removing it would race with a run starting now)."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None
