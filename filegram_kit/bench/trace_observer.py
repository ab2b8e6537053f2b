"""The ideal observer of the traces themselves: what a perfect memory could know from the events alone.

`observer_engine` (observer.py) reads `expressed.json`, the engine's record of which tier each session
expressed, so its 100% says the engine expressed a difference, not that the traces show it. This observer
reads only what a memory could read: each session's features (the 17-D fingerprint, the extended features
and the share of Chinese in what it wrote), turned into a per-session reading of each dimension's tier and
of each attribute that fired by classifiers fit on the *other* personas' sessions (leave one persona out:
the persona under test never lends its labels). Those readings replace the engine's record in the same
observer rules (evidence.py), so `observer_traces` answers every item as the ideal observer would if it
could see only the traces. Its accuracy per sub-task is the ceiling a perfect memory could reach; an item it
cannot answer (a tie) counts as a miss, and `unanswerable` says how many there were.

    facts_t = trace_facts("data/corpus", facts)         # CorpusFacts with trace-based readings
    observe(item, facts_t)                              # the trace observer's choice
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl

from ..behaviour.fingerprint import FEATURES, extended_features, fingerprint_frame
from ..traces.frames import events_frame
from ..traces.schema import DIMENSION_CODES
from .ground_truth import CorpusFacts, Expression
from .inputs import TrajectoryStore

NONE = "-"  # an attribute that did not fire in a session
MIN_CLASS = 2  # a label seen fewer times in the training personas is not learnt


def session_features(corpus: str | Path, trajectory_ids: list[str]) -> pl.DataFrame:
    """One row per trajectory: trajectory_id, then numeric features a memory could compute from its events."""
    store = TrajectoryStore(corpus)
    store.preload(trajectory_ids)
    trajs = [store.anonymous(t) for t in trajectory_ids]
    return trajectory_features([replace(t, id=tid) for t, tid in zip(trajs, trajectory_ids, strict=True)])


def trajectory_features(trajs: list) -> pl.DataFrame:
    """`session_features` of loaded trajectories, one row each keyed by `trajectory_id` (the trajectory's id):
    the 17-D fingerprint, the extended features and the share of Han characters in what was written."""
    frame = events_frame(trajs, with_content=True)
    fp = fingerprint_frame(frame).select("trajectory_id", *FEATURES)
    ext = extended_features(frame).drop("profile_id", "task_id", strict=False)
    written = (frame.filter(pl.col("content").is_not_null()).group_by("trajectory_id")
               .agg(pl.col("content").str.count_matches(r"\p{Han}").sum().alias("_han"),
                    pl.col("content").str.len_chars().sum().alias("_chars"))
               .select("trajectory_id", (pl.col("_han") / pl.col("_chars").clip(1)).alias("han_share")))
    ids = pl.DataFrame({"trajectory_id": [t.id for t in trajs]})
    out = ids.join(fp, on="trajectory_id", how="left").join(ext, on="trajectory_id", how="left") \
        .join(written, on="trajectory_id", how="left")
    numeric = [c for c, t in out.schema.items() if c != "trajectory_id" and t.is_numeric()]
    return out.select("trajectory_id", *[pl.col(c).cast(pl.Float64).fill_null(0.0).fill_nan(0.0) for c in numeric])


class TooFewPersonas(ValueError):
    """The sessions come from fewer than two personas: nothing to fit the out-of-persona models on."""


def _fit_predict(x_train: np.ndarray, y_train: list[str], x_test: np.ndarray) -> list[str]:
    """A standardised multinomial logistic regression; a constant label when the training set has one."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    labels, counts = np.unique(y_train, return_counts=True)
    keep = np.isin(y_train, labels[counts >= MIN_CLASS])
    if len(set(np.asarray(y_train)[keep])) < 2:
        return [str(labels[np.argmax(counts)])] * len(x_test)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(x_train[keep], np.asarray(y_train)[keep])
    return [str(v) for v in model.predict(x_test)]


def read_sessions(features: pl.DataFrame, facts: CorpusFacts) -> dict[str, Expression]:
    """Per trajectory, its tiers and fired attributes as read from its features by models fit on other personas."""
    ids = features["trajectory_id"].to_list()
    x = features.drop("trajectory_id").to_numpy()
    persona = np.array([facts.persona_of.get(t, "") for t in ids])
    if len(set(persona)) < 2:
        raise TooFewPersonas(f"the observer of the traces reads a persona's sessions with models fit on the other "
                             f"personas' sessions: it needs at least 2 personas, got {sorted(set(persona))}")
    attributes = sorted({a for t in ids for a in facts.expressed[t].attributes})
    labels = {d: [facts.expressed[t].tiers[d] for t in ids] for d in DIMENSION_CODES}
    labels |= {a: [facts.expressed[t].attributes.get(a, NONE) for t in ids] for a in attributes}
    read: dict[str, dict[str, str]] = {t: {} for t in ids}
    for pid in sorted(set(persona)):
        test, train = persona == pid, persona != pid
        for name, y in labels.items():
            y_train = [v for v, keep in zip(y, train, strict=True) if keep]
            for t, value in zip(np.array(ids)[test], _fit_predict(x[train], y_train, x[test]), strict=True):
                read[t][name] = value
    return {t: Expression(tiers={d: read[t][d] for d in DIMENSION_CODES},
                          attributes={a: read[t][a] for a in attributes if read[t][a] != NONE},
                          source="traces") for t in ids}


@functools.lru_cache(maxsize=4)
def _trace_facts(corpus: str, facts: CorpusFacts) -> CorpusFacts:
    ids = sorted(facts.expressed)
    return replace(facts, expressed=read_sessions(session_features(corpus, ids), facts))


def trace_facts(corpus: str | Path, facts: CorpusFacts) -> CorpusFacts:
    """`facts` whose per-session record is what the traces show (read_sessions) instead of the engine's."""
    return _trace_facts(str(Path(corpus).resolve()), facts)


def recovery(facts: CorpusFacts, traced: CorpusFacts) -> dict[str, float]:
    """Share of sessions whose trace reading of each dimension equals the engine's record: how much of what the
    engine expressed the traces carry."""
    ids = sorted(traced.expressed)
    return {d: float(np.mean([traced.expressed[t].tiers[d] == facts.expressed[t].tiers[d] for t in ids]))
            for d in DIMENSION_CODES}
