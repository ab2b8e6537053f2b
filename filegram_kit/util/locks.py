"""Advisory file locks between processes: one writer of a results folder, one computer of a cache entry.

    with exclusive(out / ".lock", wait=False, what=f"results folder {out}"):   # a second run refuses
        ...
    with exclusive(entry.with_suffix(".lock")):                                # a second one waits
        ...

POSIX `flock` on a small lock file that holds the holder's pid (for the message); the lock goes with the
process, so a killed holder never leaves a stale lock. Where `fcntl` is missing (Windows) nothing is locked:
the writes the locks guard are atomic on their own, only the serialisation is lost.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class Locked(RuntimeError):
    """Another process holds the lock (wait=False)."""


@contextmanager
def exclusive(path: str | Path, *, wait: bool = True, what: str = "") -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if needed). wait=False: raise `Locked` naming `what`, the lock
    file and the holder's pid when another process holds it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip() or "?"
                raise Locked(f"{what or path} is in use by another process (pid {holder}; lock {path}): wait for "
                             "it to finish, or use another folder") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
