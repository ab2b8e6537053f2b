"""Reading options slot by slot: each slot's values are compared with each other, on the context's units about
that slot's topic (option_slots.py finds the slots).

For options that share clauses, comparing whole options with the context separates them by a few hundredths:
what they share dominates every cosine. Here each slot is read on its own:

- units: the context's sentences cut at strong breaks (a ';' clause says one thing), embedded once per context;
- topic: which units each slot reads is decided for all topics the options raise at once (the slots, and the
  clauses every option shares, which soak up the units about what the options agree on): a transport plan
  (`topic_plan`) in which each topic reads about one unit's worth and units about none of them are set aside;
- lean: on those units, how much more like one value than like its rivals each unit is, with the words all of
  the slot's values share ("writing:", "Normally the user") and what every unit of the context says alike (its
  frame, "This person") left out, so only what differs is compared; the units a slot leans on most are also
  read word by word (`word_fit`), so a short value is not drowned by a long unit;
- negation: a negated part ("no graphs or grids", "never deletes") counts against what it resembles, in units
  and in values alike.

An option scores the sum of its values' readings, so a 2 x 2 item is two binary readings. `order_evidence` reads
options that state a change in order ('X -> Y') by the order in which the context states their two values.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...util.float_ties import first_best, ranked
from .option_slots import Factoring, sequence
from .text import STOPWORDS

COMMON_MIN_UNITS = 3
PLAN_SHARPNESS = 16.0
PLAN_ITERATIONS = 10
WORD_UNITS = 3  # the units most about a slot are also read word by word
WORD_WEIGHT = 1.0
_NEGATED = re.compile(r"\b(?:no|not|never|nothing|none|without|nor|neither|hardly|rarely|seldom)\b(?P<rest>[^,;.]*)",
                      re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
_UNIT_BREAK = re.compile(r"\s*(?:;|->|→)\s*")  # a context's sentence says several things only across these

Embed = Callable[[list[str]], np.ndarray]


@functools.lru_cache(maxsize=262_144)  # contexts are made of lines that recur across questions
def _sentence_units(sentence: str) -> tuple[str, ...]:
    if ";" not in sentence and ">" not in sentence and "→" not in sentence:
        return (sentence,)
    return tuple(u for u in (p.strip() for p in _UNIT_BREAK.split(sentence)) if u) or (sentence,)


def units_of(sentences: list[str]) -> list[str]:
    """The context's units: its sentences cut at ';' and arrows (each part says one thing). Commas, brackets
    and conjunctions are left whole: in a memory's prose they rarely end a statement."""
    return [unit for sentence in sentences for unit in _sentence_units(sentence)]


@functools.lru_cache(maxsize=262_144)
def negation_split(text: str) -> tuple[str, str]:
    """(what a text asserts, what it negates): 'keeps all, no graphs or grids' -> ('keeps all,', 'graphs or grids').
    A negation governs the words after it up to the next comma, semicolon or full stop."""
    if not _NEGATED.search(text):
        return text, ""
    negated = [m.group("rest").strip() for m in _NEGATED.finditer(text)]
    return _NEGATED.sub(" ", text).strip(), " ".join(n for n in negated if n)


@dataclass(frozen=True)
class Units:
    """A context as the slot reader reads it (built once per context by `read_units`)."""

    texts: list[str]
    vectors: np.ndarray  # unit rows of the embedding (topics are found with these)
    read: np.ndarray  # the same rows without the context's common direction (values lean on these)
    common: np.ndarray | None  # that direction (unit row), None for a context too short to have one

    def without_common(self, rows: np.ndarray) -> np.ndarray:
        """Rows without their component along the context's common direction (what every unit says alike: its
        frame, "This person", "- The user"), so a value is compared with what sets a unit apart."""
        return rows if self.common is None else rows - np.outer(rows @ self.common, self.common)


