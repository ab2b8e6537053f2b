"""The Act test's reader: which tier the acting agent acted as, read from several of its runs together.

One run is one session, and one session often does not show a habit (a curator with nothing to clean up,
a reviser whose task needed one edit). So the runs a condition made for a dimension (several held-out tasks,
several seeds each: split.py) are read *together*: the mean of their session features goes through a
per-dimension multinomial logistic regression fit on groups of as many sessions drawn from the *other*
personas' corpus sessions of tasks that fully activate the dimension, each group labelled with its persona's
tier. The persona under test never lends its labels (leave one persona out), and the engine's record of the
act runs is never read. The features are the trace observer's (bench/trace_observer.py): the 17-D
fingerprint, the extended features and the share of Chinese in what the session wrote, on a log scale.

Two feature sets compete per dimension and persona-grouped cross-validation *on the training personas only*
picks one: the dimension's Table 6 features (few, robust where the habit is a count, e.g. E's deletions)
and every feature under an L1 penalty (which finds what Table 6 misses, e.g. B's formatting). The reading is
the model's probability per tier: its uncertainty travels with it (`Reading.probabilities`).

The same recipe fit on single sessions (groups of one) reads each run alone; the mean of its probability
of a tier over a condition's runs is the *share* of runs that read as that tier (`ActReader.share`). That
is what the Act judge compares between the memory runs and the zero-memory runs: the zero-memory agent's
runs mix tiers (act.py), and a mixture's mean features read like its middle tier, so comparing group
readings would punish a user whose tier is the middle one; comparing shares does not.

    reader = fit_act_reader(corpus_features, facts, "p3_efficient_executor", runs=9)
    reader.read(run_features, "E")        # Reading(dimension="E", tier="M", confidence=0.71, ...)
    reader.share(run_features, "E", "M")  # 0.52: the runs' mean probability of reading as M one by one
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ..bench.ground_truth import CorpusFacts
from ..bench.trace_observer import trajectory_features
from ..memory.filegramos.calibration import Reading, dimension_features
from ..traces.cleaning import clean
from ..traces.load import load_trajectories
from ..traces.schema import DIMENSION_CODES

TIERS = ("L", "M", "R")
GROUPS = 30  # training groups drawn per training persona and dimension
FOLDS = 3  # persona-grouped folds that choose the feature set
CANDIDATES = {"table6": {"C": 1.0}, "all_l1": {"penalty": "l1", "solver": "saga", "C": 0.03, "random_state": 0}}


def run_features(runs: list[Path]) -> pl.DataFrame:
    """The trace observer's session features (`trace_observer.trajectory_features`) of act run folders, one row
    each, keyed by the folder's path: the same columns the reader was fit on."""
    return trajectory_features([replace(clean(load_trajectories(path, progress=False)).trajectories[0], id=str(path))
                                for path in runs])


def _log(values: np.ndarray) -> np.ndarray:
    return np.sign(values) * np.log1p(np.abs(values))


@dataclass(frozen=True)
class DimensionReader:
    """One dimension's fitted model: the feature set it chose and why (cross-validated accuracy per set)."""

    dimension: str
    features: tuple[str, ...]
    chosen: str
    cv_accuracy: dict[str, float]
    model: Any = field(repr=False)

    def probabilities(self, features: pl.DataFrame, *, together: bool) -> np.ndarray:
        """Rows x (L, M, R): each row's (together=False) or the rows' mean's (together=True) tier probabilities."""
        if features.is_empty():
            raise ValueError(f"no act runs to read dimension {self.dimension} from")
        raw = features.select(self.features).to_numpy().astype(float)
        x = _log(raw.mean(axis=0, keepdims=True) if together else raw)
        out = np.zeros((len(x), len(TIERS)))
        for j, tier in enumerate(self.model.classes_):
            out[:, TIERS.index(str(tier))] = self.model.predict_proba(x)[:, j]
        return out

    def read(self, features: pl.DataFrame) -> Reading:
        probs = dict(zip(TIERS, (float(p) for p in self.probabilities(features, together=True)[0]), strict=True))
        best = max(TIERS, key=lambda t: (probs[t], -TIERS.index(t)))
        return Reading(self.dimension, best, round(probs[best], 4), {t: round(p, 4) for t, p in probs.items()})


@dataclass(frozen=True)
class ActReader:
    """The six dimensions' readers of one persona under test (fit without it): of `runs` runs together, and of
    one run alone."""

    persona: str
    runs: int
    dimensions: dict[str, DimensionReader]
    single: dict[str, DimensionReader]

    def read(self, features: pl.DataFrame, dimension: str) -> Reading:
        """The tier the runs (one row of session features each) read as together on `dimension`."""
        return self.dimensions[dimension].read(features)

    def share(self, features: pl.DataFrame, dimension: str, tier: str) -> float:
        """The expected share of the runs that read as `tier` one by one."""
        return round(float(self.single[dimension].probabilities(features, together=False)[:, TIERS.index(tier)]
                           .mean()), 4)


