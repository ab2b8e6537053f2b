"""Masquerade with intruder *runs*: an intruder who stays several blocks in a row, and whether he can hide in them.

    streams = intruder_streams(blocks, train=1500, seed=0)     # per target: training blocks, spliced later stream
    runs_table(blocks, train=1500, seed=0)                      # one row per detector and reference

The spliced protocol of `masquerade.py` scores each intruder block on its own. A real intruder often stays:
here, per target user, one run of each other user (that user's first `L` blocks after command `train`, `L`
drawn uniformly from `RUN_LENGTHS`) is spliced into the target's own later stream, at a seeded random place,
in order. Every block of that stream is then scored in one of two ways:

- reference="others": against every *other* block of the target's stream (training blocks, its own later
  blocks and the intruder's): `drift(..., reference="others")` on a history. The intruder's blocks vouch for
  each other: the longer the run, the less his blocks stand out.
- reference="past": prequentially (`past_drift.past_scores`): the training blocks are the warm-up; each later
  block is scored by a model of the accepted *earlier* blocks only, and added to it only when not flagged
  (tau = 1.5 on the reference deviations). The 17-D fingerprint's "past" is its one-class detector of
  `masquerade.py` (the training blocks' centroid, no updating).

Reported per detector and reference: AUC (P(an intruder block scores above a normal one), mean over targets,
95% CI drawing targets), hit rates at 1% / 5% false alarms pooled over targets (thresholds at the normal blocks'
99th / 95th percentiles), for "past" the share of intruder blocks the model absorbed (not flagged, so learnt
from), and the shuffled-label control: the same scores with each target's intruder labels permuted over its
stream (AUC near 0.5, or the scoring leaks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

from .fingerprint import FEATURES, deviations
from .habit import Counts
from .masquerade import COMMAND_ALPHA, Block, detection_summary, habit_model, masquerade_scores, split_at
from .past_drift import past_scores

RUN_LENGTHS = (1, 10)  # an intruder's run: this many consecutive blocks, drawn uniformly (inclusive)
REFERENCES = ("others", "past")
DETECTORS = (("habit Markov", "habit", 1), ("habit multinomial", "habit", 0),
             ("command multinomial (naive Bayes)", "command", 0), ("17-D fingerprint", "fingerprint", 1))
SCORE_SCHEMA = {"target": pl.String, "position": pl.Int64, "typed_by": pl.String, "masquerade": pl.Boolean,
                "score": pl.Float64, "absorbed": pl.Boolean}
RUNS_SCHEMA = {"detector": pl.String, "reference": pl.String, "masquerade_auc": pl.Float64,
               "masquerade_auc_lo": pl.Float64, "masquerade_auc_hi": pl.Float64, "hit_at_1pct": pl.Float64,
               "hit_at_5pct": pl.Float64, "absorbed": pl.Float64, "shuffled_auc": pl.Float64, "users": pl.Int64,
               "normal_blocks": pl.Int64, "masquerade_blocks": pl.Int64, "runs": pl.Int64}


@dataclass(frozen=True)
class Stream:
    """One target's history: its training blocks, then its later blocks with the intruders' runs spliced in."""

    target: str
    training: list[Block]
    later: list[Block]  # in time order; a block whose user is not the target is an intruder's
    runs: int


def intruder_streams(blocks: Mapping[str, list[Block]], *, train: int, seed: int = 0,
                     run_lengths: tuple[int, int] = RUN_LENGTHS) -> list[Stream]:
    """Per target (sorted): every other user's run spliced into its later blocks at a seeded place (module doc)."""
    low, high = run_lengths
    if not 1 <= low <= high:
        raise ValueError(f"run_lengths must be (low, high) with 1 <= low <= high, got {run_lengths}")
    fit, later = split_at(blocks, train)
    users = sorted(later)
    streams = []
    for index, target in enumerate(users):
        rng = np.random.default_rng([seed, index])
        runs = [later[other][:int(rng.integers(low, high + 1))] for other in users if other != target]
        places = rng.integers(0, len(later[target]) + 1, size=len(runs))  # before the target's block at `place`
        spliced: list[Block] = []
        for k, block in enumerate([*later[target], None]):
            for run, place in zip(runs, places, strict=True):
                if place == k:
                    spliced += run
            if block is not None:
                spliced.append(block)
        streams.append(Stream(target, fit[target], spliced, len(runs)))
    return streams


