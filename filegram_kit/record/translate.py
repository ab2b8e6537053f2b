"""Observations -> trajectories in the release layout: order, debounce, split on idle gaps, replay, write.

    write_sessions(observations, out)   -> out/signal/<name>_<YYYYMMDD-HHMMSS>/{events.json, summary.json, media/}

Real monitors report the same change several times (an editor's save is a create, some modifies and
a close) and threads may deliver events out of order, so observations are sorted by time (stable:
equal times keep arrival order) and repeated reports of one change inside `debounce_ms` collapse into
the last one. A pause longer than `idle_gap_ms` starts a new session, i.e. a new trajectory; what the
folder holds carries over, so an edit in the second session still diffs against the first.
Same observations and seed give the same bytes.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ..traces.load import write_trajectory
from ..traces.schema import Trajectory
from ..traces.validation import parse_event
from .observations import Observation
from .session_replay import FileState, FolderState, SessionRecorder

IDLE_GAP_MS = 30 * 60_000
DEBOUNCE_MS = 1_000


@dataclass
class Session:
    """One recorded session: its observations (after debouncing) and what debouncing merged."""

    observations: list[Observation]
    merged: Counter = field(default_factory=Counter)

    @property
    def start_ms(self) -> float:
        return self.observations[0].time_ms

    def trajectory_id(self, name: str) -> str:
        stamp = datetime.fromtimestamp(self.start_ms / 1000, tz=UTC).strftime("%Y%m%d-%H%M%S")
        return f"{name}_{stamp}"


def ordered(observations: Iterable[Observation]) -> list[Observation]:
    """Sorted by time; equal times keep the order the source delivered them in."""
    return [obs for _, obs in sorted(enumerate(observations), key=lambda pair: (pair[1].time_ms, pair[0]))]


def _same_change(a: Observation, b: Observation) -> bool:
    if a.kind != b.kind or a.path != b.path or a.dest != b.dest:
        return False
    if a.kind == "write":
        return True  # a later report of a save in progress supersedes the earlier one
    return a.kind in ("mkdir", "delete", "move", "copy") or (a.kind == "read" and a.size == b.size)


def debounce(observations: list[Observation], debounce_ms: float = DEBOUNCE_MS) -> tuple[list[Observation], Counter]:
    """Collapse repeated reports of one change on one path within `debounce_ms` (the last one is kept).

    Only reports with nothing else on that path in between collapse; returns the kept list and a
    count of what was merged per kind.
    """
    kept: list[Observation | None] = []
    last_on_path: dict[str, int] = {}
    merged: Counter = Counter()
    for obs in observations:
        index = last_on_path.get(obs.path)
        prev = kept[index] if index is not None else None
        if prev is not None and obs.time_ms - prev.time_ms <= debounce_ms and _same_change(prev, obs):
            merged[obs.kind] += 1
            if obs.kind == "write":
                kept[index] = None  # keep the final content, at its own time
            else:
                continue
        last_on_path[obs.path] = len(kept)
        if obs.dest:
            last_on_path[obs.dest] = len(kept)
        kept.append(obs)
    return [o for o in kept if o is not None], merged


def split_sessions(observations: Iterable[Observation], *, idle_gap_ms: float = IDLE_GAP_MS,
                   debounce_ms: float = DEBOUNCE_MS) -> tuple[list[Observation], list[Session]]:
    """(baseline observations, sessions): ordered, debounced, cut where nothing happened for `idle_gap_ms`."""
    if idle_gap_ms <= 0:
        raise ValueError(f"idle_gap_ms must be positive, got {idle_gap_ms}")
    items = ordered(observations)
    baseline = [o for o in items if o.kind == "baseline"]
    activity, merged = debounce([o for o in items if o.kind != "baseline"], debounce_ms)
    sessions: list[Session] = []
    for obs in activity:
        if not sessions or obs.time_ms - sessions[-1].observations[-1].time_ms > idle_gap_ms:
            sessions.append(Session([]))
        sessions[-1].observations.append(obs)
    for session in sessions:  # merges are reported once, on the session they happened in
        kinds = Counter(o.kind for o in session.observations)
        session.merged = Counter({k: n for k, n in merged.items() if kinds[k]})
        merged -= session.merged
    return baseline, sessions


def _unique_id(session: Session, name: str, taken: set[str]) -> str:
    base = session.trajectory_id(name)
    tid, n = base, 1
    while tid in taken:
        n += 1
        tid = f"{base}-{n}"
    taken.add(tid)
    return tid


def write_sessions(observations: Iterable[Observation], out: str | Path, *, name: str = "me",
                   idle_gap_ms: float = IDLE_GAP_MS, debounce_ms: float = DEBOUNCE_MS, seed: int = 0,
                   extra_summary: dict | None = None) -> list[Path]:
    """Write one trajectory per session under `out/signal/`; returns their folders (empty: nothing happened)."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"name must be a plain folder-safe word, got {name!r}")
    baseline, sessions = split_sessions(observations, idle_gap_ms=idle_gap_ms, debounce_ms=debounce_ms)
    state = FolderState()
    for obs in baseline:  # a file's age counts from its last modification before recording, when known
        if obs.is_dir:
            state.dirs.add(obs.path)
        else:
            state.put(obs.path, FileState(obs.content, obs.content_hash, obs.size, obs.extra.get("mtime_ms")))
    signal, taken, written = Path(out) / "signal", set(), []
    for index, session in enumerate(sessions):
        tid = _unique_id(session, name, taken)
        written.append(_write_session(session, tid, name, state, np.random.default_rng([seed, index]), signal,
                                      extra_summary or {}))
    return written


def _write_session(session: Session, tid: str, name: str, state: FolderState, rng: np.random.Generator,
                   signal: Path, extra: dict) -> Path:
    with tempfile.TemporaryDirectory(prefix=".filegram-record-") as scratch:
        recorder = SessionRecorder(trajectory_id=tid, profile_id=name, state=state, start_ms=session.start_ms,
                                   rng=rng, media_root=Path(scratch),
                                   source="+".join(sorted({o.source for o in session.observations})))
        recorder.session_start()
        for obs in session.observations:
            recorder.observe(obs)
        summary = recorder.finish(extra={"task_id": None, "observations": len(session.observations),
                                         "observations_by_kind": dict(sorted(recorder.kinds.items())),
                                         "debounced": dict(sorted(session.merged.items())),
                                         "unchanged_writes": recorder.stats["unchanged_writes"], **extra})
        events = tuple(parse_event(e, i, f"{tid}/events.json") for i, e in enumerate(recorder.events))
        traj = Trajectory(tid, events, name, None, summary, recorder.media, None)
        return write_trajectory(traj, signal / tid)
