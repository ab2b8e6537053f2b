"""Change-point episode segmentation of a sequence of texts (actions, messages, notes).

Each item is embedded (the backend's embedder: WordLlama by default, LSA as the ablation); a segment's
cost is its within-segment scatter, the sum of squared distances of its embeddings to their mean (the
kernel change-point cost of Harchaoui & Cappe with a linear kernel). The exact optimal partition under a per-segment
penalty is found by dynamic programming ("optimal partitioning", Jackson et al., 2005) in
O(n^2 * dim) with prefix sums, vectorised over the segment start.

Items are embedded in few dimensions: topic shifts live in the strong ones, while the fine ones encode
wording and only add scatter. WordLlama (the default) uses its 128-D Matryoshka prefix, LSA (the ablation)
a 64-D model. Measured on the topic sequences of tests/test_llm_algorithms.py (not on traces): every
setting finds the real boundaries; WordLlama at 64 or 256 dimensions splits one 5-item single-topic
sequence 3/2 where 128 keeps it whole, and LSA at 128 or 256 missed boundaries that 64 found.

Default penalty (BIC-like): sigma2 * log(n) per segment, where sigma2 is the within-segment
scatter per item. sigma2 is estimated jointly with the segmentation: start from the whole
sequence's scatter (an over-estimate when there is a change, so the first pass is conservative),
segment, re-estimate sigma2 = within-segment scatter / (n - segments), and repeat until the
segmentation is stable. Under no change, any split removes about sigma2 of scatter by chance, so
a split must remove more than log(n) of those to count.
"""

from __future__ import annotations

import math

import numpy as np

from filegram_kit.llm.algorithms.embedders import DEFAULT_EMBEDDER, embed_with

SEGMENT_DIMS = {"wordllama": 128, "lsa": 64}  # per embedder; see the module docstring
MIN_SIGMA2 = 1e-3  # identical items: any split is worthless, not free
MAX_ROUNDS = 8


def scatter(vectors: np.ndarray, spans: list[tuple[int, int]]) -> float:
    """Total within-segment sum of squared distances to the segment means."""
    return float(sum(((vectors[a:b] - vectors[a:b].mean(axis=0)) ** 2).sum() for a, b in spans))


def bic_segmentation(vectors: np.ndarray, min_size: int) -> list[tuple[int, int]]:
    """Optimal partition with penalty sigma2 * log(n), sigma2 re-estimated until the spans are stable."""
    n = len(vectors)
    spans = [(0, n)] if n else []
    for _ in range(MAX_ROUNDS):
        sigma2 = max(scatter(vectors, spans) / max(n - len(spans), 1), MIN_SIGMA2)
        updated = optimal_partition(vectors, min_size, sigma2 * math.log(max(n, 2)))
        if updated == spans:
            break
        spans = updated
    return spans


def optimal_partition(vectors: np.ndarray, min_size: int, penalty: float) -> list[tuple[int, int]]:
    """Spans minimising total within-segment scatter + penalty per segment, each >= min_size long."""
    n = len(vectors)
    if n == 0:
        return []
    if n < 2 * min_size:
        return [(0, n)]
    data = vectors.astype(np.float64)
    sums = np.vstack([np.zeros(data.shape[1]), np.cumsum(data, axis=0)])  # (n+1, d)
    squares = np.concatenate([[0.0], np.cumsum(np.sum(data**2, axis=1))])  # (n+1,)
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    previous = np.zeros(n + 1, dtype=np.int64)
    for end in range(min_size, n + 1):
        starts = np.arange(0, end - min_size + 1)
        starts = starts[np.isfinite(best[starts])]
        if starts.size == 0:
            continue
        lengths = end - starts
        diff = sums[end] - sums[starts]
        scatter = (squares[end] - squares[starts]) - np.einsum("ij,ij->i", diff, diff) / lengths
        total = best[starts] + np.maximum(scatter, 0.0) + penalty
        pick = int(np.argmin(np.round(total, 12)))  # ties: the earliest start, i.e. fewer, longer spans
        best[end], previous[end] = total[pick], starts[pick]
    spans, end = [], n
    while end > 0:
        spans.append((int(previous[end]), end))
        end = int(previous[end])
    return spans[::-1]


def segment(items: list[str], *, min_size: int = 2, penalty: float | None = None,
            embedder: str = DEFAULT_EMBEDDER) -> list[tuple[int, int]]:
    """Contiguous (start, end_exclusive) spans covering 0..len(items), split where the topic changes.

    penalty (scatter units, unit-length embeddings) overrides the BIC-like default.
    """
    if min_size < 1:
        raise ValueError(f"segment: min_size must be >= 1, got {min_size}")
    if penalty is not None and penalty < 0:
        raise ValueError(f"segment: penalty must be >= 0, got {penalty}")
    vectors = embed_with(embedder, list(items), dim=SEGMENT_DIMS[embedder]).astype(np.float64)
    if penalty is None:
        return bic_segmentation(vectors, min_size)
    return optimal_partition(vectors, min_size, penalty)
