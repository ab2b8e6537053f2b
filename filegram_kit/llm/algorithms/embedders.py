"""The offline text embedders by name, and the per-process memo of their rows.

    embed_with("wordllama", texts, dim=256)   # the offline backend's default (wordllama_embedder.py)
    embed_with("lsa", texts, dim=256, seed=0)  # the ablation: LSA fitted on the project's own text (embedding.py)

WordLlama is the default because it was trained on none of this project's text: the LSA space is fitted
on the task prompts and workspace documents our generator writes, so it is tuned to the very traces it
embeds. Both are pure functions of (embedder, dim, seed, text) per row, so rows are remembered by text
(least recently used dropped beyond MEMO_SIZE): benchmark runs embed the same context lines and chunks
many times.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np

EMBEDDERS = ("wordllama", "lsa")  # the first is the default
DEFAULT_EMBEDDER = EMBEDDERS[0]
MEMO_SIZE = 200_000  # rows remembered per process, all embedders together (256-D float32: ~200 MB at most)

_memo: OrderedDict[tuple[Hashable, str], np.ndarray] = OrderedDict()
_memo_lock = threading.Lock()


def check_embedder(name: str, dim: int) -> str:
    """`name` if it is a known embedder that can give `dim`-D rows; else a ValueError naming the choices."""
    if name not in EMBEDDERS:
        raise ValueError(f"unknown offline embedder {name!r}; choices: {', '.join(map(repr, EMBEDDERS))} "
                         f"({DEFAULT_EMBEDDER!r} is the default, 'lsa' the ablation fitted on the project's own text)")
    if name == "wordllama":
        from filegram_kit.llm.algorithms.wordllama_embedder import DIMS

        if dim not in DIMS:
            raise ValueError(f"embedder 'wordllama' gives {', '.join(map(str, DIMS))}-D rows (Matryoshka prefixes "
                             f"of its 256-D weights), not {dim}; pick one of those or embedder='lsa'")
    elif dim < 1:
        raise ValueError(f"embedder 'lsa': dim must be >= 1, got {dim}")
    return name


def memoised(model: Hashable, compute: Callable[[list[str]], np.ndarray], texts: list[str], dim: int) -> np.ndarray:
    """(len(texts), dim) rows: remembered ones by (model, text), the rest from compute(distinct missing texts).

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
            for text, row in zip(missing, rows, strict=True):
                row.setflags(write=False)
                found[(model, text)] = _memo[(model, text)] = row
            while len(_memo) > MEMO_SIZE:
                _memo.popitem(last=False)
    if not keys:
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)


def embed_with(embedder: str, texts: list[str], *, dim: int = 256, seed: int = 0) -> np.ndarray:
    """(n, dim) float32 unit rows (zero rows for empty text) from the named embedder, memoised.

    seed only matters to LSA (its randomized SVD); WordLlama's rows do not depend on it."""
    check_embedder(embedder, dim)
    if embedder == "lsa":
        from filegram_kit.llm.algorithms.embedding import embed

        return embed(texts, dim=dim, seed=seed)
    from filegram_kit.llm.algorithms.wordllama_embedder import WordLlamaEmbedder

    return memoised(("wordllama", dim), WordLlamaEmbedder(dim).embed, texts, dim)
