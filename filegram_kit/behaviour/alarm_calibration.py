"""Do drift alarms keep the false-alarm rate a user asks for? Asked against realised, per habit model.

    pu_calibration(blocks, train=1500, seed=0)     # real users: the PU intruder-run streams
    corpus_calibration(trajs, perturbed_ids)        # the simulated personas: their perturbed sessions

Each user's sessions are scored against the past only (`past_drift.past_scores`, the rule of
`drift(..., detector="habit", reference="past", false_alarm=rate)`), at each rate asked. Realised = the share of
the user's own (normal) sessions flagged, pooled over users; hits = the share of anomalous sessions flagged
(an intruder's blocks; a persona's sessions perturbed by one tier). `_lo`/`_hi`: 95% CIs drawing users with
replacement (a user's sessions share that user's habits). `borrowed`: the share of scored normal sessions
whose threshold needed other users' warm-ups (the user's past was too short for the rate); `unsupported`: the
share that could not be flagged at all (too little past, own and borrowed). A rate asked is kept when realised
/ asked lies in [0.5, 2] (`KEPT`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from ..traces.schema import Trajectory
from .habit import MODELS, HabitKind, habit_kind
from .intruder_runs import intruder_streams
from .masquerade import Block, user_bootstrap
from .past_drift import past_scores, scaled_reference, warmup_reference

RATES = (0.005, 0.01, 0.05)
KEPT = (0.5, 2.0)  # realised / asked within this band: the promise held
CALIBRATION_SCHEMA = {
    "data": pl.String, "model": pl.String, "asked": pl.Float64, "realised": pl.Float64, "realised_lo": pl.Float64,
    "realised_hi": pl.Float64, "ratio": pl.Float64, "kept": pl.Boolean, "hits": pl.Float64, "hits_lo": pl.Float64,
    "hits_hi": pl.Float64, "normal": pl.Int64, "anomalous": pl.Int64, "users": pl.Int64, "borrowed": pl.Float64,
    "unsupported": pl.Float64,
}


def _block_kind(kind: HabitKind) -> str:
    """What a Block reads for this model: its command names or its action tokens (`Block.sequence`)."""
    return "command" if kind.commands_only else "habit"


def _row(data: str, kind: HabitKind, asked: float, outcomes: Sequence[tuple[str, bool, bool, bool, bool]]
         ) -> dict[str, object]:
    """One calibration row from (user, anomalous, flagged, borrowed, unsupported) per scored session."""
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
    hits = sum(c[2] for c in per_user.values()) / anomalous if anomalous else None
    r_lo, r_hi = user_bootstrap({u: c[0] for u, c in per_user.items()}, {u: c[1] for u, c in per_user.items()})
    h_lo, h_hi = (user_bootstrap({u: c[2] for u, c in per_user.items() if c[3]},
                                 {u: c[3] for u, c in per_user.items() if c[3]}) if anomalous else (None, None))
    ratio = realised / asked if realised is not None else None
    return {"data": data, "model": kind.label, "asked": asked, "realised": realised, "realised_lo": r_lo,
            "realised_hi": r_hi, "ratio": ratio, "kept": ratio is not None and KEPT[0] <= ratio <= KEPT[1],
            "hits": hits, "hits_lo": h_lo, "hits_hi": h_hi, "normal": int(normal), "anomalous": int(anomalous),
            "users": len(per_user), "borrowed": borrowed / normal if normal else None,
            "unsupported": unsupported / normal if normal else None}


def pu_calibration(blocks: Mapping[str, list[Block]], *, train: int = 1500, seed: int = 0,
                   rates: Iterable[float] = RATES, models: Iterable[str] = MODELS) -> pl.DataFrame:
    """Per model and rate asked, on the intruder-run streams (`intruder_runs.intruder_streams`): each target's
    training blocks are the warm-up, its later stream (own blocks and the intruders' runs) is scored in order;
    a short past borrows the other targets' training blocks."""
    streams = intruder_streams(blocks, train=train, seed=seed)
    rows = []
    for model in models:
        kind = habit_kind(model)
        read = _block_kind(kind)
        warm = {s.target: scaled_reference(warmup_reference([b.sequence(read) for b in s.training], kind))
                for s in streams}
        for rate in rates:
            outcomes = []
            for s in streams:
                lent = [d for other, ref in sorted(warm.items()) if other != s.target for d in ref]
                sequences = [b.sequence(read) for b in [*s.training, *s.later]]
                scored = past_scores(sequences, order=kind.order, alpha=kind.alpha, warmup=len(s.training),
                                     false_alarm=rate, borrowed=lent)[len(s.training):]
                outcomes += [(s.target, b.user != s.target, x.flagged, x.borrowed, x.threshold is None)
                             for b, x in zip(s.later, scored, strict=True)]
            rows.append(_row("PU intruder runs", kind, rate, outcomes))
    return pl.DataFrame(rows, schema=CALIBRATION_SCHEMA, orient="row")


def corpus_calibration(trajs: Iterable[Trajectory], perturbed: Iterable[str], *, rates: Iterable[float] = RATES,
                       models: Iterable[str] = MODELS, data: str = "simulated personas") -> pl.DataFrame:
    """Per model and rate asked, `drift(..., detector="habit", reference="past", false_alarm=rate)` on a corpus:
    normal = the sessions not in `perturbed` (trajectory ids), anomalous = those in it."""
    from .drift import drift

    trajs, shifted = list(trajs), set(perturbed)
    rows = []
    for model in models:
        kind = habit_kind(model)
        for rate in rates:
            frame = drift(trajs, detector="habit", reference="past", false_alarm=rate, model=model, judge=False)
            frame = frame.filter(pl.col("deviation").is_not_null())
            outcomes = [(r["profile_id"], r["trajectory_id"] in shifted, r["flagged"], bool(r["borrowed"]),
                         r["threshold"] is None) for r in frame.iter_rows(named=True)]
            rows.append(_row(data, kind, rate, outcomes))
    return pl.DataFrame(rows, schema=CALIBRATION_SCHEMA, orient="row")
