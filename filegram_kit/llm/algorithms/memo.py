"""The per-process memo of embedding rows, shared by every offline embedder: rows are pure functions of
(embedder, dim, seed, text), and benchmark runs embed the same context lines and chunks many times."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np

MEMO_SIZE = 200_000  # rows remembered per process, all embedders together (256-D float32: ~200 MB at most)

_memo: OrderedDict[tuple[Hashable, str], np.ndarray] = OrderedDict()
_memo_lock = threading.Lock()


def memoised(model: Hashable, compute: Callable[[list[str]], np.ndarray], texts: list[str], dim: int) -> np.ndarray:
    """(len(texts), dim) rows: remembered ones by (model, text), the rest from compute(distinct missing texts).
    Kept as float32, handed out as float64: products of them are then summed in float64, whose last-bit
    differences between machines stay far below util/float_ties.TOLERANCE (float32's do not).

    `model` must name everything besides the text that decides a row (embedder, dim, seed)."""
    if isinstance(texts, str):
        raise TypeError("embed takes a list of texts, not one string")
    keys = [(model, t) for t in texts]
    with _memo_lock:
        found = {k: _memo[k] for k in keys if k in _memo}
        for k in found:
            _memo.move_to_end(k)
    missing = list(dict.fromkeys(k[1] for k in keys if k not in found))
    if missing:
        rows = compute(missing)
        with _memo_lock:
            for text, row in zip(missing, np.asarray(rows, dtype=np.float32), strict=True):
                row.setflags(write=False)
                found[(model, text)] = _memo[(model, text)] = row
            while len(_memo) > MEMO_SIZE:
                _memo.popitem(last=False)
    if not keys:
        return np.zeros((0, dim))
    return np.stack([found[k] for k in keys]).astype(np.float32, copy=False).astype(np.float64)
