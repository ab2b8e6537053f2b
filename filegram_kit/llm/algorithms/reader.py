"""The lexical reader: scores each multiple-choice option against the context it was given.

It sees only the context text, as an LLM reader would. Per option, three pieces of evidence:

- lexical: BM25 of the option's own terms (not the question's, and not those every option shares,
  which cannot tell options apart) over context sentences, each sentence's score boosted
  by how relevant it is to the question (an option is supported where the question's topic is),
  best sentence taken, scaled by the best option's score to [0, 1];
- numbers: each number the option states counts +w if it occurs in a sentence relevant to the
  question and option (w = that sentence's relevance, 0..1), and -1 if it is nowhere in the
  context, so a distractor that shares the words but states a different figure loses;
- semantic: the best cosine between the option and a context sentence, in the backend's embedding
  (WordLlama by default, trained on none of our text; `embedder="lsa"` is the ablation).

The weighted sum goes through a softmax (temperature TEMPERATURE) to give per-option confidences.
Exact ties go to the lowest index, a documented and deterministic choice.
"""

from __future__ import annotations

import functools

import numpy as np

from filegram_kit.llm.algorithms.bm25 import Bm25Index
from filegram_kit.llm.algorithms.embedders import DEFAULT_EMBEDDER, embed_with
from filegram_kit.llm.algorithms.summarize import select_within_budget
from filegram_kit.llm.algorithms.text import content_terms, numbers, quantities, same_quantity, split_sentences

LEXICAL_WEIGHT = 2.0
NUMBER_WEIGHT = 1.5
SEMANTIC_WEIGHT = 1.0
TEMPERATURE = 0.5
OPEN_ANSWER_FLOOR = 0.5
READER_DIM = 256  # the reader's embedding size, whichever embedder


def _embed(texts: list[str], embedder: str) -> np.ndarray:
    return embed_with(embedder, texts, dim=READER_DIM)


def _unit(scores: np.ndarray) -> np.ndarray:
    top = float(scores.max()) if scores.size else 0.0
    return scores / top if top > 0 else np.zeros_like(scores)


def _number_support(option: str, stated_in: dict[str, list[tuple[int, str]]], relevance: np.ndarray) -> float:
    """Mean over the option's quantities of: relevance of the best sentence stating the same value and
    unit (38.2% is not $38.2), or -1 if none does. `stated_in`: value -> (sentence, unit) pairs."""
    stated = sorted(set(quantities(option)))
    if not stated:
        return 0.0
    support = []
    for value, unit in stated:
        where = [relevance[i] for i, found in stated_in.get(value, ()) if same_quantity((value, unit), (value, found))]
        support.append(max(where) if where else -1.0)
    return float(np.mean(support))


@functools.lru_cache(maxsize=32)
def _indexed(context: str, embedder: str) -> tuple[list[str], Bm25Index, np.ndarray, dict[str, list[tuple[int, str]]]]:
    """A context's sentences, their BM25 index, embeddings and where each number is stated
    (many questions share a context)."""
    sentences = split_sentences(context)
    stated_in: dict[str, list[tuple[int, str]]] = {}
    for i, sentence in enumerate(sentences):
        for value, unit in quantities(sentence):
            stated_in.setdefault(value, []).append((i, unit))
    return sentences, Bm25Index.of_texts(sentences), _embed(sentences, embedder), stated_in


def option_scores(question: str, choices: list[str], context: str, *, embedder: str = DEFAULT_EMBEDDER) -> np.ndarray:
    """Raw evidence score per option (higher is better supported); see the module docstring."""
    sentences, index, sentence_vectors, stated_in = _indexed(context, embedder)
    if not sentences:
        return np.zeros(len(choices))
    question_terms = content_terms(question)
    question_fit = _unit(index.scores(question_terms))
    option_vectors = _embed(list(choices), embedder)
    lexical, numeric = np.zeros(len(choices)), np.zeros(len(choices))
    shared = _shared_terms([content_terms(o) for o in choices])
    for k, option in enumerate(choices):
        terms = content_terms(option)
        own = [t for t in terms if t not in set(question_terms) and t not in shared] or \
            [t for t in terms if t not in set(question_terms)] or terms
        lexical[k] = float(np.max(index.scores(own) * (1.0 + question_fit)))
        words = [t for t in own if t not in set(numbers(option))]
        relevance = _unit(index.scores(question_terms + words))
        numeric[k] = _number_support(option, stated_in, relevance)
    semantic = np.max(option_vectors @ sentence_vectors.T, axis=1) if len(choices) else np.zeros(0)
    return LEXICAL_WEIGHT * _unit(lexical) + NUMBER_WEIGHT * numeric + SEMANTIC_WEIGHT * semantic


def _shared_terms(options: list[list[str]]) -> set[str]:
    """Terms every option uses: they cannot tell the options apart, so they are not evidence for one."""
    if len(options) < 2:
        return set()
    common = set(options[0])
    for terms in options[1:]:
        common &= set(terms)
    return common


def softmax(scores: np.ndarray, temperature: float = TEMPERATURE) -> np.ndarray:
    z = (scores - scores.max()) / temperature
    e = np.exp(z)
    return e / e.sum()


def answer_mcq(question: str, choices: list[str], context: str, *,
               embedder: str = DEFAULT_EMBEDDER) -> tuple[int, list[float]]:
    """(index of the best-supported option, softmax confidence per option)."""
    if not choices:
        raise ValueError("answer_mcq: no choices to pick from")
    raw = np.round(option_scores(question, list(choices), context, embedder=embedder), 9)  # ties are exact ties
    probs = softmax(raw)
    return int(np.argmax(raw)), [float(p) for p in probs]


def answer_open(question: str, context: str, max_words: int = 60, *, embedder: str = DEFAULT_EMBEDDER) -> str:
    """The context sentences that best answer the question (BM25 + embedding cosine), within max_words, in order."""
    sentences = split_sentences(context)
    if not sentences:
        return ""
    lexical = _unit(Bm25Index.of_texts(sentences).scores(content_terms(question)))
    semantic = (_embed(sentences, embedder) @ _embed([question], embedder).T)[:, 0]
    scores = np.round(LEXICAL_WEIGHT * lexical + SEMANTIC_WEIGHT * semantic, 9)
    best = float(scores.max())
    floor = OPEN_ANSWER_FLOOR * best if best > 0 else best  # only sentences nearly as relevant as the best
    return " ".join(select_within_budget(sentences, scores, max_words, floor=floor))
