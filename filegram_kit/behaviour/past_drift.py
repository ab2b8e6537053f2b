"""Drift against the past only: each of a user's sessions scored by a habit model of the *earlier* sessions it
accepted, in time order (reference="past" of `drift`). An intruder who stays several sessions cannot vouch for
himself, and a habit that changes slowly is followed (updating, as Maxion and Townsend's naive Bayes).

The score (`SCORES`): "one_class", the session's mean surprise per action under the user's model (the user's
own past only); or "two_class", that surprise less the one under a model of the *other* users' warm-up sessions
(self against not-self, the masquerade literature's naive Bayes): a session is deviant when it is more like
someone else than like the user, not merely when it is unusual.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from ..traces.schema import Trajectory
from .habit import HABIT_DRIFT_SCHEMA, MARKOV, Counts, HabitKind, HabitModel, started, unusual_actions_of

WARMUP = 5  # reference="past": a user's first sessions only train (and calibrate the threshold); none is scored
TIE_SLACK = 1e-9  # (n + 1) * (1 - rate) in floats: 250 * (1 - 0.172) must be 207, not 207.00000000000003
SCORES = ("one_class", "two_class")
_USER, _OTHERS = "u", "not-self"  # the two models `past_scores` keeps


@dataclass(frozen=True)
class PastScore:
    """One session scored against its user's earlier sessions only (`past_scores`)."""

    deviation: float | None  # mean surprise per action under the accepted earlier sessions (less the one under the
    # other users' background, two-class); None in the warm-up
    threshold: float | None  # the deviation it had to exceed; None when nothing could be flagged at the rate asked
    flagged: bool
    accepted: bool  # added to the model afterwards (warm-up, or not flagged)
    reference: int = 0  # reference deviations the threshold stood on (own, or own and borrowed: `borrowed`)
    borrowed: bool = False  # the threshold needed other users' references: too little own past for the rate


def conformal_threshold(reference: Sequence[float], false_alarm: float) -> float | None:
    """The deviation a new session must exceed to be flagged at `false_alarm`: the ceil((n+1)(1-a))-th smallest
    of n reference deviations (split conformal). If the new session and the reference are exchangeable, it is
    flagged with probability at most `false_alarm`, whatever their distribution and however small n. None when
    n + 1 < 1 / false_alarm: no threshold drawn from so few can promise the rate (flag nothing)."""
    n = len(reference)
    k = math.ceil((n + 1) * (1 - false_alarm) - TIE_SLACK)
    return None if k > n else float(sorted(reference)[k - 1])


def standardised(reference: Sequence[float]) -> tuple[float, float] | None:
    """(median, median absolute deviation) of reference deviations: users differ in how surprising their usual
    session is and in how much it varies, less in the shape beyond that; None when they do not vary."""
    median = float(np.median(reference))
    spread = float(np.median(np.abs(np.asarray(reference, float) - median)))
    return (median, spread) if spread > 0 else None


def scaled_reference(reference: Sequence[float]) -> list[float]:
    """Reference deviations as (deviation - median) / MAD (`standardised`): what one user lends another while
    the other's past is too short for the rate asked (`past_scores(borrowed=)`); [] when they do not vary."""
    scale = standardised(reference)
    return [] if scale is None else [(d - scale[0]) / scale[1] for d in reference]


def _check_rate(false_alarm: float) -> None:
    if not 0 < false_alarm < 1:
        raise ValueError(f"false_alarm must be a rate in (0, 1), e.g. 0.01 for 1 in 100 sessions; got {false_alarm}")


