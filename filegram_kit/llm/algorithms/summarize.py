"""Extractive summaries by TextRank centrality (Mihalcea & Tarau, 2004), within a word budget.

A summary made of the document's own most central sentences never invents a name or a number,
which is what a memory built from summaries needs offline. Sentences are TF-IDF vectors over the
document's own vocabulary; PageRank by power iteration on their cosine-similarity graph ranks
them; the best are taken greedily while they fit the budget (near-duplicates and below-average
sentences skipped), then put back in document order so the summary reads like the source.
"""

from __future__ import annotations

import numpy as np

from filegram_kit.llm.algorithms.text import content_terms, jaccard, split_sentences, tfidf_matrix, word_count
from filegram_kit.util.float_ties import ranked

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE = 1e-10
MIN_WORDS = 3  # headings and labels ("## Numbers", "Notes") are not summary sentences
DUPLICATE_JACCARD = 0.8


def textrank(vectors: np.ndarray) -> np.ndarray:
    """PageRank scores of rows on their cosine-similarity graph (isolated rows keep the teleport mass)."""
    n = vectors.shape[0]
    if n == 0:
        return np.zeros(0)
    sim = np.clip(vectors @ vectors.T, 0.0, None)
    np.fill_diagonal(sim, 0.0)
    out_weight = sim.sum(axis=1, keepdims=True)
    transition = np.divide(sim, out_weight, out=np.full_like(sim, 1.0 / n), where=out_weight > 0)
    scores = np.full(n, 1.0 / n)
    for _ in range(MAX_ITERATIONS):
        updated = (1 - DAMPING) / n + DAMPING * (transition.T @ scores)
        done = np.abs(updated - scores).sum() < TOLERANCE
        scores = updated
        if done:
            break
    return scores


def centrality(sentences: list[str]) -> np.ndarray:
    """TextRank score per sentence, rounded so the ranking is immune to last-bit float noise."""
    return np.round(textrank(tfidf_matrix([content_terms(s) for s in sentences])), 12)


def select_within_budget(sentences: list[str], scores: np.ndarray, max_words: int, floor: float) -> list[str]:
    """Greedy pick by descending score (ties: earlier first) while the words fit, skipping near-duplicates
    and sentences scoring below floor (a leftover budget is not filled with off-topic sentences);
    returned in document order. If even the best sentence is over budget, its first max_words words.
    """
    order = ranked(scores)
    chosen: list[int] = []
    used = 0
    for i in map(int, order):
        size = word_count(sentences[i])
        terms = set(content_terms(sentences[i]))
        if scores[i] < floor or used + size > max_words or any(
                jaccard(terms, set(content_terms(sentences[j]))) >= DUPLICATE_JACCARD for j in chosen):
            continue
        chosen.append(i)
        used += size
    if not chosen and len(order):
        return [truncate_words(sentences[int(order[0])], max_words)]
    return [sentences[i] for i in sorted(chosen)]


def truncate_words(text: str, max_words: int) -> str:
    """The first max_words words of a text (CJK characters count one each)."""
    if word_count(text) <= max_words:
        return text
    if any("\u3400" <= ch <= "\u9fff" for ch in text):
        return text[:max_words]
    return " ".join(text.split()[:max_words])


def summarize(text: str, max_words: int = 120) -> str:
    """Extractive summary of at most max_words words: the most central sentences, in document order."""
    if max_words < 1:
        raise ValueError(f"summarize: max_words must be >= 1, got {max_words}")
    sentences = split_sentences(text)
    candidates = [s for s in sentences if word_count(s) >= MIN_WORDS] or sentences
    if not candidates:
        return ""
    scores = centrality(candidates)
    picked = select_within_budget(candidates, scores, max_words, floor=float(scores.mean()) - 1e-12)
    joiner = "" if all(not s.isascii() for s in picked) else " "
    return joiner.join(picked)
