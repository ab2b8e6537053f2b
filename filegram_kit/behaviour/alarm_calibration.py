"""Do drift alarms keep the false-alarm rate a user asks for? Asked against realised, per habit model and score.

    pu_calibration(blocks, train=1500, seed=0)     # real users: the PU intruder-run streams
    corpus_calibration(trajs, perturbed_ids)        # the simulated personas: their perturbed sessions

Each user's sessions are scored against the past only (`past_drift.past_scores`, the rule of
`drift(..., detector="habit", reference="past", false_alarm=rate, score=...)`), one-class or two-class
(`past_drift.SCORES`), at each rate asked. Realised = the share of the user's own (normal) sessions flagged,
pooled over users; hits = the share of anomalous sessions flagged
(an intruder's blocks; a persona's sessions perturbed by one tier). `_lo`/`_hi`: 95% CIs drawing users with
replacement (a user's sessions share that user's habits). `borrowed`: the share of scored normal sessions
whose threshold needed other users' warm-ups (the user's past was too short for the rate); `unsupported`: the
share that could not be flagged at all (too little past, own and borrowed). A rate asked is kept when realised
/ asked lies in [0.5, 2] (`KEPT`). `hits_unknown`: the control for two-class on PU, an intruder the background
never saw (does the score find strangers, or only users it already knows?), and `realised_unknown` the normal
blocks' false-alarm rate in those same readings (each normal block read once per intruder left out).
`worst_user` / `worst_user_realised`: the user whose own sessions were flagged most often, and how often. The
pooled rate can keep the promise while one user whose habits changed is flagged again and again: updating
learns only from sessions it did not flag, so it may never catch up with a new habit (docs/real-users.md).
`feedback`: the alarms reviewed, the user's own flagged sessions confirmed and learnt (`past_scores`'
`confirmed`): what a user who answers "that was me" gets.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from ..traces.schema import Trajectory
from .habit import MODELS, HabitKind, habit_kind
from .intruder_runs import Stream, intruder_streams
from .masquerade import Block, user_bootstrap
from .past_drift import SCORES, PastScore, not_self, past_scores, scaled_reference, warmup_reference

RATES = (0.005, 0.01, 0.05)
KEPT = (0.5, 2.0)  # realised / asked within this band: the promise held
CALIBRATION_SCHEMA = {
    "data": pl.String, "model": pl.String, "score": pl.String, "feedback": pl.Boolean, "asked": pl.Float64,
    "realised": pl.Float64, "realised_lo": pl.Float64, "realised_hi": pl.Float64, "ratio": pl.Float64,
    "kept": pl.Boolean,
    "hits": pl.Float64, "hits_lo": pl.Float64, "hits_hi": pl.Float64, "hits_unknown": pl.Float64,
    "hits_unknown_lo": pl.Float64, "hits_unknown_hi": pl.Float64, "realised_unknown": pl.Float64,
    "worst_user": pl.String, "worst_user_realised": pl.Float64, "normal": pl.Int64, "anomalous": pl.Int64,
    "users": pl.Int64, "borrowed": pl.Float64, "unsupported": pl.Float64,
}


def _block_kind(kind: HabitKind) -> str:
    """What a Block reads for this model: its command names or its action tokens (`Block.sequence`)."""
    return "command" if kind.commands_only else "habit"


Outcome = tuple[str, bool, bool, bool, bool]  # (user, anomalous, flagged, borrowed, unsupported) per scored session


def _row(data: str, kind: HabitKind, score: str, asked: float, outcomes: Sequence[Outcome],
         unknown: Sequence[tuple[str, bool, bool]] | None = None, feedback: bool = False) -> dict[str, object]:
    """One calibration row from the outcomes of the scored sessions; `unknown`: (user, intruder's, flagged) per
    block scored with one intruder left out of the background, his blocks and the user's own (None: no such
    reading)."""
    per_user: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])  # false alarms, normal, hits, anom.
    borrowed = unsupported = 0
    for user, anomalous, flagged, lent, unsupported_here in outcomes:
        cell = per_user[user]
        if anomalous:
            cell[2] += flagged
            cell[3] += 1
        else:
            cell[0] += flagged
            cell[1] += 1
            borrowed += lent
            unsupported += unsupported_here
    normal = sum(c[1] for c in per_user.values())
    anomalous = sum(c[3] for c in per_user.values())
    realised = sum(c[0] for c in per_user.values()) / normal if normal else None
    r_lo, r_hi = user_bootstrap({u: c[0] for u, c in per_user.items()}, {u: c[1] for u, c in per_user.items()})
    hits, h_lo, h_hi = _share({u: (c[2], c[3]) for u, c in per_user.items() if c[3]})
    found: dict[bool, dict[str, tuple[float, float]]] = {True: defaultdict(lambda: (0.0, 0.0)),
                                                         False: defaultdict(lambda: (0.0, 0.0))}
    for user, intruder, flagged in unknown or ():
        f, n = found[intruder][user]
        found[intruder][user] = (f + flagged, n + 1)
    u_hits, u_lo, u_hi = _share(found[True]) if unknown is not None else (None, None, None)
    u_realised = _share(found[False])[0] if unknown is not None else None
    ratio = realised / asked if realised is not None else None
    own = {u: c[0] / c[1] for u, c in sorted(per_user.items()) if c[1]}
    worst = max(own, key=own.__getitem__) if own else None  # the first in name order among equals
    return {"data": data, "model": kind.label, "score": score, "feedback": feedback, "asked": asked,
            "realised": realised, "realised_lo": r_lo, "realised_hi": r_hi, "ratio": ratio,
            "kept": ratio is not None and KEPT[0] <= ratio <= KEPT[1], "hits": hits, "hits_lo": h_lo,
            "hits_hi": h_hi, "hits_unknown": u_hits, "hits_unknown_lo": u_lo, "hits_unknown_hi": u_hi,
            "realised_unknown": u_realised, "worst_user": worst,
            "worst_user_realised": own[worst] if worst is not None else None,
            "normal": int(normal), "anomalous": int(anomalous), "users": len(per_user),
            "borrowed": borrowed / normal if normal else None, "unsupported": unsupported / normal if normal else None}


def _share(counts: Mapping[str, tuple[float, float]]) -> tuple[float | None, float | None, float | None]:
    """Pooled share of flagged sessions (flagged, scored per user) and its 95% CI drawing users."""
    total = sum(n for _, n in counts.values())
    if not total:
        return None, None, None
    lo, hi = user_bootstrap({u: f for u, (f, _) in counts.items()}, {u: n for u, (_, n) in counts.items()})
    return sum(f for f, _ in counts.values()) / total, lo, hi


def pu_calibration(blocks: Mapping[str, list[Block]], *, train: int = 1500, seed: int = 0,
                   rates: Iterable[float] = RATES, models: Iterable[str] = MODELS,
                   scores: Iterable[str] = SCORES, unknown: bool = True,
                   feedbacks: Iterable[bool] = (False, True)) -> pl.DataFrame:
    """Per model, score and rate asked, on the intruder-run streams (`intruder_runs.intruder_streams`): each
    target's training blocks are the warm-up, its later stream (own blocks and the intruders' runs) is scored in
    order; a short past borrows the other targets' training blocks; two-class reads against the other targets'
    training blocks. `hits_unknown` (two-class): each intruder's run scored with that intruder's training blocks
    left out of every background and lent reference, so the model has never seen him (one-class: = hits);
    `unknown=False` skips that reading (null columns; it scores each stream once per intruder again).
    feedback=True: every alarm is reviewed and the target's own flagged blocks are confirmed (`past_scores`'
    `confirmed`), the intruders' are not; its rows have no `hits_unknown` reading."""
    streams = intruder_streams(blocks, train=train, seed=seed)
    rows = []
    for model in models:
        kind = habit_kind(model)
        for score in scores:
            readings = _Readings(kind, score, {s.target: [b.sequence(_block_kind(kind)) for b in s.training]
                                               for s in streams})
            for feedback in feedbacks:
                for rate in rates:
                    rows.append(_pu_row(streams, readings, rate, feedback, unknown and not feedback))
    return pl.DataFrame(rows, schema=CALIBRATION_SCHEMA, orient="row")


