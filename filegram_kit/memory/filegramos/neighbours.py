"""Where a recorded user sits among the personas: per dimension, a calibrated L/M/R reading and the nearest personas.

Both views use only the paper's procedural fingerprint (Table 6), so a real user and the engine's
personas are compared on the same 17 numbers:

- reading: FileGramOS's calibrated classifier of each dimension applied to the user's mean fingerprint
  (the same reading the memory's procedural channel reports);
- neighbours: per dimension, the personas whose mean fingerprint on that dimension's features is
  closest, in units of the spread of those features over all persona sessions (so a feature counted
  in thousands of characters does not drown a ratio).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl

from ...behaviour.fingerprint import FEATURES
from ...traces.schema import DIMENSION_CODES, DIMENSIONS, Profile
from ...util.float_ties import ranked
from .calibration import Calibration, dimension_features, load_calibration, profile_means


def persona_neighbours(user_fp: pl.DataFrame, persona_fp: pl.DataFrame, personas: Mapping[str, Profile] | None = None,
                       *, k: int = 3, calibration: Calibration | None = None) -> pl.DataFrame:
    """Per dimension: the user's reading (tier, confidence) and the `k` nearest personas (rank, persona,
    its tier when `personas` is given, distance). `user_fp`: fingerprints of the user's sessions (all
    one user); `persona_fp`: fingerprints of a corpus, with `profile_id`."""
    if user_fp.is_empty():
        raise ValueError("persona_neighbours: the user has no session to compare (record or import one first)")
    if persona_fp.is_empty() or "profile_id" not in persona_fp.columns:
        raise ValueError("persona_neighbours: persona_fp needs fingerprint rows with a profile_id column")
    user = user_fp.select(pl.col(list(FEATURES)).mean()).row(0, named=True)
    readings = {r.dimension: r for r in (calibration or load_calibration()).read(user)}
    means = profile_means(persona_fp)
    spread = persona_fp.select(pl.col(list(FEATURES)).std(ddof=1)).row(0, named=True)
    rows = []
    for code in DIMENSION_CODES:
        feats = dimension_features(code)
        scale = np.array([spread[f] if spread[f] and spread[f] > 0 else 1.0 for f in feats])
        mine = np.array([user[f] for f in feats]) / scale
        theirs = means.select(feats).to_numpy() / scale
        distance = np.linalg.norm(theirs - mine, axis=1)
        ids = means["profile_id"].to_list()
        for rank, i in enumerate(ranked(distance, descending=False)[:k], start=1):
            persona = ids[i]
            tier = personas[persona].tiers[code].value if personas and persona in personas else None
            rows.append({"dimension": code, "name": DIMENSIONS[code].name, "reading": readings[code].tier,
                         "reading_label": readings[code].label, "confidence": readings[code].confidence,
                         "rank": rank, "persona": persona,
                         "persona_tier": tier, "distance": round(float(distance[i]), 3),
                         "features": ", ".join(feats)})
    return pl.DataFrame(rows, schema_overrides={"persona_tier": pl.String})
