"""Okapi BM25 over a small collection (the sentences of one context), as the lexical half of the reader.

BM25 (Robertson & Zaragoza, 2009) rewards a passage for containing rare query terms, with
diminishing returns for repeats (k1) and a length normalisation (b) so long sentences do not
win by size. idf uses the Lucene form log(1 + (N - df + 0.5) / (df + 0.5)), never negative.

The index is a sorted array of (term id, passage) pairs with their counts, built by numpy: contexts
have thousands of sentences, and a pure-Python postings build dominated the reader's time. Term ids
are interned process-wide, so a sentence seen in an earlier context is not tokenised again
(`Bm25Index.of_texts`).
"""

from __future__ import annotations

import functools
import math
import threading
from collections import Counter
from collections.abc import Iterable

import numpy as np

from filegram_kit.llm.algorithms.text import content_terms

K1 = 1.5
B = 0.75

_TERM_IDS: dict[str, int] = {}
_TERM_LOCK = threading.Lock()


def _ids(terms: Iterable[str]) -> np.ndarray:
    with _TERM_LOCK:
        return np.array([_TERM_IDS.setdefault(t, len(_TERM_IDS)) for t in terms], dtype=np.int64)


@functools.lru_cache(maxsize=262_144)  # context sentences recur across questions
def _text_ids(text: str) -> np.ndarray:
    ids = _ids(content_terms(text))
    ids.setflags(write=False)
    return ids


class Bm25Index:
    """Term statistics of a list of tokenised passages; `scores(query_terms)` -> one score per passage."""

    def __init__(self, passages: list[list[str]], k1: float = K1, b: float = B):
        self._build([_ids(p) for p in passages], k1, b)

    @classmethod
    def of_texts(cls, texts: list[str], k1: float = K1, b: float = B) -> Bm25Index:
        """The index of `texts`' content terms (text.content_terms), the same as
        `Bm25Index([content_terms(t) for t in texts])`."""
        index = cls.__new__(cls)
        index._build([_text_ids(t) for t in texts], k1, b)
        return index

    def _build(self, passages: list[np.ndarray], k1: float, b: float) -> None:
        self.k1, self.b = k1, b
        self.n = len(passages)
        self.lengths = np.array([len(p) for p in passages], dtype=np.float64)
        self.avgdl = float(self.lengths.mean()) if len(passages) and self.lengths.sum() else 1.0
        ids = np.concatenate(passages) if passages else np.zeros(0, dtype=np.int64)
        rows = np.repeat(np.arange(self.n, dtype=np.int64), self.lengths.astype(np.int64))
        width = max(self.n, 1)
        pairs, counts = np.unique(ids * width + rows, return_counts=True)  # sorted by term, then passage
        self._terms, self._passages = np.divmod(pairs, width)
        self._counts = counts.astype(np.float64)

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """(passages that contain `term`, its count in each): scoring touches only those passages."""
        term_id = _TERM_IDS.get(term)
        if term_id is None:
            return self._passages[:0], self._counts[:0]
        lo, hi = np.searchsorted(self._terms, [term_id, term_id + 1])
        return self._passages[lo:hi], self._counts[lo:hi]

    def df(self, term: str) -> int:
        return len(self._posting(term)[0])

    def idf(self, term: str) -> float:
        df = self.df(term)
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, query_terms: list[str]) -> np.ndarray:
        out = np.zeros(self.n)
        norm = self.k1 * (1.0 - self.b + self.b * self.lengths / self.avgdl)
        for term, weight in sorted(Counter(query_terms).items()):
            rows, tf = self._posting(term)
            if not len(rows):
                continue
            idf = math.log(1.0 + (self.n - len(rows) + 0.5) / (len(rows) + 0.5))
            out[rows] += weight * idf * tf * (self.k1 + 1.0) / (tf + norm[rows])
        return out
