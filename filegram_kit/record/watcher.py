"""Record a real folder with watchdog into the same trajectory layout the engine writes.

    with Recording("~/thesis", "data/real") as rec:   # or rec = Recording(...).start()
        ...                                          # work in ~/thesis as usual
        rec.tail(5)                                  # the last observations, e.g. from a notebook
    rec.trajectories                                 # data/real/signal/<id>/ folders

`start()` finalises journals a crashed recording left in `out`, starts the observer, then records a
`baseline` observation (with content) for every file already there, so later edits diff against it.
Every observation is appended (fsync'ed) to `out/.journal/`; `stop()` turns them into sessions with
`translate.write_sessions` and marks the journal finalised. `sync()` waits until every file operation
made before it is in the journal (it writes a hidden fence file and waits for its event).

What each platform reports (watchdog backends): Linux inotify reports creates, writes (read once the
writer closes the file), moves with both ends, deletes, new directories and reads (a file closed
without writing). macOS FSEvents and Windows report creates, modifications, moves and deletes but no
reads; content is read at each create/modify event. `backend="polling"` (network drives) compares
snapshots every `poll_interval` seconds: no reads, and operations between two polls merge.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

from .journal import Journal, recover
from .observations import Observation
from .privacy import FENCE_PREFIX, PrivacyPolicy
from .watch_handler import RecordingHandler

BACKENDS = ("auto", "inotify", "native", "polling")
_fence_ids = itertools.count()


def make_observer(backend: str = "auto", *, poll_interval: float = 1.0) -> tuple[Any, bool]:
    """(watchdog observer, whether it reports close events). "native" = the platform's default observer."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if backend == "polling":
        from watchdog.observers.polling import PollingObserver

        return PollingObserver(timeout=poll_interval), False
    if backend == "inotify" or (backend == "auto" and sys.platform.startswith("linux")):
        from watchdog.observers.inotify import InotifyObserver

        # watchdog's inotify backend warns when a quickly nested new folder (`mkdir -p a/b`) gets its watch
        # twice; it replaces the first watch and nothing is lost, so the warning is only noise for users
        warnings.filterwarnings("ignore", message=r"Callback with id .* already exists", category=RuntimeWarning,
                                module=r"watchdog\.observers\.inotify")
        # full events: a move from/to outside the folder arrives as a move with one empty end
        return InotifyObserver(generate_full_events=True), True
    from watchdog.observers import Observer

    return Observer(), False