def _pu_row(streams: Sequence[Stream], readings: _Readings, rate: float, feedback: bool,
            unknown: bool) -> dict[str, object]:
    """One `pu_calibration` row: every target's stream scored at `rate`, and once per intruder left out."""
    outcomes: list[Outcome] = []
    strangers: list[tuple[str, bool, bool]] | None = [] if unknown else None
    for s in streams:
        scored = readings.stream(s, rate, feedback=feedback)
        outcomes += [(s.target, b.user != s.target, x.flagged, x.borrowed, x.threshold is None)
                     for b, x in zip(s.later, scored, strict=True)]
        for intruder in sorted({b.user for b in s.later} - {s.target}) if unknown else ():
            if readings.score == "two_class":
                scored = readings.stream(s, rate, unknown=intruder)
            strangers += [(s.target, b.user == intruder, x.flagged)
                          for b, x in zip(s.later, scored, strict=True) if b.user in (s.target, intruder)]
    return _row("PU intruder runs", readings.kind, readings.score, rate, outcomes, strangers, feedback)


class _Readings:
    """The targets' later blocks scored by one model and score (`past_scores`), each borrowing the other targets'
    warm-ups while its past is short; `unknown`: a user the model is not to know (out of every background,
    lending nothing). The lent references are computed once per lender and unknown user."""

    def __init__(self, kind: HabitKind, score: str, training: Mapping[str, list[list[str]]]):
        self.kind, self.score, self.training = kind, score, training
        self._lent: dict[tuple[str, str | None], list[float]] = {}

    def background(self, user: str, unknown: str | None) -> list[Sequence[str]]:
        if self.score == "one_class":
            return []
        return not_self(self.training, user, len(self.training[user]), leave_out=[unknown] if unknown else [])

    def lent(self, lender: str, unknown: str | None) -> list[float]:
        key = (lender, unknown)
        if key not in self._lent:
            self._lent[key] = scaled_reference(warmup_reference(self.training[lender], self.kind,
                                                                self.background(lender, unknown)))
        return self._lent[key]

    def stream(self, stream: Stream, rate: float, unknown: str | None = None,
               feedback: bool = False) -> list[PastScore]:
        lent = [d for u in sorted(self.training) if u not in (stream.target, unknown) for d in self.lent(u, unknown)]
        own = self.training[stream.target]
        sequences = [*own, *(b.sequence(_block_kind(self.kind)) for b in stream.later)]
        confirmed = ({len(own) + i for i, b in enumerate(stream.later) if b.user == stream.target}
                     if feedback else None)
        scored = past_scores(sequences, order=self.kind.order, alpha=self.kind.alpha, warmup=len(own),
                             false_alarm=rate, borrowed=lent, background=self.background(stream.target, unknown),
                             confirmed=confirmed)
        return scored[len(own):]