def read_units(sentences: list[str], sentence_vectors: np.ndarray, embed: Embed) -> Units:
    """The context's units, their rows (a sentence left whole keeps its row), and the rows the values lean on. A
    context of fewer than COMMON_MIN_UNITS units keeps its rows as they are (its mean is mostly its content)."""
    parts = [_sentence_units(s) for s in sentences]
    texts = [unit for units in parts for unit in units]
    vectors = sentence_vectors
    if len(texts) != len(sentences):
        counts = np.array([len(units) for units in parts])
        whole = np.repeat(counts == 1, counts)
        vectors = np.empty((len(texts), sentence_vectors.shape[1]), dtype=sentence_vectors.dtype)
        vectors[whole] = sentence_vectors[counts == 1]
        vectors[~whole] = embed([unit for units in parts if len(units) > 1 for unit in units])
    common = None
    if len(texts) >= COMMON_MIN_UNITS:
        centre = vectors.mean(axis=0)
        norm = float(np.linalg.norm(centre))
        common = centre / norm if norm > 0 else None
    units = Units(texts, vectors, vectors, common)
    return Units(texts, vectors, units.without_common(vectors), common)


def difference_text(value: str, rivals: tuple[str, ...]) -> str:
    """The value without the words every value of its slot holds (the slot's frame)."""
    common = set.intersection(*(set(w.lower() for w in _WORD.findall(v)) for v in rivals))
    kept = [w for w in _WORD.findall(value) if w.lower() not in common]
    return " ".join(kept) or value


def topic_plan(topicality: np.ndarray, iterations: int = PLAN_ITERATIONS) -> np.ndarray:
    """(topics, units): how much of each unit each topic reads, found jointly (a Sinkhorn transport plan, as in
    optimal transport with a dustbin): every topic reads one unit's worth, every unit gives at most its whole
    self, and units about none of the topics (less like any than the topics are like the context on average)
    go to a dustbin. Topics that would all pick the same unit are thus spread over the units that suit each."""
    n_topics, n_units = topicality.shape
    scores = np.vstack([topicality, np.full((1, n_units), float(topicality.mean()))])
    kernel = np.exp(PLAN_SHARPNESS * (scores - scores.max()))
    rows = np.append(np.ones(n_topics), max(n_units - n_topics, 1e-3))
    cols = np.full(n_units, rows.sum() / n_units)
    plan = kernel
    for _ in range(iterations):
        plan = plan * (rows / np.maximum(plan.sum(axis=1), 1e-300))[:, None]
        plan = plan * (cols / np.maximum(plan.sum(axis=0), 1e-300))[None, :]
    return plan[:n_topics] + 1e-12 * kernel[:n_topics]  # a topic with no mass left keeps its own preferences


def _words(text: str) -> list[str]:
    return [w for w in (x.lower() for x in _WORD.findall(text)) if w not in STOPWORDS and len(w) > 1]


class _Rows:
    """The rows of a set of texts, embedded in one call (each embedding call has a fixed cost)."""

    def __init__(self, texts: list[str], embed: Embed):
        unique = list(dict.fromkeys(texts))
        self._at = {t: k for k, t in enumerate(unique)}
        self._rows = embed(unique) if unique else np.zeros((0, 1))

    def __call__(self, texts: list[str]) -> np.ndarray:
        return self._rows[[self._at[t] for t in texts]]