def _groups(x: np.ndarray, by_persona: dict[str, np.ndarray], tiers: dict[str, str], size: int,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, labels, owners = [], [], []
    for pid in sorted(by_persona):
        pool = by_persona[pid]
        if size == 1:  # every session alone, once
            rows += [_log(x[i]) for i in pool]
            labels += [tiers[pid]] * len(pool)
            owners += [pid] * len(pool)
            continue
        for _ in range(GROUPS):
            pick = rng.choice(pool, size=min(size, len(pool)), replace=False)
            rows.append(_log(x[pick].mean(axis=0)))
            labels.append(tiers[pid])
            owners.append(pid)
    return np.array(rows), np.array(labels), np.array(owners)


def _model(candidate: str):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000, **CANDIDATES[candidate]))


class _Constant:
    """A reader for a dimension whose training personas all share one tier: it can only say that tier."""

    def __init__(self, tier: str):
        self.classes_ = np.array([tier])

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        return np.ones((len(x), 1))

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.repeat(self.classes_, len(x))


def _fit(x: np.ndarray, y: np.ndarray, candidate: str):
    if len(set(y)) < 2:
        return _Constant(str(y[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # saga's convergence notes on tiny groups
        return _model(candidate).fit(x, y)


def _choose(sets: dict[str, np.ndarray], y: np.ndarray, owners: np.ndarray, seed: int) -> tuple[str, dict]:
    """The candidate with the best persona-grouped cross-validated accuracy (Table 6 wins ties)."""
    personas = np.array(sorted(set(owners)))
    fold_of = dict(zip(personas, np.random.default_rng(seed).permutation(len(personas)) % FOLDS, strict=True))
    folds = np.array([fold_of[o] for o in owners])
    accuracy = {}
    for name, x in sets.items():
        hits = []
        for f in range(min(FOLDS, len(personas))):
            train, test = folds != f, folds == f
            if len(set(y[train])) < 2 or not test.any():
                continue
            hits += list(_fit(x[train], y[train], name).predict(x[test]) == y[test])
        accuracy[name] = round(float(np.mean(hits)), 4) if hits else 0.0
    best = max(sets, key=lambda n: (accuracy[n], n == "table6"))
    return best, accuracy


def fit_act_reader(features: pl.DataFrame, facts: CorpusFacts, persona: str, *, runs: int,
                   seed: int = 0) -> ActReader:
    """Fit the readers for `persona` on every other persona's unperturbed corpus sessions (see module docstring).

    `features`: one row per corpus session (trace_observer.session_features)."""
    return ActReader(persona, runs, _fit_readers(features, facts, persona, runs, seed),
                     _fit_readers(features, facts, persona, 1, seed))


def _fit_readers(features: pl.DataFrame, facts: CorpusFacts, persona: str, runs: int,
                 seed: int) -> dict[str, DimensionReader]:
    ids = features["trajectory_id"].to_list()
    persona_of, task_of = facts.persona_of, facts.task_of
    usable = [i for i, t in enumerate(ids) if t in persona_of and persona_of[t] != persona and t not in facts.shifts]
    if len({persona_of[ids[i]] for i in usable}) < 2:
        raise ValueError(f"the Act reader of {persona} is fit on the other personas' sessions: the corpus needs at "
                         f"least two other personas, it has {sorted({persona_of[ids[i]] for i in usable})}")
    columns = [c for c in features.columns if c != "trajectory_id"]
    x_all = features.select(columns).to_numpy().astype(float)
    varying = [c for c, sd in zip(columns, x_all[usable].std(axis=0), strict=True) if sd > 0]
    readers = {}
    for d in DIMENSION_CODES:
        rng = np.random.default_rng([seed, runs, DIMENSION_CODES.index(d)])
        by_persona: dict[str, list[int]] = {}
        for i in usable:
            if facts.tasks[task_of[ids[i]]].activation(d) == "full":
                by_persona.setdefault(persona_of[ids[i]], []).append(i)
        if not by_persona:
            raise ValueError(f"no training session fully activates dimension {d}: the Act reader cannot be fit")
        tiers = {p: facts.tiers(p)[d] for p in by_persona}
        sets = {name: cols for name, cols in (("table6", [c for c in dimension_features(d) if c in columns]),
                                              ("all_l1", varying)) if cols}
        if not sets:
            raise ValueError(f"the session features have no column that varies: dimension {d} cannot be read")
        means, y, owners = _groups(x_all, {p: np.array(v) for p, v in by_persona.items()}, tiers, runs, rng)
        matrices = {n: means[:, [columns.index(c) for c in cols]] for n, cols in sets.items()}
        chosen, accuracy = _choose(matrices, y, owners, seed)
        readers[d] = DimensionReader(d, tuple(sets[chosen]), chosen, accuracy, _fit(matrices[chosen], y, chosen))
    return readers
