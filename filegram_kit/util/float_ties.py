"""Decisions on floats that every machine makes alike: values closer than TOLERANCE are one value.

Floating-point results differ in their last bits between CPUs: BLAS picks a kernel per processor (its sums run
in another order), and numpy's exp and log take another SIMD path with or without AVX2 or AVX-512. A decision
between two values that are equal in exact arithmetic (the same evidence for two options, a sentence said twice,
two memories holding the same fact) is then decided by the machine: the argmax, the tie, the sort order or the
threshold flips, and a table moves by tenths of a point (issue 50).

`snap` maps each value onto the smallest value of its cluster (values whose neighbours, in sorted order, lie
within TOLERANCE of each other, relative to their size), so ==, argmax, stable sorts and thresholds on snapped
values agree wherever the machines' difference is below TOLERANCE. They can still differ when a gap between two
values lies within that difference of TOLERANCE itself: at the 1e-16 relative noise of float64 arithmetic,
about once in 1e6 decisions (`tests/test_float_ties.py` runs Table 3 items with noise added). Values further
apart than TOLERANCE are never merged by one step, but a chain of close values forms one cluster.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TOLERANCE = 1e-9  # relative to max(1, |value|): far above float64 noise (1e-16), far below any real difference


def snap(values: np.ndarray | Sequence[float]) -> np.ndarray:
    """float64 copy of `values` (any shape) with every cluster of values within TOLERANCE made one value
    (the cluster's smallest). Non-finite values (nan, +-inf) are kept as they are."""
    array = np.array(values, dtype=np.float64)
    flat = array.reshape(-1)
    finite = np.flatnonzero(np.isfinite(flat))
    if finite.size < 2:
        return array
    order = finite[np.argsort(flat[finite], kind="stable")]
    ordered = flat[order]
    scale = np.maximum(1.0, np.maximum(np.abs(ordered[:-1]), np.abs(ordered[1:])))
    starts = np.diff(ordered) > TOLERANCE * scale
    cluster = np.concatenate(([0], np.cumsum(starts)))
    first = np.concatenate(([0], np.flatnonzero(starts) + 1))
    flat[order] = ordered[first][cluster]
    return array


def top_indices(values: np.ndarray | Sequence[float]) -> list[int]:
    """The indices whose value is the highest, values within TOLERANCE counted equal (ties in index order)."""
    snapped = snap(values).reshape(-1)
    if not snapped.size:
        return []
    top = snapped.max()
    return [int(k) for k in np.flatnonzero(snapped == top)]


def first_best(values: np.ndarray | Sequence[float]) -> int:
    """argmax with ties (within TOLERANCE) going to the lowest index."""
    return int(np.argmax(snap(values).reshape(-1)))


def ranked(values: np.ndarray | Sequence[float], *, descending: bool = True) -> np.ndarray:
    """Indices in order of value (highest first by default), values within TOLERANCE kept in index order."""
    snapped = snap(values).reshape(-1)
    return np.argsort(-snapped if descending else snapped, kind="stable")


def tied_ranks(values: np.ndarray | Sequence[float]) -> np.ndarray:
    """0-based rank of each value from the smallest, values within TOLERANCE sharing their mean rank ([1, 5, 5, 9]
    -> [0, 1.5, 1.5, 3]). `argsort().argsort()` ranks tied values in whatever order the machine's sort leaves them
    (numpy's AVX-512 and AVX2 sorts leave them in different orders)."""
    snapped = snap(values).reshape(-1)
    less = (snapped[None, :] < snapped[:, None]).sum(axis=1)
    equal = (snapped[None, :] == snapped[:, None]).sum(axis=1)
    return less + (equal - 1) / 2.0