def word_fit(values: list[str], units: list[str], rows: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """(values, units): how well each value's words and each unit's words find a match in the other (the mean
    of each word's best cosine, both ways, halved), so a value of few words is not drowned by a long unit."""
    value_rows = [rows(words) if words else None for words in (_words(v) for v in values)]
    out = np.zeros((len(values), len(units)))
    for j, unit_words in enumerate(_words(u) for u in units):
        if not unit_words:
            continue
        u = rows(unit_words).T
        for i, value in enumerate(value_rows):
            if value is not None:
                sims = value @ u
                out[i, j] = 0.5 * (sims.max(axis=1).mean() + sims.max(axis=0).mean())
    return out


def _close_texts(said: list[tuple[str, str]], split: list[tuple[str, str]]) -> list[str]:
    """What `_lean` reads closely for one slot: the top units' asserted and negated parts, and the words of
    those parts and of the slot's values (embedded together with every other slot's, in one call)."""
    words = [w for text in [a for a, _ in said] + [a for a, _ in split] for w in _words(text)]
    return [a for a, _ in split] + [n for _, n in split] + words


def _lean(said: list[tuple[str, str]], weight: np.ndarray, top: np.ndarray, split: list[tuple[str, str]],
          units: Units, rows: _Rows, close: _Rows) -> np.ndarray:
    """Per value of a slot (`said`: each value's asserted and negated parts, without the slot's frame): how much
    more than its rivals the units it reads (weights) say it. The units it reads most (`top`, WORD_UNITS of
    them, `split` into asserted and negated parts) are read closely: their negated parts apart, and word by
    word."""
    value, negated = rows([a for a, _ in said]), rows([n for _, n in said])  # zero rows where nothing is negated
    fit = (value - negated) @ units.read.T
    asserted = units.without_common(close([a for a, _ in split]))
    denied = units.without_common(close([n for _, n in split]))
    # asserted agrees with asserted and negated with negated; across them they disagree
    fit[:, top] = (value - negated) @ asserted.T + (negated - value) @ denied.T
    fit[:, top] += WORD_WEIGHT * word_fit([a for a, _ in said], [a for a, _ in split], close)
    return (fit - fit.mean(axis=0, keepdims=True)) @ weight * len(said)


def slot_semantic(factoring: Factoring, units: Units, embed: Embed, n_options: int,
                  question: str = "") -> tuple[np.ndarray, list[str]]:
    """(per option: the sum of its values' leans over the slots, the unit each slot read most)."""
    out = np.zeros(n_options)
    if not units.texts:
        return out, []
    topics = [list(s.values) for s in factoring.slots] + [[t] for t in factoring.shared]
    if len(topics) == 1 and question:  # one slot: the question says what every option is about
        topics[0] = topics[0] + [question]
    said = [[negation_split(difference_text(v, s.values)) for v in s.values] for s in factoring.slots]
    flat = [v for values in topics for v in values]
    rows = _Rows(flat + [part for values in said for pair in values for part in pair], embed)
    sims = rows(flat) @ units.vectors.T  # (topic texts, units)
    bounds = np.cumsum([0] + [len(t) for t in topics])
    plan = topic_plan(np.stack([sims[a:b].max(axis=0) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]))
    weights = [plan[g] / plan[g].sum() for g in range(len(factoring.slots))]
    tops = [ranked(weight)[:WORD_UNITS] for weight in weights]
    splits = [[negation_split(units.texts[u]) for u in top] for top in tops]
    close = _Rows([t for g in range(len(factoring.slots)) for t in _close_texts(said[g], splits[g])], embed)
    shown = []
    for g, slot in enumerate(factoring.slots):
        out += _lean(said[g], weights[g], tops[g], splits[g], units, rows, close)[list(slot.of_option)]
        shown.append(units.texts[first_best(weights[g])])
    return out, shown


def order_evidence(choices: list[str], units: Units, embed: Embed) -> np.ndarray | None:
    """Per option that states a change in order ('X -> Y', 'from X to Y'): how much better its two values fit
    the context's units in that order (X on an earlier unit than Y) than in the reverse order. Options that
    swap the same two values read alike slot by slot; the order tells them apart. None when not every option
    states an order, or the context has fewer than two units."""
    pairs = [sequence(c) for c in choices]
    if not all(pairs) or len(units.texts) < 2:
        return None
    vectors = embed([a for a, _ in pairs] + [b for _, b in pairs])
    first, then = vectors[:len(pairs)] @ units.read.T, vectors[len(pairs):] @ units.read.T  # (options, units)
    later_best = np.maximum.accumulate(then[:, ::-1], axis=1)[:, ::-1]  # best fit of Y at unit j or after
    earlier_best = np.maximum.accumulate(then, axis=1)  # ... at unit j or before
    forward = (first[:, :-1] + later_best[:, 1:]).max(axis=1)
    backward = (first[:, 1:] + earlier_best[:, :-1]).max(axis=1)
    return forward - backward
