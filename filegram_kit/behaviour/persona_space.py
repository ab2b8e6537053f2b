"""Personas as points in tier space: frames, tier balance, pairwise distances, nearest neighbours.

Two distances between personas: `hamming` counts dimensions whose tier differs (the paper's
"fine-grained" pairs differ in 1-2, "coarse" in 5-6); `ordinal` sums |tier index difference|, so
L vs R counts 2.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import polars as pl

from ..traces.schema import BEHAVIORAL_ATTRIBUTES, DIMENSION_CODES, TIERS, Profile


def _as_list(profiles: Iterable[Profile] | dict[str, Profile]) -> list[Profile]:
    return list(profiles.values()) if isinstance(profiles, dict) else list(profiles)


def profiles_frame(profiles: Iterable[Profile] | dict[str, Profile], *, attributes: bool = False) -> pl.DataFrame:
    """One row per persona: identity, tier per dimension (and per behavioral attribute)."""
    rows = []
    for p in _as_list(profiles):
        row = {"id": p.id, "name": p.name, "role": p.role, "language": p.language,
               **{d: p.tiers[d].value for d in DIMENSION_CODES}}
        if attributes:
            row.update({a: p.attributes[a].value for a in BEHAVIORAL_ATTRIBUTES})
        rows.append(row)
    return pl.DataFrame(rows)


def tier_matrix(profiles: Iterable[Profile] | dict[str, Profile], *, attributes: bool = False) -> np.ndarray:
    """(n personas x 6 dimensions, or x 16 attributes) array of tier indices 0/1/2."""
    items = _as_list(profiles)
    if attributes:
        return np.array([[p.attributes[a].index for a in BEHAVIORAL_ATTRIBUTES] for p in items], dtype=np.int8)
    return np.array([[p.tiers[d].index for d in DIMENSION_CODES] for p in items], dtype=np.int8)


def tier_counts(profiles: Iterable[Profile] | dict[str, Profile]) -> pl.DataFrame:
    """How many personas sit at each tier of each dimension (columns dimension, L, M, R)."""
    m = tier_matrix(profiles)
    return pl.DataFrame({"dimension": list(DIMENSION_CODES),
                         **{t.value: [int((m[:, j] == t.index).sum()) for j in range(len(DIMENSION_CODES))]
                            for t in TIERS}})


def distance_matrix(profiles: Iterable[Profile] | dict[str, Profile], *, kind: str = "hamming",
                    others: Iterable[Profile] | dict[str, Profile] | None = None) -> np.ndarray:
    """Pairwise distances between `profiles` (rows) and `others` (columns; default the same personas)."""
    a = tier_matrix(profiles).astype(np.int16)
    b = a if others is None else tier_matrix(others).astype(np.int16)
    diff = np.abs(a[:, None, :] - b[None, :, :])
    if kind == "hamming":
        return (diff > 0).sum(axis=2)
    if kind == "ordinal":
        return diff.sum(axis=2)
    raise ValueError(f"kind must be 'hamming' or 'ordinal', got {kind!r}")


def pair_table(pairs: Iterable[tuple[Profile, Profile, str]]) -> pl.DataFrame:
    """Designed persona pairs with the dimensions they differ on and both distances."""
    rows = [{"a": a.id, "b": b.id, "kind": kind, "differs_on": ", ".join(a.differing_dimensions(b)),
             "hamming": len(a.differing_dimensions(b)), "ordinal": a.ordinal_distance(b)} for a, b, kind in pairs]
    return pl.DataFrame(rows)


def nearest(profiles: Iterable[Profile] | dict[str, Profile], reference: Iterable[Profile] | dict[str, Profile],
            *, kind: str = "ordinal") -> pl.DataFrame:
    """For each persona, the closest reference persona (ties -> first in reference order)."""
    items, refs = _as_list(profiles), _as_list(reference)
    dist = distance_matrix(items, kind=kind, others=refs)
    best = dist.argmin(axis=1)
    return pl.DataFrame({"id": [p.id for p in items], "vector": [p.vector for p in items],
                         "nearest": [refs[j].id for j in best], "nearest_vector": [refs[j].vector for j in best],
                         "distance": [int(dist[i, j]) for i, j in enumerate(best)]})