class Recording:
    """A live recording of `folder`; trajectories and journals go to `out` (see module docstring)."""

    def __init__(self, folder: str | Path, out: str | Path, *, policy: PrivacyPolicy | None = None,
                 name: str = "me", idle_gap_ms: float = 1_800_000, debounce_ms: float = 1_000, seed: int = 0,
                 backend: str = "auto", poll_interval: float = 1.0, keep_folder_path: bool = False):
        self.folder = Path(folder).expanduser().resolve()
        if not self.folder.is_dir():
            raise NotADirectoryError(f"Recording: folder {folder!s} is not a directory")
        self.out = Path(out).expanduser().resolve()
        if self.out == self.folder:
            raise ValueError(f"Recording: out {out!s} is the recorded folder itself; choose another folder")
        own = (self.out.relative_to(self.folder).as_posix(),) if self.out.is_relative_to(self.folder) else ()
        self.policy = (policy or PrivacyPolicy()).bind(self.folder, own=own)
        self.name, self.idle_gap_ms, self.debounce_ms, self.seed = name, idle_gap_ms, debounce_ms, seed
        if backend not in BACKENDS:
            raise ValueError(f"Recording: backend {backend!r}: expected one of {', '.join(BACKENDS)}")
        self.backend, self.poll_interval, self.keep_folder_path = backend, poll_interval, keep_folder_path
        self.state = "new"
        self.started_ms: float | None = None
        self.recovered: list[Path] = []
        self.trajectories: list[Path] | None = None
        self._observations: list[Observation] = []
        self._journal: Journal | None = None
        self._observer: Any = None
        self._handler: RecordingHandler | None = None

    def __repr__(self) -> str:
        return f"Recording({self.folder.name!r}, state={self.state!r}, observations={len(self._observations)})"

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> Recording:
        if self.state != "new":
            raise RuntimeError(f"Recording of {self.folder.name}: already {self.state}")
        self.recovered = recover(self.out)
        self.started_ms = time.time() * 1000
        self._journal = Journal.create(self.out, self._settings())
        observer, close_events = make_observer(self.backend, poll_interval=self.poll_interval)
        self._handler = RecordingHandler(self.folder, self.policy, self._emit, close_events=close_events)
        observer.schedule(self._handler, str(self.folder), recursive=True)
        observer.start()  # watches are in place when this returns; events queue behind the baseline
        self._observer, self.state = observer, "running"
        with self._handler.lock:
            self._baseline()
        return self

    def stop(self, *, finalize: bool = True) -> list[Path]:
        """Stop watching; with `finalize`, write the sessions and mark the journal finalised.
        `finalize=False` leaves the journal for `recover(out)` (the next `start()` on `out` runs it)."""
        if self.state != "running":
            raise RuntimeError(f"Recording of {self.folder.name}: cannot stop, it is {self.state}")
        assert self._handler is not None and self._journal is not None
        try:
            self.sync()
        except TimeoutError as err:
            warnings.warn(f"{err}; stopping anyway: later events are not recorded", stacklevel=2)
        self._observer.stop()
        self._observer.join()
        self._handler.settle_all()
        self.state = "stopped"
        try:
            if not finalize:
                return []
            from .translate import write_sessions

            trajs = write_sessions(list(self._observations), self.out, name=self.name,
                                   idle_gap_ms=self.idle_gap_ms, debounce_ms=self.debounce_ms, seed=self.seed)
            self._journal.finalize(trajs)
            self.trajectories = list(trajs)
            return self.trajectories
        finally:
            self._journal.close()

    def __enter__(self) -> Recording:
        return self.start() if self.state == "new" else self

    def __exit__(self, *exc: object) -> None:
        if self.state == "running":
            self.stop()

    def sync(self, timeout: float = 10.0) -> None:
        """Return once every file operation made before this call has been handled (journaled or
        skipped). Raises TimeoutError if the fence file's event does not arrive within `timeout` s."""
        if self.state != "running":
            raise RuntimeError(f"Recording of {self.folder.name}: cannot sync, it is {self.state}")
        assert self._handler is not None
        name = f"{FENCE_PREFIX}{os.getpid()}-{next(_fence_ids)}"
        seen = threading.Event()
        self._handler.fences[name] = seen
        path = self.folder / name
        try:
            path.write_bytes(b"")  # kept until seen: a polling observer only sees files that stay a while
            if not seen.wait(timeout):
                raise TimeoutError(f"Recording of {self.folder.name}: no file-system event for {name} within "
                                   f"{timeout} s (does this file system report changes? try backend='polling')")
        finally:
            path.unlink(missing_ok=True)
            self._handler.fences.pop(name, None)

    # -- what was seen ---------------------------------------------------------------------------
    @property
    def observations(self) -> list[Observation]:
        """Every observation so far (baseline first), a copy."""
        lock = self._handler.lock if self._handler else threading.RLock()
        with lock:
            return list(self._observations)

    def tail(self, n: int = 10) -> list[Observation]:
        """The last `n` observations (for a notebook watching events arrive)."""
        return self.observations[-n:] if n > 0 else []

    @property
    def journal_path(self) -> Path | None:
        return self._journal.path if self._journal else None

    def status(self) -> dict[str, Any]:
        """A summary: state, counts by kind, skipped events by reason, errors of the observer thread."""
        h = self._handler
        obs = self.observations
        return {
            "folder": self.folder.name, "state": self.state, "backend": self.backend,
            "observer": type(self._observer).__name__ if self._observer is not None else None,
            "reads_observed": bool(h and h.close_events), "started_ms": self.started_ms,
            "journal": str(self.journal_path) if self.journal_path else None,
            "observations": len(obs), "by_kind": dict(Counter(o.kind for o in obs)),
            "skipped": dict(h.skipped) if h else {}, "errors": h.errors if h else 0,
            "error_messages": list(h.error_messages) if h else [],
            "recovered": [p.name for p in self.recovered],
            "trajectories": [p.name for p in self.trajectories] if self.trajectories is not None else None,
        }

    # -- internals -------------------------------------------------------------------------------
    def _emit(self, obs: Observation) -> None:
        assert self._journal is not None
        self._journal.append(obs)
        self._observations.append(obs)

    def _settings(self) -> dict[str, Any]:
        settings = {"folder": self.folder.name, "started_ms": self.started_ms, "name": self.name,
                    "idle_gap_ms": self.idle_gap_ms, "debounce_ms": self.debounce_ms, "seed": self.seed,
                    "backend": self.backend, "platform": sys.platform, "policy": self.policy.describe()}
        if self.keep_folder_path:
            settings["folder_path"] = str(self.folder)
        return settings

    def _baseline(self) -> None:
        """One `baseline` observation per existing tracked folder and file, journaled as one batch."""
        h, batch = self._handler, []
        assert h is not None and self._journal is not None
        for rel, is_dir in _walk(self.folder, self.policy, h.skipped):
            if is_dir:  # known folders: later sibling counts, browses and folder moves see them
                h.dirs.add(rel)
                batch.append(Observation("baseline", rel, self.started_ms or 0.0, is_dir=True))
                continue
            try:
                stat = (self.folder / rel).lstat()
            except OSError:
                h.skipped["vanished"] += 1
                continue
            capture = h.capture(rel)
            if capture is None:
                continue
            h.last_hash[rel] = capture.content_hash
            extra: dict[str, Any] = {"mtime_ms": stat.st_mtime * 1000}
            if capture.withheld:
                extra["withheld"] = capture.withheld
            if capture.redactions:
                extra["redactions"] = capture.redactions
            batch.append(Observation("baseline", rel, self.started_ms or 0.0, content=capture.content,
                                     content_hash=capture.content_hash, size=capture.size, extra=extra))
        self._journal.append_many(batch)
        self._observations.extend(batch)


def _walk(root: Path, policy: PrivacyPolicy, skipped: Counter[str]):
    """(rel, is_dir) of every tracked directory and regular file under root, sorted, symlinks skipped."""
    def unreadable(_err: OSError) -> None:
        skipped["unreadable"] += 1

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        base = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        keep = []
        for d in sorted(dirnames):
            if os.path.islink(os.path.join(dirpath, d)):
                skipped["symlink"] += 1
            elif not policy.ignored(prefix + d, True):
                keep.append(d)
                yield prefix + d, True
        dirnames[:] = keep
        for f in sorted(filenames):
            if os.path.islink(os.path.join(dirpath, f)):
                skipped["symlink"] += 1
            elif not policy.ignored(prefix + f, False):
                yield prefix + f, False
