"""The choices-only adversary: how well can an item be answered from its options alone?

A multiple-choice benchmark leaks when the key can be told from the options without the evidence
(Balepur et al., "Artifacts or Abduction", ACL 2024): the key is the "centre" of its distractors,
it is the only option of some kind, one wording always marks it, or one value is the key far more
often than the others. This model sees exactly what such a leak offers and nothing else: each
option's words and its structure within the item, never the question, the inputs or the traces.

Per option: binary unigrams and bigrams of its text; its length, and its word overlap with the
other options (mean, max, min Jaccard; words no other option has; the longest run of leading and
of trailing words it shares with another option), all centred within the item; its letter; the
number of options. A logistic regression scores every option and the item's answer is the best
score (a conditional logit trained as a binary one on centred features). It is trained per
sub-class where one has enough items (else per sub-task) and evaluated by GroupKFold over personas,
so a test persona's items never trained the model that answers them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .schema import Item

FOLDS = 5
MIN_SUBCLASS = 40  # items a sub-class needs for a model of its own
C = 1.0  # inverse regularisation of the logistic regression
_WORD = re.compile(r"[\w']+|[^\w\s]", re.UNICODE)
_SEGMENT = re.compile(r"[;,.:]|->|\bwhile\b|\band\b")
STRUCTURE = ("length", "jaccard_mean", "jaccard_max", "jaccard_min", "own_words", "prefix_shared",
             "suffix_shared", "segments_mean", "segments_max", "segments_min")


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _common_run(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _segments(text: str) -> set[str]:
    """An option's parts (split at punctuation, arrows and conjunctions), each as its normalised words."""
    return {" ".join(_words(part)) for part in _SEGMENT.split(text.lower()) if _words(part)}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, len(a | b))


@functools.lru_cache(maxsize=65_536)  # an item is designed once per fold it trains or tests
def structure(choices: tuple[str, ...]) -> np.ndarray:
    """(n options, len(STRUCTURE)) structural features, each centred within the item: the key must not
    be the option most like the others (a "centre"), the odd one out, the longest, ... (read-only)"""
    words = [_words(c) for c in choices]
    sets = [set(w) for w in words]
    parts = [_segments(c) for c in choices]
    rows = []
    for i, own in enumerate(sets):
        others = [j for j in range(len(sets)) if j != i]
        jac = [_jaccard(own, sets[j]) for j in others] or [0.0]
        seg = [_jaccard(parts[i], parts[j]) for j in others] or [0.0]
        rest = set().union(*(sets[j] for j in others)) if others else set()
        rows.append([len(words[i]), np.mean(jac), max(jac), min(jac), len(own - rest),
                     max((_common_run(words[i], words[j]) for j in others), default=0),
                     max((_common_run(words[i][::-1], words[j][::-1]) for j in others), default=0),
                     np.mean(seg), max(seg), min(seg)])
    out = np.asarray(rows, dtype=np.float64)
    out = out - out.mean(axis=0, keepdims=True)
    out.setflags(write=False)
    return out


def _text_features(items: list[Item]) -> tuple[list[str], list[int]]:
    texts, owner = [], []
    for k, item in enumerate(items):
        for choice in item.choices:
            texts.append(" ".join(_words(choice)))
            owner.append(k)
    return texts, owner


@dataclass(frozen=True)
class Prediction:
    question_id: str
    index: int  # the option the adversary picks
    is_correct: bool


def _design(items: list[Item], vectorizer, most: int) -> sparse.csr_matrix:
    """Centred option rows: words (from `vectorizer`), structure, letter, option count."""
    texts, owner = _text_features(items)
    bag = vectorizer.transform(texts).astype(np.float64).tocsr()
    owner = np.asarray(owner)
    # centre the bag within each item: a word every option has says nothing about which is the key
    counts = np.bincount(owner)
    means = sparse.csr_matrix((np.ones(len(owner)) / counts[owner], (owner, np.arange(len(owner)))),
                              shape=(len(items), len(owner))) @ bag
    centred = bag - means[owner]
    extra = []
    for item in items:
        n = len(item.choices)
        letters = np.eye(most)[:n] - 1.0 / n
        size = np.full((n, 1), float(n))
        extra.append(np.hstack([structure(tuple(item.choices)), letters, size - size.mean()]))
    return sparse.hstack([centred, sparse.csr_matrix(np.vstack(extra))]).tocsr()


def _labels(items: list[Item]) -> np.ndarray:
    return np.concatenate([np.arange(len(i.choices)) == i.answer_index for i in items]).astype(int)


def _fit_predict(train: list[Item], test: list[Item]) -> list[int]:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    texts, _ = _text_features(train)
    vectorizer = CountVectorizer(ngram_range=(1, 2), binary=True, token_pattern=r"\S+", min_df=1)
    vectorizer.fit(texts)
    most = max(len(i.choices) for i in [*train, *test])  # letter features: train and test alike
    x, y = _design(train, vectorizer, most), _labels(train)
    if y.min() == y.max():
        return [0 for _ in test]
    model = LogisticRegression(C=C, max_iter=2000, solver="liblinear")
    model.fit(x, y)
    scores = model.decision_function(_design(test, vectorizer, most))
    out, start = [], 0
    for item in test:
        n = len(item.choices)
        out.append(int(np.argmax(np.round(scores[start:start + n], 9))))
        start += n
    return out


def _groups(items: list[Item]) -> list[list[Item]]:
    """Items modelled together: a sub-class with enough items, else the rest of its sub-task."""
    by_sub: dict[str, list[Item]] = {}
    for item in items:
        by_sub.setdefault(item.sub_track, []).append(item)
    out = []
    for sub_items in by_sub.values():
        classes: dict[str, list[Item]] = {}
        for item in sub_items:
            classes.setdefault(item.sub_class, []).append(item)
        small = [i for members in classes.values() if len(members) < MIN_SUBCLASS for i in members]
        out += [members for members in classes.values() if len(members) >= MIN_SUBCLASS]
        if small:
            out.append(small)
    return out


def choices_only(items: Iterable[Item], *, folds: int = FOLDS) -> list[Prediction]:
    """The adversary's cross-validated answer to every multiple-choice item (persona-grouped folds)."""
    from sklearn.model_selection import GroupKFold

    mcq = [i for i in items if i.is_mcq]
    predictions: dict[str, Prediction] = {}
    for group in _groups(mcq):
        personas = np.asarray([i.profile_id or "" for i in group])
        k = min(folds, len(set(personas)))
        if k < 2:  # one persona: nothing to hold out, the adversary abstains (picks A)
            predictions.update({i.question_id: Prediction(i.question_id, 0, i.answer_index == 0) for i in group})
            continue
        for train_idx, test_idx in GroupKFold(n_splits=k).split(group, groups=personas):
            train, test = [group[j] for j in train_idx], [group[j] for j in test_idx]
            for item, index in zip(test, _fit_predict(train, test), strict=True):
                predictions[item.question_id] = Prediction(item.question_id, index, index == item.answer_index)
    return [predictions[i.question_id] for i in mcq]
