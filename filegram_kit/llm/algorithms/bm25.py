"""Okapi BM25 over a small collection (the sentences of one context), as the lexical half of the reader.

BM25 (Robertson & Zaragoza, 2009) rewards a passage for containing rare query terms, with
diminishing returns for repeats (k1) and a length normalisation (b) so long sentences do not
win by size. idf uses the Lucene form log(1 + (N - df + 0.5) / (df + 0.5)), never negative.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

K1 = 1.5
B = 0.75


class Bm25Index:
    """Term statistics of a list of tokenised passages; `scores(query_terms)` -> one score per passage."""

    def __init__(self, passages: list[list[str]], k1: float = K1, b: float = B):
        self.k1, self.b = k1, b
        self.tf = [Counter(p) for p in passages]
        self.lengths = np.array([len(p) for p in passages], dtype=np.float64)
        self.avgdl = float(self.lengths.mean()) if len(passages) and self.lengths.sum() else 1.0
        self.df = Counter(t for counts in self.tf for t in counts)
        self.n = len(passages)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for i, counts in enumerate(self.tf):
            for term, count in counts.items():
                rows, tfs = postings.setdefault(term, ([], []))
                rows.append(i)
                tfs.append(count)
        # term -> (passages that contain it, its count in each): scoring touches only those passages
        self.postings = {t: (np.array(r, dtype=np.int64), np.array(c, dtype=np.float64))
                         for t, (r, c) in postings.items()}

    def idf(self, term: str) -> float:
        df = self.df.get(term, 0)
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, query_terms: list[str]) -> np.ndarray:
        out = np.zeros(self.n)
        norm = self.k1 * (1.0 - self.b + self.b * self.lengths / self.avgdl)
        for term, weight in sorted(Counter(query_terms).items()):
            if term not in self.postings:
                continue
            rows, tf = self.postings[term]
            out[rows] += weight * self.idf(term) * tf * (self.k1 + 1.0) / (tf + norm[rows])
        return out
