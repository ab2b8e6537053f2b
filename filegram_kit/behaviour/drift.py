"""Behavioural drift, the entry point: `drift(sessions, detector=..., reference=...)` per user.

The frame it returns and the detectors' rules are `session_drift` (FileGramOS's episodic channel reads that
module, not this one, so the choices made only here, the past reference and its thresholds, do not touch the
memory's results). reference="past" is `past_drift`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..traces.schema import Trajectory
from .fingerprint import fingerprints
from .session_drift import DETECTORS, drift_frame, unparsed_judgements, with_habit

if TYPE_CHECKING:
    from ..llm.base import Backend

__all__ = ["DETECTORS", "REFERENCES", "drift", "drift_frame", "unparsed_judgements", "with_habit"]

REFERENCES = ("others", "past")


def drift(trajs: Trajectory | Iterable[Trajectory] | str | Path, *, backend: Backend | None = None, tau: float = 1.5,
          judge: bool = True, detector: str = "fingerprint", order: int = 1, reference: str = "others",
          warmup: int | None = None) -> pl.DataFrame:
    """Which sessions depart from their user's habits, per user (profile_id); a corpus folder is read through
    its columnar store where it is current.

    detector="fingerprint": `drift_frame` of the 17-D fingerprints (paper Eq. 1, the judge on flagged ones).
    detector="habit": the same frame from the habit model (`habit.habit_drift`, a Markov chain of `order`
    over action tokens): `deviation` = mean surprise per action against the user's other sessions, flagged
    by the same rule; `shifted_features` lists the unusual actions; no task adjustment and no judge.
    detector="both": the fingerprint's frame plus `habit_deviation`, `habit_threshold`, `habit_flagged`,
    `unusual_actions`; `flagged` when either detector flags (the judge still sees the fingerprint's flags).

    reference="others" (default): each session against all of its user's other sessions, earlier and later (a
    batch reading of a finished history: FileGramOS's episodic channel and the paper's Eq. 1 do this).
    reference="past" (habit model only): each session against the user's *earlier* sessions (first event's time),
    after `warmup` sessions (default habit.WARMUP) that only train, the model updated only with sessions it did
    not flag (`past_drift.past_scores`). An intruder who stays several sessions cannot vouch for himself this way;
    warm-up sessions get null deviations. With detector="both" the fingerprint part stays "others".
    """
    if detector not in DETECTORS:
        raise ValueError(f"detector must be one of {', '.join(DETECTORS)}, got {detector!r}")
    if reference not in REFERENCES:
        raise ValueError(f"reference must be one of {', '.join(REFERENCES)}, got {reference!r}")
    if reference == "past" and detector == "fingerprint":
        raise ValueError("reference='past' is the habit model's (detector='habit' or 'both'): the fingerprint's "
                         "z-scores need the user's whole history")
    if warmup is not None and reference != "past":
        raise ValueError("warmup is the number of training sessions of reference='past'")
    if detector == "fingerprint":
        return drift_frame(fingerprints(trajs), backend=backend, tau=tau, judge=judge)
    from ..traces.load import load_trajectories
    from .habit import habit_drift
    from .past_drift import WARMUP, habit_past_drift

    if isinstance(trajs, str | Path):
        loaded = list(load_trajectories(trajs, progress=False))
    else:
        loaded = [trajs] if isinstance(trajs, Trajectory) else list(trajs)
    frame = drift_frame(fingerprints(loaded), backend=backend, tau=tau, judge=judge and detector == "both")
    habit = (habit_drift(loaded, tau=tau, order=order) if reference == "others" else
             habit_past_drift(loaded, tau=tau, order=order, warmup=WARMUP if warmup is None else warmup))
    return with_habit(frame, habit, detector)
