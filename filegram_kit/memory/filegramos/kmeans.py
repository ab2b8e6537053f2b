"""k-means for a handful of sessions: k-means++ seeding, Lloyd iterations, best of `n_init` restarts.

One user has tens of sessions and 17 features, so the whole algorithm is a few small numpy
operations; scikit-learn's KMeans spent ~10 ms per call in setup and validation, which added up
over the thousands of memories a benchmark run ingests. Deterministic for a given seed.
"""

from __future__ import annotations

import numpy as np


def _seed_centres(points: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ (Arthur & Vassilvitskii, 2007): each next centre drawn with probability ~ squared distance."""
    centres = [points[rng.integers(len(points))]]
    for _ in range(1, k):
        d2 = np.min(((points[:, None, :] - np.array(centres)[None]) ** 2).sum(axis=2), axis=1)
        total = float(d2.sum())
        pick = rng.choice(len(points), p=d2 / total) if total > 0 else rng.integers(len(points))
        centres.append(points[pick])
    return np.array(centres)


def _lloyd(points: np.ndarray, centres: np.ndarray, max_iter: int) -> tuple[np.ndarray, float]:
    labels = np.full(len(points), -1)
    for _ in range(max_iter):
        d2 = ((points[:, None, :] - centres[None]) ** 2).sum(axis=2)
        new = np.argmin(d2, axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        for c in range(len(centres)):
            members = points[labels == c]
            if len(members):
                centres[c] = members.mean(axis=0)
            else:  # an emptied cluster takes the point farthest from its centre
                far = int(np.argmax(d2[np.arange(len(points)), labels]))
                centres[c], labels[far] = points[far], c
    inertia = float(((points - centres[labels]) ** 2).sum())
    return labels, inertia


def kmeans(points: np.ndarray, k: int, *, seed: int = 0, n_init: int = 10, max_iter: int = 100) -> np.ndarray:
    """Cluster labels (0..k-1) of the rows of `points`: the restart with the lowest inertia wins."""
    points = np.asarray(points, dtype=np.float64)
    if not 1 <= k <= len(points):
        raise ValueError(f"kmeans: need 1 <= k <= {len(points)} points, got k={k}")
    rng = np.random.default_rng(seed)
    best, best_inertia = None, np.inf
    for _ in range(n_init):
        labels, inertia = _lloyd(points, _seed_centres(points, k, rng), max_iter)
        if inertia < best_inertia - 1e-12:
            best, best_inertia = labels, inertia
    return best
