"""The offline text embedders by name, and the per-process memo of their rows.

    embed_with("wordllama", texts, dim=256)   # the offline backend's default (wordllama_embedder.py)
    embed_with("lsa", texts, dim=256, seed=0)  # the ablation: LSA fitted on the project's own text (embedding.py)

WordLlama is the default because it was trained on none of this project's text: the LSA space is fitted
on the task prompts and workspace documents our generator writes, so it is tuned to the very traces it
embeds. Both are pure functions of (embedder, dim, seed, text) per row, so rows are remembered by text
(memo.py: least recently used dropped beyond MEMO_SIZE): benchmark runs embed the same context lines and chunks
many times.
"""

from __future__ import annotations

import numpy as np

from filegram_kit.llm.algorithms.memo import memoised  # noqa: F401 (the memo the embedders share)

EMBEDDERS = ("wordllama", "lsa")  # the first is the default
DEFAULT_EMBEDDER = EMBEDDERS[0]


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


def embed_with(embedder: str, texts: list[str], *, dim: int = 256, seed: int = 0) -> np.ndarray:
    """(n, dim) float32 unit rows (zero rows for empty text) from the named embedder, memoised.

    seed only matters to LSA (its randomized SVD); WordLlama's rows do not depend on it."""
    check_embedder(embedder, dim)
    if embedder == "lsa":
        from filegram_kit.llm.algorithms.embedding import embed

        return embed(texts, dim=dim, seed=seed)
    from filegram_kit.llm.algorithms.wordllama_embedder import WordLlamaEmbedder

    return memoised(("wordllama", dim), WordLlamaEmbedder(dim).embed, texts, dim)