def past_scores(sequences: Sequence[Sequence[str]], *, order: int = 1, warmup: int = WARMUP, tau: float = 1.5,
                alpha: float | None = None, false_alarm: float | None = None, borrowed: Sequence[float] = (),
                background: Sequence[Sequence[str]] = (), confirmed: Collection[int] | None = None
                ) -> list[PastScore]:
    """Prequential scoring of one user's sessions, in time order: the first `warmup` train the model; each later
    session is scored (mean surprise per action, as `habit_drift`) by a model of the accepted *earlier* sessions
    only, and added to the model only when it was not flagged: updating, so a habit that slowly changes is
    followed while an intruder is kept out (Maxion and Townsend's naive Bayes with updating). No session's score
    reads a later session, and the vocabulary is the accepted sessions' own (and the background's). `alpha`:
    `HabitModel`'s additive smoothing. `background`: other users' sessions: the score is then two-class (module
    doc), the surprise under the user's model less the one under the background's, which never changes.

    The flag, by the rule asked:
    - `tau` (false_alarm None): above mean + tau * sd of the reference deviations: the warm-up sessions' (each
      against the other warm-up sessions), then each accepted session's as it was scored.
    - `false_alarm`: above `conformal_threshold` of the same reference (each session's deviation as it was
      scored: read against its own past, as the next session will be). Updating keeps the flagged sessions out
      and so cuts the reference's upper tail; the least deviant flagged sessions, in the share a false alarm
      would have taken (false_alarm / (1 - false_alarm) of the accepted later sessions), go back in at the
      threshold they exceeded: all that is known of a false alarm is that it lay above it, and an intruder's
      first session must not raise the bar for the rest of his run. While the own reference is too small for
      the rate (fewer than 1 / false_alarm - 1 sessions), the threshold is read from the own reference and
      `borrowed` together, both standardised (`scaled_reference`: other users' warm-ups); with nothing
      borrowed, or too little, nothing is flagged (threshold None).

    `confirmed` (feedback): the alarms were reviewed, and these sessions (indices into `sequences`) were the
    user's. A flagged session among them is learnt and its deviation joins the reference, as if it had not been
    flagged (it stays `flagged`: the alarm was raised); a flagged session not among them was someone else's, so
    nothing is put back for it. Without feedback a user whose habits change is flagged and never learnt, and so
    flagged again (docs/real-users.md).
    """
    if warmup < 2:
        raise ValueError(f"warmup must be >= 2 (the threshold needs a spread of reference deviations), got {warmup}")
    if false_alarm is not None:
        _check_rate(false_alarm)
    model = _model(order, alpha, background)
    warm = [list(s) for s in sequences[:warmup]]
    for sequence in warm:
        model.update(_USER, sequence)
    reference = _leave_one_out(model, warm)
    rejected: list[tuple[float, float]] = []  # (deviation, the threshold it exceeded)
    out = [PastScore(None, None, False, True) for _ in warm]
    for index, sequence in enumerate(sequences[warmup:], start=warmup):
        deviation = _surprise(model, sequence)
        if false_alarm is None:
            threshold: float | None = float(np.mean(reference) + tau * np.std(reference, ddof=1))
            size, lent = len(reference), False
        else:
            put_back = 0 if confirmed is not None else min(
                len(rejected), round(false_alarm / (1 - false_alarm) * (len(reference) - warmup)))
            censored = [exceeded for _, exceeded in sorted(rejected)[:put_back]]
            threshold, size, lent = _conformal([*reference, *censored], false_alarm, borrowed)
        flagged = threshold is not None and deviation > threshold
        accepted = not flagged or (confirmed is not None and index in confirmed)
        if accepted:
            model.update(_USER, sequence)
            reference.append(deviation)
        else:
            rejected.append((deviation, threshold))
        out.append(PastScore(deviation, threshold, flagged, accepted, size, lent))
    return out


def _conformal(own: list[float], false_alarm: float, borrowed: Sequence[float]) -> tuple[float | None, int, bool]:
    """`past_scores`' false-alarm threshold: (threshold, reference size, whether it borrowed)."""
    threshold = conformal_threshold(own, false_alarm)
    scale = None if threshold is not None or not borrowed else standardised(own)
    if scale is None:
        return threshold, len(own), False
    pooled = conformal_threshold([*scaled_reference(own), *borrowed], false_alarm)
    return (None if pooled is None else scale[0] + pooled * scale[1]), len(own) + len(borrowed), True


PAST_DRIFT_SCHEMA = {**HABIT_DRIFT_SCHEMA, "reference_sessions": pl.Int64, "borrowed": pl.Boolean}


def _model(order: int, alpha: float | None, background: Sequence[Sequence[str]]) -> HabitModel:
    """A habit model holding the not-self background, if any; the user's sessions are added as they come."""
    model = HabitModel(order, alpha)
    for sequence in background:
        model.update(_OTHERS, sequence)
    return model


def _surprise(model: HabitModel, sequence: Sequence[str], exclude: Counts | None = None) -> float:
    """The deviation: mean surprise per action under the user's model (minus `exclude`), less the one under the
    background when there is one (two-class)."""
    surprise = -model.log_likelihood(model.users[_USER], sequence, exclude)
    others = model.users.get(_OTHERS)
    return surprise if others is None else surprise + model.log_likelihood(others, sequence)