def corpus_calibration(trajs: Iterable[Trajectory], perturbed: Iterable[str], *, rates: Iterable[float] = RATES,
                       models: Iterable[str] = MODELS, scores: Iterable[str] = SCORES,
                       feedbacks: Iterable[bool] = (False, True), data: str = "simulated personas") -> pl.DataFrame:
    """Per model, score and rate asked, `drift(..., detector="habit", reference="past", false_alarm=rate,
    score=score)` on a corpus: normal = the sessions not in `perturbed` (trajectory ids), anomalous = those in
    it (the user's own sessions: no intruder to leave out, `hits_unknown` null). feedback=True: the normal
    sessions are `confirmed`, the perturbed ones (the anomalies to catch) are not."""
    from .drift import drift

    trajs, shifted = list(trajs), set(perturbed)
    rows = []
    for model in models:
        kind = habit_kind(model)
        for score in scores:
            for feedback in feedbacks:
                confirmed = [t.id for t in trajs if t.id not in shifted] if feedback else None
                for rate in rates:
                    frame = drift(trajs, detector="habit", reference="past", false_alarm=rate, model=model,
                                  judge=False, score=score, confirmed=confirmed)
                    frame = frame.filter(pl.col("deviation").is_not_null())
                    outcomes = [(r["profile_id"], r["trajectory_id"] in shifted, r["flagged"], bool(r["borrowed"]),
                                 r["threshold"] is None) for r in frame.iter_rows(named=True)]
                    rows.append(_row(data, kind, score, rate, outcomes, feedback=feedback))
    return pl.DataFrame(rows, schema=CALIBRATION_SCHEMA, orient="row")
