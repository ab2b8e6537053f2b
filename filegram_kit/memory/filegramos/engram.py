"""Stage 1: one Engram per session (paper §5): procedural, semantic and episodic units.

The procedural unit is the 17-D fingerprint plus the extended features (computed for all
sessions at once with polars, `filegram_kit.behaviour.fingerprint`); the semantic unit is in semantic.py,
the episodic unit in episodes.py. Every LLM step goes through a typed backend task, so the same
code runs offline and against an API.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from ...behaviour.fingerprint import FEATURES, extended_features, fingerprint_frame
from ...traces.frames import events_frame
from ...traces.schema import RETAINED_EVENT_TYPES, Trajectory
from ...util.progress import progress_bar
from ..serialize import session_labels
from ..stages import events_digest
from .episodes import Episode, episodes
from .semantic import SemanticUnit, semantic_unit

if TYPE_CHECKING:
    from ...llm.base import Backend


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


ENGRAM_CACHE_SIZE = 4096
_cache: OrderedDict[str, tuple[Engram, dict]] = OrderedDict()
_cache_lock = threading.Lock()


def _key(traj: Trajectory, backend: Backend) -> str:
    """What decides an Engram: the backend's identity and the session's events (ids, types, times, fields)."""
    return json.dumps(backend.params(), sort_keys=True, default=str) + events_digest(traj)


def encode_new(trajs: Sequence[Trajectory], sessions: Sequence[str], backend: Backend) -> list[tuple[Engram, dict]]:
    """Engrams of sessions not seen before: one events frame and one feature pass for all of them
    (per-session polars calls would cost more than the features), then episodes and semantics per session;
    each with the backend calls it took."""
    batch = [replace(t, id=f"#{i}") for i, t in enumerate(trajs)]  # unique even when task ids repeat
    frame = events_frame(batch, with_content=True)
    fp = {r["trajectory_id"]: {k: r[k] for k in FEATURES} for r in fingerprint_frame(frame).iter_rows(named=True)}
    ext = {r.pop("trajectory_id"): {k: v for k, v in r.items() if k not in ("profile_id", "task_id")}
           for r in extended_features(frame).iter_rows(named=True)}
    parts = frame.partition_by("trajectory_id", as_dict=True, maintain_order=True)
    out = []
    for temp, traj, session in zip(batch, trajs, sessions, strict=True):
        events = parts.get((temp.id,), frame.clear())
        with backend.metered() as cost:  # remembered with the Engram, replayed when the cache serves it
            eps, failures = episodes(events, session, backend)
            semantic, style_failures = semantic_unit(events, session, _diff_reader(traj), backend)
        out.append((Engram(
            trajectory_id=traj.id, session=session, task_id=traj.task_id,
            procedural=fp.get(temp.id, dict.fromkeys(FEATURES, 0.0)), features=ext.get(temp.id, {}),
            semantic=semantic, episodes=tuple(eps), event_count=len(traj.events),
            behavioral_event_count=sum(e.event_type in RETAINED_EVENT_TYPES for e in traj.events),
            parse_failures=failures + style_failures), cost.as_dict()))
    return out


def _relabel(engram: Engram, trajectory_id: str, session: str) -> Engram:
    """The same Engram under this memory's session label (labels depend on the other sessions)."""
    if engram.session == session and engram.trajectory_id == trajectory_id:
        return engram
    semantic = replace(engram.semantic, chunks=tuple(replace(c, session=session) for c in engram.semantic.chunks))
    return replace(engram, trajectory_id=trajectory_id, session=session, semantic=semantic,
                   episodes=tuple(replace(ep, session=session) for ep in engram.episodes))


def encode(trajs: Sequence[Trajectory], backend: Backend, *, progress: bool | None = None) -> list[Engram]:
    """Engrams of cleaned trajectories, in their order.

    A session already encoded with the same backend in this process is reused (a benchmark builds
    many memories from overlapping sessions); the result is the same, only faster.
    """
    labels = dict(zip((t.id for t in trajs), session_labels(trajs), strict=True))
    keys = [_key(t, backend) for t in trajs]
    with _cache_lock:
        found = {k: _cache[k] for k in keys if k in _cache}
    new = [i for i, k in enumerate(keys) if k not in found]
    for k in dict.fromkeys(k for k in keys if k in found):
        backend.replay(found[k][1])  # a cached Engram costs what encoding it did (ingest cost = a fresh build)
    if new:
        quiet = None if progress is None else not progress
        made = encode_new([trajs[i] for i in progress_bar(new, desc="encoding engrams", unit="session", disable=quiet)],
                          [labels[trajs[i].id] for i in new], backend)
        with _cache_lock:
            for i, engram in zip(new, made, strict=True):
                found[keys[i]] = _cache[keys[i]] = engram
            while len(_cache) > ENGRAM_CACHE_SIZE:
                _cache.popitem(last=False)
    return [_relabel(found[k][0], t.id, labels[t.id]) for k, t in zip(keys, trajs, strict=True)]


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
