"""The offline reader: scores each multiple-choice option against the context it was given.

It sees only the context text, as an LLM reader would. Per option, these pieces of evidence:

- lexical: BM25 of the option's own terms (never the question's, and not those every option shares,
  which cannot tell options apart; an option with no term of its own gets no lexical evidence) over
  context sentences, each sentence's score boosted by how relevant it is to the question, best
  sentence taken, scaled by the best option's score to [0, 1];
- numbers: each number the option states (and the question does not) counts +w if it occurs in a
  sentence relevant to the question and option (w = that sentence's relevance, 0..1), and -1 if it
  is nowhere in the context, so a distractor that shares the words but states a different figure loses;
- semantic: options are read by what sets them apart (option_slots.py): options that repeat clauses are cut
  into slots ("writing: minimal or comprehensive?"), each slot's values compared with each other on the context
  units about that slot's topic, negation counted, and an option scores the sum of its values' readings
  (slot_reading.py; cosines in the backend's embedding, WordLlama by default, trained on none of our text;
  `embedder="lsa"` is the ablation), so a paraphrase counts and a sentence on another topic does not vote;
- contrast: for options that say "one of them X, the other Y" about two sessions the question names,
  how well X fits what the context says of one session and Y of the other (compare.py);
- difference: for a question on how two named sessions differ, how differently the context describes the
  two on each option's topic (compare.aspect_difference): what both are said to do alike is no difference.

Options that only name sessions ("Session 1" .. "Session 6") are read by comparison instead: what the
context says about each named session, in any memory's prose (compare.py). The weighted sum goes through
a softmax (temperature TEMPERATURE) to give per-option confidences. Scores within
util/float_ties.TOLERANCE are one score (so a tie is a tie on every machine) and ties go to the lowest index;
the shared reader (bench/reader.py) shows options in an order drawn per item and gives tied options an
equal share of the credit, so a tie favours no position. `explain_options` shows each part and the
context text behind it.
"""

from __future__ import annotations

import functools

import numpy as np

from filegram_kit.llm.algorithms.bm25 import Bm25Index
from filegram_kit.llm.algorithms.compare import (
    aspect_difference,
    comparison_evidence,
    contrast_evidence,
    naming_options,
)
from filegram_kit.llm.algorithms.embedders import DEFAULT_EMBEDDER, embed_with
from filegram_kit.llm.algorithms.option_slots import option_slots
from filegram_kit.llm.algorithms.slot_reading import (
    Units,
    negation_split,
    order_evidence,
    read_units,
    slot_semantic,
    units_of,
)
from filegram_kit.llm.algorithms.summarize import select_within_budget
from filegram_kit.llm.algorithms.text import content_terms, numbers, quantities, same_quantity, split_sentences
from filegram_kit.util.float_ties import first_best, snap

LEXICAL_WEIGHT = 2.0
NUMBER_WEIGHT = 1.5
SEMANTIC_WEIGHT = 1.0
CONTRAST_WEIGHT = 4.0  # a contrast's fit to the two named sessions, one half each (compare.contrast_evidence)
ORDER_WEIGHT = 2.0  # a change read in the order the context states it (slot_reading.order_evidence)
DIFFERENCE_WEIGHT = 4.0  # how differently the two named sessions are described on an option's topic (compare.py)
TEMPERATURE = 0.5
OPEN_ANSWER_FLOOR = 0.5
READER_DIM = 256  # the reader's embedding size, whichever embedder


def _embed(texts: list[str], embedder: str) -> np.ndarray:
    return embed_with(embedder, texts, dim=READER_DIM)


def _unit(scores: np.ndarray) -> np.ndarray:
    top = float(scores.max()) if scores.size else 0.0
    return scores / top if top > 0 else np.zeros_like(scores)


def _number_support(option: str, stated_in: dict[str, list[tuple[int, str]]], relevance: np.ndarray,
                    asked: set[str] = frozenset()) -> float:
    """Mean over the option's quantities (those the question does not state itself) of: relevance of the best
    sentence stating the same value and unit (38.2% is not $38.2), or -1 if none does.
    `stated_in`: value -> (sentence, unit) pairs."""
    stated = sorted(q for q in set(quantities(option)) if q[0] not in asked)
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
    asserted = [negation_split(s)[0] for s in sentences]  # a word a sentence negates is no support for it
    return sentences, Bm25Index.of_texts(asserted), _embed(sentences, embedder), stated_in


