"""watchdog events -> Observations: the mapping rules of the live recorder (watcher.py runs it).

    file created / modified / closed-after-write  -> write   (bytes read through the PrivacyPolicy;
                                                              skipped if the file vanished or its hash
                                                              equals the last one seen for that path)
    file or dir moved, both ends tracked           -> move    (is_dir for directories)
    moved from an ignored/temporary name or from
      outside onto a tracked path                  -> write of the destination (atomic-save editors)
    moved from a tracked path to an ignored name   -> nothing yet: the path is "displaced" (vim renames
                                                      file -> file~ before writing file again); a delete
                                                      if the path is still gone when the backup is
                                                      removed or the recording stops
    moved out of the folder / deleted              -> delete
    dir created                                    -> mkdir with sibling_count (once per directory)
    file closed without writing (Linux inotify)    -> read, except the recorder's own reads

With close events (inotify) a file's content is read once the writer closes it: `created` and
`modified` only mark it, so one save is one write and never a half-written snapshot. Two exceptions:
files already inside a new directory when its creation is handled are read at once (they may have been
closed before the directory was watched), and a new file never closed (a hard link, a file a process
still holds open) is read when the recording stops. Elsewhere (FSEvents, Windows, polling) `created`
and `modified` are read directly and duplicates are dropped by hash.

The handler runs behind the file system: a file changed and then moved or deleted before its event is
handled cannot be read any more (counted as skipped "vanished"); at human pace this does not happen.

The recorder's own opens (baseline, capturing a write) produce close-without-write events as well:
every own open of a path is counted before it happens, and that many close-without-write events of the
path are swallowed. The handler never raises into the observer thread: errors are counted.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler

from .ignore_rules import IGNORE_FILE
from .observations import Observation
from .privacy import FENCE_PREFIX, PrivacyPolicy

WRITE_EVENTS = {"created", "modified", "closed"}


class RecordingHandler(FileSystemEventHandler):
    """Turns the events of one watched root into Observations passed to `emit` (under `lock`)."""

    def __init__(self, root: Path, policy: PrivacyPolicy, emit: Callable[[Observation], None], *,
                 close_events: bool, clock: Callable[[], float] | None = None):
        self.root, self.policy, self.emit = root, policy, emit
        self.close_events = close_events  # inotify: writes are read on close, reads are observed
        self.clock = clock or (lambda: time.time() * 1000)
        self.lock = threading.RLock()
        self.last_hash: dict[str, str] = {}
        self.dirs: set[str] = set()
        self.displaced: dict[str, tuple[float, str]] = {}
        self.pending: dict[str, float] = {}  # new files waiting for their writer's close (inotify)
        self.fresh: set[str] = set()  # files found in a new directory: their close may predate its watch
        self.own_opens: Counter[str] = Counter()
        self.fences: dict[str, threading.Event] = {}
        self.errors = 0
        self.error_messages: list[str] = []
        self.skipped: Counter[str] = Counter()

    # -- entry point (observer thread) ---------------------------------------------------------
    def dispatch(self, event: FileSystemEvent) -> None:
        try:
            with self.lock:
                self._route(event)
        except Exception as err:  # the observer thread must survive anything
            self.errors += 1
            if len(self.error_messages) < 20:
                self.error_messages.append(f"{type(event).__name__} {event.src_path!r}: {type(err).__name__}: {err}")

    def _rel(self, path: bytes | str) -> str | None:
        if not path:
            return None
        text = os.fsdecode(path)
        try:
            rel = Path(text).relative_to(self.root)
        except ValueError:
            return None
        return rel.as_posix()

    def _route(self, event: FileSystemEvent) -> None:
        src, dest = self._rel(event.src_path), self._rel(getattr(event, "dest_path", ""))
        own = [self._machinery(rel, event.is_directory) for rel in (src, dest)]  # both ends: may set a fence
        if any(own):  # (polling reuses inodes: a deleted fence and a new one look like a move)
            return
        kind, t = event.event_type, self.clock()
        if kind == "moved":
            self._moved(src, dest, event.is_directory, bool(event.is_synthetic), t)
        elif src is None or src == ".":
            return
        elif event.is_directory:
            if kind == "created" and self._tracked_or_count(src, True):
                self.mkdir(src, t)
            elif kind == "deleted" and self._tracked_or_count(src, True):
                self.delete(src, True, t)
        elif kind in WRITE_EVENTS:
            if self._tracked_or_count(src, False):
                self._file_changed(src, kind, bool(event.is_synthetic), t)
        elif kind == "deleted":
            if self._tracked_or_count(src, False):
                self.delete(src, False, t)
            else:
                self._backup_removed(src, t)
        elif kind == "closed_no_write" and self._tracked_or_count(src, False):
            self.read(src, t)

    def _file_changed(self, rel: str, kind: str, synthetic: bool, t: float) -> None:
        """With close events a new or modified file is read when its writer closes it (never half
        written). Exception: files that were already in a new directory when the recorder handled its
        creation; inotify reports them as plain `created` (they predate the directory's watch) and their
        close may never be seen, so they are read at once."""
        if self.close_events and kind == "modified":
            return
        if self.close_events and kind == "created" and not synthetic:
            if rel not in self.fresh:
                self.pending.setdefault(rel, t)
                return
            self.fresh.discard(rel)
        self.write(rel, t, via=kind)

    def _machinery(self, rel: str | None, is_dir: bool) -> bool:
        """Fence files (sync points) and ignore files are the recorder's own: handled, never recorded."""
        if rel is None:
            return False
        name = rel.rsplit("/", 1)[-1]
        if name.startswith(FENCE_PREFIX):
            fence = self.fences.get(rel)
            if fence is not None:
                fence.set()
            return True
        if name == IGNORE_FILE and not is_dir:
            self.policy.forget_ignore_file(rel.rsplit("/", 1)[0] if "/" in rel else "")
            return True
        return False

    def _tracked_or_count(self, rel: str, is_dir: bool) -> bool:
        if self.policy.ignored(rel, is_dir):
            self.skipped["ignored"] += 1
            return False
        return True

    # -- observations ----------------------------------------------------------------------------
    def write(self, rel: str, t: float, *, via: str) -> None:
        path = self.root / rel
        if path.is_symlink():
            self.skipped["symlink"] += 1
            return
        self.displaced.pop(rel, None)
        self.pending.pop(rel, None)
        self.fresh.discard(rel)
        capture = self.capture(rel)
        if capture is None:
            return
        if self.last_hash.get(rel) == capture.content_hash:
            self.skipped["same_content"] += 1
            return
        self.last_hash[rel] = capture.content_hash
        extra = {"event": via}
        if capture.withheld:
            extra["withheld"] = capture.withheld
        if capture.redactions:
            extra["redactions"] = capture.redactions
        self.emit(Observation("write", rel, t, content=capture.content, content_hash=capture.content_hash,
                              size=capture.size, extra=extra))

    def capture(self, rel: str):
        """Read a file through the policy, counting the open so its close-without-write is swallowed."""
        if self.close_events:
            self.own_opens[rel] += 1
        try:
            return self.policy.capture_file(rel, self.root / rel)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as err:
            if self.close_events:  # the open failed: no close event will come
                self._unown(rel)
            self.skipped["vanished" if not isinstance(err, PermissionError) else "unreadable"] += 1
            return None

    def _unown(self, rel: str) -> None:
        self.own_opens[rel] -= 1
        if self.own_opens[rel] <= 0:
            del self.own_opens[rel]

    def read(self, rel: str, t: float) -> None:
        if self.own_opens.get(rel, 0) > 0:
            self._unown(rel)
            self.skipped["own_read"] += 1
            return
        try:
            size = (self.root / rel).stat().st_size
        except OSError:
            size = None
        self.emit(Observation("read", rel, t, size=size, extra={"event": "closed_no_write"}))

    def mkdir(self, rel: str, t: float) -> None:
        if rel in self.dirs:
            self.skipped["known_dir"] += 1
            return
        self.dirs.add(rel)
        if self.close_events:
            self._note_fresh_files(rel)
        parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
        siblings = sum(1 for d in self.dirs if d != rel and (d.rsplit("/", 1)[0] if "/" in d else "") == parent)
        self.emit(Observation("mkdir", rel, t, is_dir=True, sibling_count=siblings))

    def _note_fresh_files(self, rel: str) -> None:
        try:
            with os.scandir(self.root / rel) as entries:
                self.fresh.update(f"{rel}/{e.name}" for e in entries if e.is_file(follow_symlinks=False))
        except OSError:
            pass  # the directory is gone again: its delete follows

    def delete(self, rel: str, is_dir: bool, t: float) -> None:
        self._forget(rel)
        self.emit(Observation("delete", rel, t, is_dir=is_dir))

    def _forget(self, rel: str) -> None:
        prefix = rel + "/"
        for table in (self.last_hash, self.displaced, self.pending):
            for key in [k for k in table if k == rel or k.startswith(prefix)]:
                del table[key]
        self.dirs.difference_update({d for d in self.dirs if d == rel or d.startswith(prefix)})
        self.fresh.difference_update({f for f in self.fresh if f.startswith(prefix) or f == rel})

    # -- moves -----------------------------------------------------------------------------------
    def _moved(self, src: str | None, dest: str | None, is_dir: bool, synthetic: bool, t: float) -> None:
        src_ok = src is not None and not self.policy.ignored(src, is_dir)
        dest_ok = dest is not None and not self.policy.ignored(dest, is_dir)
        if src_ok and dest_ok:
            self._rename_state(src, dest)
            if not synthetic:  # children of a moved directory: the directory's move says it all
                self.emit(Observation("move", src, t, dest=dest, is_dir=is_dir))
        elif dest_ok:  # atomic save (tmp -> target) or moved in from outside / from an ignored place
            if is_dir:
                self.mkdir(dest, t)  # its files arrive as synthetic created/moved events
            else:
                self.write(dest, t, via="moved_in")
        elif src_ok:
            if synthetic:
                self._forget(src)
            elif dest is not None and not is_dir:
                self.displaced[src] = (t, dest)  # e.g. vim: file -> file~, then writes file again
            else:
                self.delete(src, is_dir, t)  # moved out of the folder, or a directory into an ignored one
        else:
            self.skipped["ignored"] += 1
            if src is not None:
                self._backup_removed(src, t)

    def _rename_state(self, src: str, dest: str) -> None:
        prefix = src + "/"
        for table in (self.last_hash, self.displaced, self.pending):
            for key in [k for k in table if k == src or k.startswith(prefix)]:
                table[dest + key[len(src):]] = table.pop(key)
        moved = {d for d in self.dirs if d == src or d.startswith(prefix)}
        self.dirs.difference_update(moved)
        self.dirs.update(dest + d[len(src):] for d in moved)

    def _backup_removed(self, ignored_rel: str, t: float) -> None:
        """An ignored file went away: a tracked path displaced onto it that is still gone was deleted."""
        for rel, (when, backup) in list(self.displaced.items()):
            if backup == ignored_rel:
                self.settle_displaced(rel, when)

    def settle_displaced(self, rel: str, when: float) -> None:
        self.displaced.pop(rel, None)
        if not (self.root / rel).exists():
            self.delete(rel, False, when)

    def settle_all(self) -> None:
        """At the end: displaced paths still gone are deletes; new files never closed are writes
        (hard links, files a process still holds open)."""
        with self.lock:
            for rel, (when, _) in sorted(self.displaced.items()):
                self.settle_displaced(rel, when)
            for rel, when in sorted(self.pending.items()):
                self.pending.pop(rel)
                self.write(rel, when, via="pending")
