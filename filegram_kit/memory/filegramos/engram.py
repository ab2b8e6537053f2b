"""Stage 1: one Engram per session (paper §5): procedural, semantic and episodic units.

The procedural unit is the 17-D fingerprint plus the extended features (computed for all
sessions at once with polars, `filegram_kit.fingerprint`); the semantic unit is in semantic.py,
the episodic unit in episodes.py. Every LLM step goes through a typed backend task, so the same
code runs offline and against an API.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import polars as pl
from tqdm.auto import tqdm

from ...fingerprint import FEATURES, extended_features, fingerprint_frame
from ...frames import events_frame
from ...schema import RETAINED_EVENT_TYPES, Trajectory
from ..base import by_identity
from .episodes import Episode, episodes
from .semantic import SemanticUnit, semantic_unit


@dataclass(frozen=True)
class Engram:
    trajectory_id: str
    session: str  # the label memory text uses: the task id (never the persona's name)
    task_id: str | None
    procedural: dict[str, float]  # the 17 fingerprint features, Table 6 order
    features: dict[str, Any]  # the extended features (spec 8.3)
    semantic: SemanticUnit
    episodes: tuple[Episode, ...]
    event_count: int
    behavioral_event_count: int
    parse_failures: int = 0  # backend replies that did not parse (each fell back, see episodes.py)


def session_labels(trajs: Sequence[Trajectory]) -> dict[str, str]:
    """Task id per session, made unique with a counter if a task repeats; 'S<n>' when there is no task id."""
    labels: dict[str, str] = {}
    seen: dict[str, int] = {}
    for n, traj in enumerate(trajs, 1):
        base = traj.task_id or f"S{n}"
        seen[base] = seen.get(base, 0) + 1
        labels[traj.id] = base if seen[base] == 1 else f"{base}#{seen[base]}"
    return labels


ENGRAM_CACHE_SIZE = 4096
_cache: OrderedDict[str, Engram] = OrderedDict()
_cache_lock = threading.Lock()


@by_identity
def _events_digest(traj: Trajectory) -> str:
    digest = hashlib.sha256(str(traj.task_id).encode())
    for e in traj.events:
        digest.update(json.dumps([e.event_id, e.event_type, e.timestamp, e.fields], sort_keys=True,
                                 default=str).encode())
    return digest.hexdigest()


def _key(traj: Trajectory, backend: Any) -> str:
    """What decides an Engram: the backend's identity and the session's events (ids, types, times, fields)."""
    return json.dumps(backend.params(), sort_keys=True, default=str) + _events_digest(traj)


def encode_one(traj: Trajectory, backend: Any, session: str) -> Engram:
    """One session's Engram (every LLM step through `backend`)."""
    frame = events_frame([traj], with_content=True)
    fp = fingerprint_frame(frame)
    procedural = {k: fp[k][0] for k in FEATURES} if fp.height else dict.fromkeys(FEATURES, 0.0)
    ext = extended_features(frame)
    features = {k: v for k, v in ext.row(0, named=True).items() if k not in ("trajectory_id", "profile_id",
                                                                                "task_id")} if ext.height else {}
    eps, failures = episodes(frame, session, backend)
    return Engram(trajectory_id=traj.id, session=session, task_id=traj.task_id, procedural=procedural,
                  features=features, semantic=semantic_unit(frame, session, _diff_reader(traj), backend),
                  episodes=tuple(eps), event_count=len(traj.events),
                  behavioral_event_count=sum(e.event_type in RETAINED_EVENT_TYPES for e in traj.events),
                  parse_failures=failures)


def _relabel(engram: Engram, trajectory_id: str, session: str) -> Engram:
    """The same Engram under this memory's session label (labels depend on the other sessions)."""
    if engram.session == session and engram.trajectory_id == trajectory_id:
        return engram
    semantic = replace(engram.semantic, chunks=tuple(replace(c, session=session) for c in engram.semantic.chunks))
    return replace(engram, trajectory_id=trajectory_id, session=session, semantic=semantic,
                   episodes=tuple(replace(ep, session=session) for ep in engram.episodes))


def encode(trajs: Sequence[Trajectory], backend: Any, *, progress: bool | None = None) -> list[Engram]:
    """Engrams of cleaned trajectories, in their order.

    A session already encoded with the same backend in this process is reused (a benchmark builds
    many memories from overlapping sessions); the result is the same, only faster.
    """
    labels = session_labels(trajs)
    out, quiet = [], None if progress is None else not progress
    for traj in tqdm(trajs, desc="encoding engrams", unit="session", disable=quiet):
        key = _key(traj, backend)
        with _cache_lock:
            engram = _cache.get(key)
            if engram is not None:
                _cache.move_to_end(key)
        if engram is None:
            engram = encode_one(traj, backend, labels[traj.id])
            with _cache_lock:
                _cache[key] = engram
                while len(_cache) > ENGRAM_CACHE_SIZE:
                    _cache.popitem(last=False)
        out.append(_relabel(engram, traj.id, labels[traj.id]))
    return out


def _diff_reader(traj: Trajectory):
    def read(ref: str) -> str:
        return traj.content(ref) if traj.media is not None else ""
    return read


def procedural_frame(engrams: Sequence[Engram]) -> pl.DataFrame:
    """The sessions' fingerprints as a frame (session, trajectory_id, task_id, 17 features)."""
    return pl.DataFrame(
        [{"session": e.session, "trajectory_id": e.trajectory_id, "task_id": e.task_id, **e.procedural}
         for e in engrams],
        schema={"session": pl.String, "trajectory_id": pl.String, "task_id": pl.String,
                **dict.fromkeys(FEATURES, pl.Float64)},
    )