def warmup_reference(sequences: Sequence[Sequence[str]], kind: HabitKind,
                     background: Sequence[Sequence[str]] = ()) -> list[float]:
    """A user's warm-up sessions' deviations, each against the other warm-up sessions (what `past_scores` starts
    its reference with; two-class with a `background`)."""
    model = _model(kind.order, kind.alpha, background)
    for sequence in sequences:
        model.update(_USER, sequence)
    return _leave_one_out(model, sequences)


def _leave_one_out(model: HabitModel, sequences: Sequence[Sequence[str]]) -> list[float]:
    """Each of the user's sessions' deviation against the model's other sessions (its own counts taken out)."""
    return [_surprise(model, s, Counts.of(s)) for s in sequences]


def habit_past_drift(trajs: Iterable[Trajectory], *, tau: float = 1.5, kind: HabitKind = MARKOV,
                     warmup: int = WARMUP, false_alarm: float | None = None,
                     score: str = "one_class", confirmed: Collection[str] | None = None) -> pl.DataFrame:
    """`habit_drift`'s columns with reference="past": each user's sessions in time order (`started`), scored by
    `past_scores` (by `tau`, or at `false_alarm` borrowing the other users' warm-ups while a user's past is
    short); warm-up sessions (and users with no more than `warmup` sessions) get null deviations and are never
    flagged; `unusual_actions` against the sessions accepted before it. Also `reference_sessions` and
    `borrowed` (`PastScore`). score="two_class": each user's background is the other users' warm-up sessions
    (their first `warmup`, read in full: another user's warm-up is a fixed picture of not-self, not this user's
    future); it needs a second user. `confirmed`: trajectory ids the user said were theirs, after reviewing
    the alarms (`past_scores`' feedback)."""
    if score not in SCORES:
        raise ValueError(f"score must be one of {', '.join(SCORES)}, got {score!r}")
    by_user: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajs:
        by_user[t.profile_id or ""].append(t)
    if score == "two_class" and len(by_user) < 2:
        raise ValueError(f"score='two_class' sets a user's sessions against the other users' and there is one "
                         f"user ({', '.join(by_user) or 'none'}): use score='one_class'")
    sequences = {}
    for user, sessions in by_user.items():
        sessions.sort(key=started)
        sequences[user] = [kind.sequence(t) for t in sessions]
    backgrounds = {user: (not_self(sequences, user, warmup) if score == "two_class" else []) for user in sequences}
    lent = {}
    if false_alarm is not None:
        lent = {user: scaled_reference(warmup_reference(seqs[:warmup], kind, backgrounds[user]))
                for user, seqs in sequences.items() if len(seqs) > warmup}
    rows = []
    for user, sessions in by_user.items():
        borrowed = [d for other, ref in sorted(lent.items()) if other != user for d in ref]
        accepted: Counter[str] = Counter()
        mine = None if confirmed is None else {i for i, t in enumerate(sessions) if t.id in confirmed}
        scores = past_scores(sequences[user], order=kind.order, warmup=warmup, tau=tau, alpha=kind.alpha,
                             false_alarm=false_alarm, borrowed=borrowed, background=backgrounds[user],
                             confirmed=mine)
        for t, sequence, scored_as in zip(sessions, sequences[user], scores, strict=True):
            counts = Counter(sequence[1:])
            unusual = unusual_actions_of(counts, accepted) if scored_as.deviation is not None else []
            scored = scored_as.deviation is not None
            rows.append((t.id, scored_as.deviation, scored_as.threshold, scored_as.flagged, unusual,
                         scored_as.reference if scored else None, scored_as.borrowed if scored else None))
            if scored_as.accepted:
                accepted += counts
    return pl.DataFrame(rows, schema=PAST_DRIFT_SCHEMA, orient="row").sort("trajectory_id")


def not_self(sequences: Mapping[str, Sequence[Sequence[str]]], user: str, warmup: int,
             leave_out: Iterable[str] = ()) -> list[Sequence[str]]:
    """The two-class background of `user`: every other user's first `warmup` sessions (users in sorted order),
    but those of `leave_out` (an intruder the model is not to know)."""
    skip = {user, *leave_out}
    return [s for other in sorted(sequences) if other not in skip for s in sequences[other][:warmup]]
