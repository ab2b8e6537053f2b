"""Replay one session's observations through the engine's recorder, so real traces obey the same rules.

The engine's `Recorder` already owns the spec 4.3 rules (view counts, revisit intervals, context
switches, cross-file references within 30 s, rename vs move, backup and temporary detection). A real
session reuses it with two differences: the clock jumps to each observation's own time, and the
file system is not there to look at (the folder has moved on since), so the state the rules need
(which files exist, their last text, when they were first seen, which directories exist) is kept in
`FolderState`, carried across sessions.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from ..engine.recorder import Recorder, SimClock, depth_of, file_type
from ..traces.media import MediaStore
from .observations import Observation

RECORDED_HOME = "/home/user/filegram/sandbox"


@dataclass
class FileState:
    content: str | None  # last known text (None: binary, too large, metadata-only or never seen)
    content_hash: str | None
    size: int | None
    first_seen_ms: float | None


@dataclass
class FolderState:
    """What the recorded folder holds, as far as the observations tell (survives session splits).

    Change `files` through `put` / `pop` (they keep the content-hash index copy detection uses), so
    a long recording costs the same per observation at its end as at its start.
    """

    files: dict[str, FileState] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    _by_hash: dict[str, set[str]] = field(default_factory=dict)

    def put(self, path: str, state: FileState) -> None:
        self.pop(path)
        self.files[path] = state
        if state.content_hash:
            self._by_hash.setdefault(state.content_hash, set()).add(path)

    def pop(self, path: str) -> FileState | None:
        state = self.files.pop(path, None)
        if state is not None and state.content_hash:
            self._by_hash.get(state.content_hash, set()).discard(path)
        return state

    def under(self, rel_dir: str) -> list[str]:
        prefix = rel_dir.rstrip("/") + "/"
        return [p for p in self.files if p.startswith(prefix)]

    def copy_source(self, digest: str | None, dest: str) -> str | None:
        """An existing file with the same bytes as a new one (the oldest such file)."""
        same = [p for p in self._by_hash.get(digest or "", ()) if p != dest]
        return min(same, key=lambda p: (self.files[p].first_seen_ms or 0.0, p)) if same else None

    def children(self, rel_dir: str) -> int:
        """Entries directly inside a folder ('' or '.' is the root)."""
        parent = PurePosixPath(rel_dir or ".")
        return sum(1 for p in [*self.files, *self.dirs] if PurePosixPath(p).parent == parent)

    def move(self, old: str, new: str) -> None:
        if old in self.files:  # a file has nothing inside it
            self.put(new, self.pop(old))
            return
        prefix = old.rstrip("/") + "/"
        for path in self.under(old):
            self.put(new + "/" + path[len(prefix):], self.pop(path))
        moved = {d for d in self.dirs if d == old or d.startswith(prefix)}
        self.dirs = (self.dirs - moved) | {new + d[len(old):] for d in moved}

    def remove(self, rel: str) -> None:
        if self.pop(rel) is not None:
            return
        for path in self.under(rel):
            self.pop(path)
        self.dirs = {d for d in self.dirs if d != rel and not d.startswith(rel.rstrip("/") + "/")}


class SessionRecorder(Recorder):
    """The engine's recorder driven by observations instead of tool calls."""

    def __init__(self, *, trajectory_id: str, profile_id: str, state: FolderState, start_ms: float,
                 rng: np.random.Generator, media_root: Path, source: str):
        clock = SimClock(start_ms)
        super().__init__(root=media_root, trajectory_id=trajectory_id, profile_id=profile_id, clock=clock, rng=rng,
                         media=MediaStore(media_root / "media", clock=clock.now), model_provider=source,
                         model_name="filegram-record")
        self.virtual_root = f"{RECORDED_HOME}/{trajectory_id}"
        self.state = state
        self.kinds: Counter[str] = Counter()
        self._first_seen = {p: f.first_seen_ms for p, f in state.files.items() if f.first_seen_ms is not None}

    # -- the dispatcher ---------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        self.clock.ms = max(self.clock.ms, float(obs.time_ms))
        self.kinds[obs.kind] += 1
        invented = bool(obs.extra.get("time_synthesised"))
        if invented:  # a made-up time says nothing about "within 30 s": no cross-file reference either side
            self._last_op = None
        getattr(self, f"_on_{obs.kind}")(obs)
        if invented:
            self._last_op = None

    def _on_write(self, obs: Observation) -> None:
        known = self.state.files.get(obs.path)
        if known is not None and obs.content_hash and known.content_hash == obs.content_hash:
            self.stats["unchanged_writes"] += 1  # a save that changed nothing (touch, editor re-save)
            return
        source = self.state.copy_source(obs.content_hash, obs.path) if known is None and obs.size else None
        if source is not None:
            self.file_copy(source, obs.path)
        elif known is not None and known.content is not None and obs.content is not None \
                and _shares_lines(known.content, obs.content):
            self.file_edit(obs.path, known.content, obs.content)
        else:
            self._write(obs, "create" if known is None else "overwrite", known)
        first = known.first_seen_ms if known is not None and known.first_seen_ms is not None else self.clock.now()
        self._first_seen.setdefault(obs.path, first)
        self.state.put(obs.path, FileState(obs.content, obs.content_hash, obs.size, first))

    def _write(self, obs: Observation, operation: str, known: FileState | None) -> None:
        """file_write from an observation (content may be unknown: the hash and size still count)."""
        rel = obs.path
        ref = self.media.put_blob(obs.content, self.path(rel)) if obs.content is not None else None
        if operation == "create":
            self.files_created.append(rel)
        self.files_modified.add(rel)
        length = len(obs.content) if obs.content is not None else int(obs.size or 0)
        self.emit("file_write", file_path=self.path(rel), file_type=file_type(rel), directory_depth=depth_of(rel),
                  operation=operation, content_length=length, before_hash=known.content_hash if known else None,
                  after_hash=obs.content_hash, **({"media_ref": ref} if ref else {}))

    def _on_read(self, obs: Observation) -> None:
        known = self.state.files.get(obs.path)
        text = known.content if known is not None else None
        length = obs.size if obs.size is not None else (len(text) if text is not None else 0)
        lines = text.count("\n") + (not text.endswith("\n")) if text else 1
        self.file_read(obs.path, (1, max(1, lines)), int(length))

    def _on_browse(self, obs: Observation) -> None:
        listed = obs.files_listed if obs.files_listed is not None else self.state.children(obs.path)
        self.file_browse(obs.path or ".", int(listed))

    def _on_search(self, obs: Observation) -> None:
        self.file_search(obs.search_type or "grep", obs.query or "", list(obs.matched))

    def _on_mkdir(self, obs: Observation) -> None:
        rel = str(PurePosixPath(obs.path))
        if rel in self.state.dirs:
            self.stats["repeated_mkdir"] += 1
            return
        parent = PurePosixPath(rel).parent
        siblings = obs.sibling_count if obs.sibling_count is not None else sum(
            1 for d in self.state.dirs if PurePosixPath(d).parent == parent)
        self.state.dirs.add(rel)
        self.dirs_created.append(rel)
        self.emit("dir_create", dir_path=self.path(rel), depth=len(PurePosixPath(rel).parts),
                  sibling_count=max(0, int(siblings)))

    def _on_move(self, obs: Observation) -> None:
        self.move(obs.path, obs.dest)
        self.state.move(obs.path, obs.dest)
        if obs.path in self._first_seen:
            self._first_seen[obs.dest] = self._first_seen.pop(obs.path)

    def _on_copy(self, obs: Observation) -> None:
        self.file_copy(obs.path, obs.dest)
        known = self.state.files.get(obs.path)
        if known is not None:
            self.state.put(obs.dest, FileState(known.content, known.content_hash, known.size, self.clock.now()))

    def _on_delete(self, obs: Observation) -> None:
        self.file_delete(obs.path)
        self.state.remove(obs.path)

    # -- what the engine's recorder would have looked up on disk ------------------------------------
    def fs_snapshot(self) -> None:
        by_type = Counter(PurePosixPath(p).suffix.lstrip(".").lower() or "unknown" for p in self.state.files)
        tree = sorted({*self.state.files, *self.state.dirs})
        depth = max((len(PurePosixPath(p).parts) for p in tree), default=0)
        ref = self.media.put_blob(json.dumps(tree, indent=2, ensure_ascii=False), "fs_snapshot.json") if tree else None
        self.emit("fs_snapshot", file_count_by_type=dict(sorted(by_type.items())), max_depth=depth,
                  total_files=len(self.state.files), **({"media_ref": ref} if ref else {}))

    def dir_create(self, rel_dir: str) -> None:  # the engine's version counts folders on disk
        self._on_mkdir(Observation("mkdir", rel_dir, self.clock.now()))

    def finish(self, *, extra: dict[str, Any]) -> dict[str, Any]:
        summary = self.session_end(completed=True)
        summary.update(extra)
        self.media.flush()
        return summary


def _shares_lines(before: str, after: str) -> bool:
    """An edit keeps some of the old text; a save that shares no non-blank line is a rewrite."""
    old = {line.strip() for line in before.splitlines() if line.strip()}
    return bool(old) and any(line.strip() in old for line in after.splitlines())
