"""The per-session drift frame: which of a user's sessions depart from their own habits, and is it the task?

Per user, each session's fingerprint is z-scored against the user's sessions; the deviation is
the distance of its z-vector to the centroid, flagged above mean + tau * sd (paper Eq. 1, tau =
1.5, needs >= 3 sessions; `fingerprint.deviations`). Flagged sessions go to the anomaly judge
(`judge_anomaly` task) with the shift their task type explains: the mean z-vector of the user's
*other* sessions of the same task type (Table 10's six types). A writing task raises everyone's
edit counts; a session that deviates the way its task type always does is a "variation", one
that deviates where its task type does not is an "outlier".

`task_adjusted_deviation` = distance of the z-vector to that same-type mean (the deviation the
task type does not explain; equal to `deviation` when the user has < 2 other sessions of the type).

A judge reply that does not parse (a small local model's prose) labels its session "uncertain" with the
rationale `UNPARSED_RATIONALE`, so one bad reply costs one label, not the user's memory; callers count them
with `unparsed_judgements`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..traces.tasks import load_tasks
from .fingerprint import FEATURES, deviations, with_zscores

if TYPE_CHECKING:
    from ..llm.base import Backend

UNPARSED_RATIONALE = "the judge's reply did not parse"
MIN_SAME_TYPE = 2  # other sessions of the same task type needed to estimate its shift

DRIFT_SCHEMA = {
    "trajectory_id": pl.String, "profile_id": pl.String, "task_id": pl.String, "task_type": pl.String,
    "deviation": pl.Float64, "threshold": pl.Float64, "flagged": pl.Boolean,
    "task_adjusted_deviation": pl.Float64, "judge": pl.String, "rationale": pl.String,
    "shifted_features": pl.List(pl.String),
}


def task_types(task_ids: Iterable[str | None]) -> list[str | None]:
    """The Table 10 type of each task id (None for tasks outside the 32, e.g. real traces)."""
    known = {t.id: t.type for t in load_tasks().values()}
    return [known.get(t) if t else None for t in task_ids]


def _same_type_shift(z: np.ndarray, types: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
    """Per session: mean z of the user's other sessions of its type, and whether there were enough."""
    shift = np.zeros_like(z)
    enough = np.zeros(len(z), dtype=bool)
    for i, kind in enumerate(types):
        peers = [j for j, other in enumerate(types) if j != i and kind is not None and other == kind]
        if len(peers) >= MIN_SAME_TYPE:
            shift[i], enough[i] = z[peers].mean(axis=0), True
    return shift, enough


def drift_frame(fp: pl.DataFrame, *, backend: Backend | None = None, tau: float = 1.5, by: str = "profile_id",
                judge: bool = True) -> pl.DataFrame:
    """Per session: deviation, flag, task-adjusted deviation, judge label and rationale, top-3 shifted features.

    `fp` is a fingerprint frame (`fingerprints(...)`), or one already through `zscores(fp, by=by)` (its z_<key>
    columns are used as they are); `backend` answers the judge (default offline); judge=False skips the judge
    (labels stay null). Unflagged sessions are not judged.
    """
    from ..llm.tasks import ParseError  # llm sits above behaviour: imported where the judge is asked

    if backend is None and judge:
        from ..llm import get_backend

        backend = get_backend("offline")
    if fp.is_empty():
        return pl.DataFrame(schema=DRIFT_SCHEMA)
    scored = with_zscores(fp, by=by)
    dev = deviations(scored, by=by, tau=tau)
    z = scored.select("trajectory_id", "task_id", by, *[f"z_{f}" for f in FEATURES])
    rows = []
    for group in z.partition_by(by, maintain_order=True):
        ids = group["trajectory_id"].to_list()
        mat = group.select([f"z_{f}" for f in FEATURES]).to_numpy().astype(float)
        types = task_types(group["task_id"].to_list())
        shift, enough = _same_type_shift(mat, types)
        adjusted = np.where(enough, np.linalg.norm(mat - shift, axis=1), np.linalg.norm(mat, axis=1))
        for i, tid in enumerate(ids):
            rows.append({"trajectory_id": tid, "task_type": types[i], "task_adjusted_deviation": float(adjusted[i]),
                         "_z": dict(zip(FEATURES, mat[i].round(3).tolist(), strict=True)),
                         "_shift": dict(zip(FEATURES, shift[i].round(3).tolist(), strict=True)) if enough[i] else {}})
    extra = {r["trajectory_id"]: r for r in rows}
    out = dev.with_columns(
        pl.col("trajectory_id").replace_strict({k: v["task_type"] for k, v in extra.items()},
                                               return_dtype=pl.String).alias("task_type"),
        pl.col("trajectory_id").replace_strict({k: round(v["task_adjusted_deviation"], 4) for k, v in extra.items()},
                                               return_dtype=pl.Float64).alias("task_adjusted_deviation"),
    )
    labels, reasons = [], []
    for tid, flagged in zip(out["trajectory_id"], out["flagged"], strict=True):
        if judge and flagged:
            try:
                verdict = backend.judge_anomaly(extra[tid]["_z"], extra[tid]["_shift"])
                labels.append(verdict.label)
                reasons.append(verdict.rationale)
            except ParseError:
                labels.append("uncertain")
                reasons.append(UNPARSED_RATIONALE)
        else:
            labels.append(None)
            reasons.append(None)
    out = out.with_columns(pl.Series("judge", labels, dtype=pl.String),
                           pl.Series("rationale", reasons, dtype=pl.String))
    return out.select(list(DRIFT_SCHEMA))


def unparsed_judgements(frame: pl.DataFrame) -> int:
    """How many sessions of a drift frame the judge labelled "uncertain" because its reply did not parse."""
    return int((frame["rationale"] == UNPARSED_RATIONALE).sum()) if "rationale" in frame.columns else 0


DETECTORS = ("fingerprint", "habit", "both")


def with_habit(frame: pl.DataFrame, habit: pl.DataFrame, detector: str) -> pl.DataFrame:
    """A fingerprint drift frame with the habit model's verdicts (`habit.habit_drift`): "habit" puts them in
    its columns (deviation, threshold, flagged, task_adjusted_deviation; shifted_features = the unusual
    actions; no judge), "both" adds them beside and flags a session either flags."""
    joined = frame.join(habit, on="trajectory_id", how="left")
    if detector == "both":
        return joined.with_columns((pl.col("flagged") | pl.col("habit_flagged").fill_null(False)).alias("flagged"))
    if detector != "habit":
        raise ValueError(f"with_habit: detector must be 'habit' or 'both', got {detector!r}")
    return joined.with_columns(
        pl.col("habit_deviation").alias("deviation"), pl.col("habit_threshold").alias("threshold"),
        pl.col("habit_flagged").fill_null(False).alias("flagged"),
        pl.col("habit_deviation").alias("task_adjusted_deviation"), pl.lit(None, pl.String).alias("judge"),
        pl.lit(None, pl.String).alias("rationale"),
        pl.col("unusual_actions").fill_null([]).alias("shifted_features")).select(frame.columns)