def _habit_scores(stream: Stream, detector: str, order: int, reference: str) -> tuple[list[float], list[bool]]:
    history = [b.sequence(detector) for b in stream.training]
    later = [b.sequence(detector) for b in stream.later]
    if reference == "past":
        alpha = COMMAND_ALPHA if detector == "command" else None
        scored = past_scores(history + later, order=0 if alpha else order, warmup=len(history), alpha=alpha)
        return [s.deviation for s in scored][len(history):], [s.accepted for s in scored][len(history):]
    model = habit_model(detector, order)
    for sequence in history + later:
        model.update("u", sequence)
    return [-model.log_likelihood(model.users["u"], s, Counts.of(s)) for s in later], [True] * len(later)


def _fingerprint_others(stream: Stream) -> list[float]:
    """Paper Eq. 1 over the target's whole stream: each block's distance to the centroid of the z-scored blocks."""
    everything = [*stream.training, *stream.later]
    frame = pl.DataFrame({"trajectory_id": [str(k) for k in range(len(everything))], "profile_id": stream.target,
                          **{f: [float(b.features[i]) for b in everything] for i, f in enumerate(FEATURES)}})
    return deviations(frame)["deviation"].to_list()[len(stream.training):]


def stream_scores(blocks: Mapping[str, list[Block]], streams: list[Stream], *, train: int, detector: str,
                  order: int = 1, reference: str = "others") -> pl.DataFrame:
    """Per (target, later block): its anomaly score under `detector` and `reference`, whether an intruder typed
    it, and (reference="past", habit-type detectors) whether the model then learnt from it."""
    if reference not in REFERENCES:
        raise ValueError(f"reference must be one of {', '.join(REFERENCES)}, got {reference!r}")
    if detector not in ("habit", "command", "fingerprint"):
        raise ValueError(f"detector must be 'habit', 'command' or 'fingerprint', got {detector!r}")
    one_class = None
    if detector == "fingerprint" and reference == "past":
        spliced = {s.target: [b for b in s.later if b.user != s.target] for s in streams}
        test = max((b.start + b.size for bs in spliced.values() for b in bs), default=train) - train
        one_class = masquerade_scores(blocks, train=train, test=test, detector="fingerprint")
        one_class = {(r["target"], r["typed_by"], r["start"]): r["score"] for r in one_class.iter_rows(named=True)}
    rows = []
    for stream in streams:
        if detector == "fingerprint":
            scores = (_fingerprint_others(stream) if one_class is None else
                      [one_class[(stream.target, b.user, b.start)] for b in stream.later])
            absorbed = [None] * len(scores)
        else:
            scores, accepted = _habit_scores(stream, detector, order, reference)
            absorbed = accepted if reference == "past" else [None] * len(scores)
        rows += [(stream.target, k, b.user, b.user != stream.target, score, kept)
                 for k, (b, score, kept) in enumerate(zip(stream.later, scores, absorbed, strict=True))]
    return pl.DataFrame(rows, schema=SCORE_SCHEMA, orient="row")


def shuffled_labels(scores: pl.DataFrame, seed: int = 0) -> pl.DataFrame:
    """The control: each target's intruder labels permuted over its stream's blocks (scores kept)."""
    rng = np.random.default_rng(seed)
    parts = []
    for (_,), group in scores.group_by("target", maintain_order=True):
        labels = group["masquerade"].to_numpy().copy()
        rng.shuffle(labels)
        parts.append(group.with_columns(pl.Series("masquerade", labels)))
    return pl.concat(parts) if parts else scores


def runs_table(blocks: Mapping[str, list[Block]], *, train: int = 1500, seed: int = 0,
               run_lengths: tuple[int, int] = RUN_LENGTHS) -> pl.DataFrame:
    """One row per detector and reference on the intruder-run streams (module doc)."""
    streams = intruder_streams(blocks, train=train, seed=seed, run_lengths=run_lengths)
    rows = []
    for name, detector, order in DETECTORS:
        for reference in REFERENCES:
            scores = stream_scores(blocks, streams, train=train, detector=detector, order=order, reference=reference)
            intruders = scores.filter(pl.col("masquerade"))
            absorbed = intruders["absorbed"].drop_nulls()
            rows.append({"detector": name, "reference": reference, **detection_summary(scores),
                         "absorbed": float(absorbed.mean()) if len(absorbed) else None,
                         "shuffled_auc": detection_summary(shuffled_labels(scores, seed))["masquerade_auc"],
                         "users": len(streams), "runs": sum(s.runs for s in streams)})
    return pl.DataFrame(rows, schema=RUNS_SCHEMA).select(list(RUNS_SCHEMA))
