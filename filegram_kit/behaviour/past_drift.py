"""Drift against the past only: each of a user's sessions scored by a habit model of the *earlier* sessions it
accepted, in time order (reference="past" of `drift`). An intruder who stays several sessions cannot vouch for
himself, and a habit that changes slowly is followed (updating, as Maxion and Townsend's naive Bayes).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from ..traces.schema import Trajectory
from .habit import HABIT_DRIFT_SCHEMA, Counts, HabitModel, started, tokens, unusual_actions_of

WARMUP = 5  # reference="past": a user's first sessions only train (and calibrate the threshold); none is scored


@dataclass(frozen=True)
class PastScore:
    """One session scored against its user's earlier sessions only (`past_scores`)."""

    deviation: float | None  # mean surprise per action under the accepted earlier sessions; None in the warm-up
    threshold: float | None  # mean + tau * sd of the reference deviations at that moment
    flagged: bool
    accepted: bool  # added to the model afterwards (warm-up, or not flagged)


def past_scores(sequences: Sequence[Sequence[str]], *, order: int = 1, warmup: int = WARMUP, tau: float = 1.5,
                alpha: float | None = None) -> list[PastScore]:
    """Prequential scoring of one user's sessions, in time order: the first `warmup` train the model; each later
    session is scored (mean surprise per action, as `habit_drift`) by a model of the accepted *earlier* sessions
    only, flagged above mean + tau * sd of the reference deviations, and added to the model (and its deviation
    to the reference) only when it was not flagged: updating, so a habit that slowly changes is followed while
    an intruder is kept out (Maxion and Townsend's naive Bayes with updating). The reference starts as the
    warm-up sessions' deviations, each against the other warm-up sessions. No session's score reads a later
    session, and the vocabulary is the accepted sessions' own. `alpha`: `HabitModel`'s additive smoothing."""
    if warmup < 2:
        raise ValueError(f"warmup must be >= 2 (the threshold needs a spread of reference deviations), got {warmup}")
    user = "u"
    model = HabitModel(order, alpha)
    warm = [list(s) for s in sequences[:warmup]]
    for sequence in warm:
        model.update(user, sequence)
    reference = [-model.log_likelihood(model.users[user], s, Counts.of(s)) for s in warm]
    out = [PastScore(None, None, False, True) for _ in warm]
    for sequence in sequences[warmup:]:
        deviation = -model.log_likelihood(model.users[user], sequence)
        threshold = float(np.mean(reference) + tau * np.std(reference, ddof=1))
        flagged = deviation > threshold
        if not flagged:
            model.update(user, sequence)
            reference.append(deviation)
        out.append(PastScore(deviation, threshold, flagged, not flagged))
    return out


def habit_past_drift(trajs: Iterable[Trajectory], *, tau: float = 1.5, order: int = 1, warmup: int = WARMUP
                     ) -> pl.DataFrame:
    """`habit_drift`'s columns with reference="past": each user's sessions in time order (`started`), scored by
    `past_scores`; warm-up sessions (and users with no more than `warmup` sessions) get null deviations and are
    never flagged; `unusual_actions` against the sessions accepted before it."""
    by_user: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajs:
        by_user[t.profile_id or ""].append(t)
    rows = []
    for sessions in by_user.values():
        sessions.sort(key=started)
        sequences = [tokens(t) for t in sessions]
        accepted: Counter[str] = Counter()
        for t, sequence, score in zip(sessions, sequences, past_scores(sequences, order=order, warmup=warmup,
                                                                       tau=tau), strict=True):
            counts = Counter(sequence[1:])
            unusual = unusual_actions_of(counts, accepted) if score.deviation is not None else []
            rows.append((t.id, score.deviation, score.threshold, score.flagged, unusual))
            if score.accepted:
                accepted += counts
    return pl.DataFrame(rows, schema=HABIT_DRIFT_SCHEMA, orient="row").sort("trajectory_id")
