"""Stage 1: one Engram per session (paper §5): procedural, semantic and episodic units.

The procedural unit is the 17-D fingerprint plus the extended features (computed for all
sessions at once with polars, `filegram_kit.fingerprint`); the semantic unit is in semantic.py,
the episodic unit in episodes.py. Every LLM step goes through a typed backend task, so the same
code runs offline and against an API.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
from tqdm.auto import tqdm

from ...fingerprint import FEATURES, extended_features, fingerprint_frame
from ...frames import events_frame
from ...schema import RETAINED_EVENT_TYPES, Trajectory
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


def session_labels(trajs: Sequence[Trajectory]) -> dict[str, str]:
    """Task id per session, made unique with a counter if a task repeats; 'S<n>' when there is no task id."""
    labels: dict[str, str] = {}
    seen: dict[str, int] = {}
    for n, traj in enumerate(trajs, 1):
        base = traj.task_id or f"S{n}"
        seen[base] = seen.get(base, 0) + 1
        labels[traj.id] = base if seen[base] == 1 else f"{base}#{seen[base]}"
    return labels


def encode(trajs: Sequence[Trajectory], backend: Any, *, progress: bool | None = None) -> tuple[list[Engram], int]:
    """Engrams of cleaned trajectories, in their order, and the count of backend replies that failed to parse."""
    frame = events_frame(trajs, with_content=True)
    fp = fingerprint_frame(frame)
    ext = extended_features(frame)
    procedural = {r["trajectory_id"]: {k: r[k] for k in FEATURES} for r in fp.iter_rows(named=True)}
    extended = {r.pop("trajectory_id"): {k: v for k, v in r.items() if k not in ("profile_id", "task_id")}
                for r in ext.iter_rows(named=True)}
    labels = session_labels(trajs)
    parts = frame.partition_by("trajectory_id", as_dict=True, maintain_order=True)
    out, failures = [], 0
    disable = None if progress is None else not progress
    for traj in tqdm(trajs, desc="encoding engrams", unit="session", disable=disable):
        events = parts.get((traj.id,), frame.clear())
        diff_text = _diff_reader(traj)
        session = labels[traj.id]
        eps, failed = episodes(events, session, backend)
        failures += failed
        zeros = dict.fromkeys(FEATURES, 0.0)
        out.append(Engram(
            trajectory_id=traj.id, session=session, task_id=traj.task_id,
            procedural=procedural.get(traj.id, zeros), features=extended.get(traj.id, {}),
            semantic=semantic_unit(events, session, diff_text, backend), episodes=tuple(eps),
            event_count=len(traj.events),
            behavioral_event_count=sum(e.event_type in RETAINED_EVENT_TYPES for e in traj.events),
        ))
    return out, failures


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