@functools.lru_cache(maxsize=32)
def _units(context: str, embedder: str) -> Units:
    """A context as the slot reader reads it (slot_reading.py), shared by the questions on it."""
    sentences, _, vectors, _ = _indexed(context, embedder)
    return read_units(sentences, vectors, lambda texts: _embed(texts, embedder))


def option_scores(question: str, choices: list[str], context: str, *, embedder: str = DEFAULT_EMBEDDER) -> np.ndarray:
    """Raw evidence score per option (higher is better supported); see the module docstring."""
    parts, _ = option_evidence(question, choices, context, embedder=embedder)
    return sum(parts.values())


def option_evidence(question: str, choices: list[str], context: str, *, embedder: str = DEFAULT_EMBEDDER
                    ) -> tuple[dict[str, np.ndarray], list[list[str]]]:
    """({part: weighted per-option value}, per option the context lines or sentences that supported it): what
    `option_scores` adds up, kept apart so `explain_options` can show why an option won."""
    choices = list(choices)
    if naming_options(choices):
        return comparison_evidence(question, choices, context)
    sentences, index, sentence_vectors, stated_in = _indexed(context, embedder)
    if not sentences:
        return {"lexical": np.zeros(len(choices))}, [[] for _ in choices]
    question_terms = content_terms(question)
    asked = set(question_terms)
    question_fit = _unit(index.scores(question_terms))
    lexical, numeric = np.zeros(len(choices)), np.zeros(len(choices))
    shared = _shared_terms([content_terms(o) for o in choices])
    support: list[list[str]] = []
    for k, option in enumerate(choices):
        own = [t for t in content_terms(option) if t not in asked and t not in shared]  # never the question's words
        fit = index.scores(own) * (1.0 + question_fit) if own else np.zeros(len(sentences))
        lexical[k] = float(np.max(fit))
        words = [t for t in own if t not in set(numbers(option))]
        relevance = _unit(index.scores(question_terms + words))
        numeric[k] = _number_support(option, stated_in, relevance, asked)
        support.append([sentences[first_best(fit)]] if lexical[k] > 0 else [])
    units = _units(context, embedder)
    semantic, read_on = slot_semantic(option_slots(choices), units, lambda t: _embed(t, embedder), len(choices),
                                      question)
    for k in range(len(choices)):
        support[k] += [unit for unit in read_on if unit not in support[k]]
    parts = {"lexical": LEXICAL_WEIGHT * _unit(lexical), "numbers": NUMBER_WEIGHT * numeric,
             "semantic": SEMANTIC_WEIGHT * semantic}
    contrast = contrast_evidence(question, choices, context, lambda texts: _embed(texts, embedder))
    if contrast is not None:
        parts["contrast"] = CONTRAST_WEIGHT * contrast
    order = order_evidence(choices, units, lambda texts: _embed(texts, embedder))
    if order is not None:
        parts["order"] = ORDER_WEIGHT * order
    differ = aspect_difference(question, choices, context, lambda texts: _embed(texts, embedder), units_of)
    if differ is not None:
        parts["difference"] = DIFFERENCE_WEIGHT * differ
    return parts, support


def explain_options(question: str, choices: list[str], context: str, *, embedder: str = DEFAULT_EMBEDDER
                    ) -> list[dict]:
    """Per option, in order: its total score, each part, and the context text that supported it."""
    parts, support = option_evidence(question, choices, context, embedder=embedder)
    total = snap(sum(parts.values()))
    return [{"option": option, "score": float(total[k]), "parts": {n: round(float(v[k]), 3) for n, v in parts.items()},
             "support": support[k]} for k, option in enumerate(choices)]


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
    raw = snap(option_scores(question, list(choices), context, embedder=embedder))  # ties on every machine
    probs = softmax(raw)
    return int(np.argmax(raw)), [float(p) for p in probs]


def answer_open(question: str, context: str, max_words: int = 60, *, embedder: str = DEFAULT_EMBEDDER) -> str:
    """The context sentences that best answer the question (BM25 + embedding cosine), within max_words, in order."""
    sentences, index, sentence_vectors, _ = _indexed(context, embedder)  # shared with answer_mcq's reading
    if not sentences:
        return ""
    lexical = _unit(index.scores(content_terms(question)))
    semantic = (sentence_vectors @ _embed([question], embedder).T)[:, 0]
    scores = snap(LEXICAL_WEIGHT * lexical + SEMANTIC_WEIGHT * semantic)
    best = float(scores.max())
    floor = OPEN_ANSWER_FLOOR * best if best > 0 else best  # only sentences nearly as relevant as the best
    return " ".join(select_within_budget(sentences, scores, max_words, floor=floor))
