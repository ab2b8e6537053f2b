"""The procedural channel's L/M/R reading: per-dimension classifiers fit on synthetic personas.

For each dimension, a multinomial logistic regression reads the tier from the user's mean
fingerprint over that dimension's Table 6 features (count features on a log1p scale, all
standardised). Its decision boundaries are the thresholds; its probability for the chosen tier
is the confidence. It is fit on calibration personas drawn by `sample_profiles` (never the 20
evaluated ones: `sample_profiles` excludes their tier vectors) and their offline-engine
trajectories, and stored as plain numbers in `filegram_kit/data/calibration.json`, so reading a
tier needs numpy only. `filegram calibrate` rebuilds it (`filegram_kit.cli.calibrate`, outside memory/
because it drives the engine); the file records the engine it was fit on, and a test fails when
the engine changes without a refit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ...behaviour.fingerprint import FEATURE_DIMENSION, FEATURES
from ...traces.schema import DIMENSION_CODES, DIMENSIONS
from ...util import atomic
from ...util.float_ties import first_best

CALIBRATION_PATH = Path(__file__).resolve().parents[2] / "data" / "calibration.json"
RATIO_FEATURES = frozenset({"search_ratio", "browse_ratio", "revisit_ratio", "small_edit_ratio"})
TIERS = ("L", "M", "R")
REGULARISATION = 1.0  # sklearn's C: the calibration set is small (tens of personas)


@dataclass(frozen=True)
class Reading:
    dimension: str
    tier: str  # L | M | R
    confidence: float  # the classifier's probability of that tier
    probabilities: dict[str, float]

    @property
    def label(self) -> str:
        return DIMENSIONS[self.dimension].describe(self.tier)


@dataclass(frozen=True)
class DimensionModel:
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[tuple[float, ...], ...]  # one row per tier (L, M, R)
    intercept: tuple[float, ...]

    def transform(self, values: np.ndarray) -> np.ndarray:
        logged = np.array([v if f in RATIO_FEATURES else np.log1p(max(v, 0.0)) for f, v in zip(self.features, values,
                                                                                                   strict=True)])
        return (logged - np.array(self.mean)) / np.array(self.scale)

    def probabilities(self, values: np.ndarray) -> np.ndarray:
        logits = np.array(self.coef) @ self.transform(values) + np.array(self.intercept)
        weights = np.exp(logits - logits.max())
        return weights / weights.sum()


def dimension_features(code: str) -> tuple[str, ...]:
    return tuple(f for f in FEATURES if FEATURE_DIMENSION[f] == code)


@dataclass(frozen=True)
class Calibration:
    models: dict[str, DimensionModel]
    meta: dict[str, Any]

    def read(self, mean_fingerprint: Mapping[str, float]) -> list[Reading]:
        """The L/M/R reading of every dimension from a user's mean fingerprint."""
        out = []
        for code in DIMENSION_CODES:
            model = self.models[code]
            probs = model.probabilities(np.array([float(mean_fingerprint[f]) for f in model.features]))
            best = first_best(probs)
            out.append(Reading(code, TIERS[best], round(float(probs[best]), 3),
                               {t: round(float(p), 3) for t, p in zip(TIERS, probs, strict=True)}))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"meta": self.meta, "models": {c: {"features": list(m.features), "mean": list(m.mean),
                                                  "scale": list(m.scale), "coef": [list(r) for r in m.coef],
                                                  "intercept": list(m.intercept)} for c, m in self.models.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: str = "calibration") -> Calibration:
        try:
            models = {c: DimensionModel(tuple(m["features"]), tuple(m["mean"]), tuple(m["scale"]),
                                        tuple(tuple(r) for r in m["coef"]), tuple(m["intercept"]))
                      for c, m in data["models"].items()}
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{source}: malformed calibration ({exc!r})") from None
        missing = [c for c in DIMENSION_CODES if c not in models]
        if missing:
            raise ValueError(f"{source}: no model for dimension(s) {', '.join(missing)}")
        return cls(models, dict(data.get("meta", {})))


def load_calibration(path: str | Path | None = None) -> Calibration:
    path = Path(path or CALIBRATION_PATH)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no calibration; build one with `filegram calibrate`")
    return Calibration.from_json(json.loads(path.read_text(encoding="utf-8")), str(path))


def profile_means(fp: pl.DataFrame) -> pl.DataFrame:
    """Mean fingerprint per profile_id (the unit the classifiers read)."""
    return fp.group_by("profile_id", maintain_order=True).agg(pl.col(list(FEATURES)).mean()).sort("profile_id")


def fit_calibration(fp: pl.DataFrame, tiers: Mapping[str, Mapping[str, str]], *, seed: int = 0,
                    meta: Mapping[str, Any] | None = None) -> Calibration:
    """Fit the six dimension classifiers on per-session fingerprints (`profile_id` column) and the
    profiles' true tiers (profile id -> dimension -> "L"/"M"/"R"); meta records cross-validated accuracy."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    means = profile_means(fp)
    unknown = [p for p in means["profile_id"] if p not in tiers]
    if unknown:
        raise ValueError(f"fit_calibration: no tiers for profile(s) {', '.join(unknown[:5])}")
    models, accuracy = {}, {}
    for code in DIMENSION_CODES:
        feats = dimension_features(code)
        y = np.array([str(tiers[p][code]) for p in means["profile_id"]])
        raw = means.select(feats).to_numpy().astype(float)
        logged = np.column_stack([raw[:, i] if f in RATIO_FEATURES else np.log1p(np.maximum(raw[:, i], 0))
                                  for i, f in enumerate(feats)])
        mean, scale = logged.mean(axis=0), logged.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        x = (logged - mean) / scale
        missing = [t for t in TIERS if t not in set(y)]
        if missing:
            raise ValueError(f"fit_calibration: dimension {code} has no calibration persona of tier(s) {missing}")
        clf = LogisticRegression(C=REGULARISATION, max_iter=2000).fit(x, y)
        order = [list(clf.classes_).index(t) for t in TIERS]
        models[code] = DimensionModel(feats, tuple(mean.round(6)), tuple(scale.round(6)),
                                      tuple(tuple(clf.coef_[i].round(6)) for i in order),
                                      tuple(clf.intercept_[order].round(6)))
        folds = min(5, int(np.bincount(np.unique(y, return_inverse=True)[1]).min()))
        if folds >= 2:
            cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
            accuracy[code] = round(float(cross_val_score(LogisticRegression(C=REGULARISATION, max_iter=2000), x, y,
                                                         cv=cv).mean()), 3)
    info = {**(meta or {}), "personas": means.height, "sessions": fp.height, "cv_accuracy": accuracy}
    return Calibration(models, info)


def save_calibration(calibration: Calibration, path: str | Path | None = None) -> Path:
    path = Path(path or CALIBRATION_PATH)
    atomic.write_json(path, calibration.to_json())
    return path


CALIBRATION_SEED = 1001  # the calibration personas' seed: distinct from corpus seeds 0, 1, 2, ...
