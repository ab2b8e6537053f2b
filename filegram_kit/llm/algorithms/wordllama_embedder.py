"""WordLlama embeddings: a general-purpose static token-embedding model, mean-pooled and L2-normalised.

WordLlama (Miller, 2024; PyPI `wordllama`, MIT) keeps one vector per token of Llama 2's 32K SentencePiece
vocabulary, distilled from the input embeddings of several Llama-2-tokenizer LLMs and trained on
general sentence-pair data with a Matryoshka objective (the first 64 / 128 of the 256 dimensions are
themselves an embedding). A text's vector is the mean of its tokens' vectors, normalised to unit length.
It was trained on none of this project's text, so unlike the LSA ablation (embedding.py, fitted on the
task prompts and workspace documents that the traces quote) it is not tuned to our generator.

The 256-D weights (16 MB safetensors) and the tokenizer ship inside the wheel. They are loaded from the
installed package with downloads disabled: nothing is fetched at run time; if the files are missing the
error names the package to reinstall. Loaded once per process (thread-safe).

Chinese: Llama 2's tokenizer has single tokens for ~700 common CJK characters and falls back to UTF-8
bytes for the rest, so Chinese text embeds (measured: two related Chinese sentences 0.72 cosine, an
unrelated English one ~0.0), but there is no cross-lingual alignment (a Chinese sentence and its English
translation ~0.05).

Rows depend on their own text only: tokens are pooled by a sparse (texts x vocabulary) count matrix times
the weight table, summed row by row in a fixed order, with no padding and no BLAS, so the bytes do not
depend on the batch or the machine's thread count. Empty or whitespace-only text is the zero vector.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CONFIG = "l2_supercat"  # the model whose 256-D weights ship in the wheel
SHIPPED_DIM = 256
DIMS = (64, 128, 256)  # Matryoshka prefixes of the shipped weights


@dataclass(frozen=True)
class _WordLlamaModel:
    tokenizer: Any  # tokenizers.Tokenizer, padding off
    weights: dict[int, np.ndarray]  # dim -> (vocabulary, dim) float32 prefix columns, C order, read-only


def package_files() -> tuple[Path, Path]:
    """(weights, tokenizer) files inside the installed `wordllama` package; a clear error if absent."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the offline backend's default embedder needs the `wordllama` package "
                          "(pip install wordllama), or choose the LSA ablation: get_backend('offline', embedder='lsa')")
    root = Path(next(iter(spec.submodule_search_locations)))
    files = (root / "weights" / f"{CONFIG}_{SHIPPED_DIM}.safetensors",
             root / "tokenizers" / f"{CONFIG}_tokenizer_config.json")
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise FileNotFoundError(f"the `wordllama` package at {root} lacks its bundled model files "
                                f"({', '.join(missing)}); reinstall it (pip install --force-reinstall wordllama): "
                                "the offline backend never downloads weights")
    return files


_model: _WordLlamaModel | None = None
_load_lock = threading.Lock()


def _load() -> _WordLlamaModel:
    """The shipped model, loaded once per process from the package folder with downloads disabled."""
    global _model
    with _load_lock:
        if _model is None:
            weights_file, _ = package_files()
            root = logging.getLogger()
            handlers, level = list(root.handlers), root.level
            try:
                from wordllama import WordLlama  # its import calls logging.basicConfig(INFO): undone below
            finally:
                root.handlers[:], root.level = handlers, level
            loaded = WordLlama.load(config=CONFIG, cache_dir=weights_file.parent.parent, dim=SHIPPED_DIM,
                                    disable_download=True)
            tokenizer = loaded.tokenizer
            tokenizer.no_padding()  # pooling below needs each text's own tokens, nothing more
            tokenizer.no_truncation()
            weights = {dim: np.ascontiguousarray(loaded.embedding[:, :dim], dtype=np.float32) for dim in DIMS}
            for table in weights.values():
                table.setflags(write=False)
            _model = _WordLlamaModel(tokenizer, weights)
    return _model


class WordLlamaEmbedder:
    """`WordLlamaEmbedder(dim).embed(texts)` -> (n, dim) float32, unit rows (zero rows for empty text).

    dim: 256 (the shipped weights), or their Matryoshka prefix 64 or 128 (cut before normalising).
    """

    def __init__(self, dim: int = SHIPPED_DIM):
        if dim not in DIMS:
            raise ValueError(f"WordLlamaEmbedder: dim must be one of {DIMS} (prefixes of the shipped 256-D "
                             f"weights), got {dim}")
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("WordLlamaEmbedder.embed takes a list of texts, not one string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        keep = [i for i, t in enumerate(texts) if t.strip()]
        if not keep:
            return out
        model = _load()
        from scipy.sparse import csr_matrix  # (a scikit-learn dependency)

        ids = [e.ids for e in model.tokenizer.encode_batch([texts[i] for i in keep], add_special_tokens=False)]
        indptr = np.cumsum([0] + [len(row) for row in ids])
        table = model.weights[self.dim]
        counts = csr_matrix((np.ones(indptr[-1], dtype=np.float32), np.concatenate(ids).astype(np.int64), indptr),
                            shape=(len(keep), table.shape[0]))
        counts.sum_duplicates()  # each token once per text, with its count (a fixed, sorted order)
        sums = np.asarray(counts @ table, dtype=np.float32)
        norms = np.linalg.norm(sums, axis=1)
        known = norms > 0
        rows = np.asarray(keep)[known]
        out[rows] = sums[known] / norms[known, None]
        return out
