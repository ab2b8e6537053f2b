"""Reading options slot by slot: each slot's values are compared with each other, on the context's units about
that slot's topic (option_slots.py finds the slots).

For options that share clauses, comparing whole options with the context separates them by a few hundredths:
what they share dominates every cosine. Here each slot is read on its own:

- topic: a context unit (a clause) is about a slot by how much more like the slot's values it is than like any
  other topic the options raise (the other slots, and the clauses every option shares, which soak up the units
  about what the options agree on); the units most about the slot carry its reading (a softmax, TOPIC_SHARPNESS);
- lean: on those units, how much more like one value than like its rivals each unit is, with the words all of
  the slot's values share ("writing:", "Normally the user") left out, so only what differs is compared;
- negation: a unit's negated part ("no graphs or grids", "never deletes") counts against the values it resembles.

An option scores the sum of its values' readings, so a 2 x 2 item is two binary readings.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from .option_slots import Factoring, clauses

TOPIC_SHARPNESS = 8.0
_NEGATED = re.compile(r"\b(?:no|not|never|nothing|none|without|nor|neither|hardly|rarely|seldom)\b(?P<rest>[^,;.]*)",
                      re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")

Embed = Callable[[list[str]], np.ndarray]


def units_of(sentences: list[str]) -> list[str]:
    """The context's units: its sentences cut at strong breaks (a ';' clause says one thing)."""
    out = []
    for sentence in sentences:
        out.extend(clauses(sentence) or [sentence])
    return out


def difference_text(value: str, rivals: tuple[str, ...]) -> str:
    """The value without the words every value of its slot holds (the slot's frame)."""
    common = set.intersection(*(set(w.lower() for w in _WORD.findall(v)) for v in rivals))
    kept = [w for w in _WORD.findall(value) if w.lower() not in common]
    return " ".join(kept) or value


def negation_split(unit: str) -> tuple[str, str]:
    """(what a unit asserts, what it negates): 'keeps all, no graphs or grids' -> ('keeps all,', 'graphs or grids').
    A negation governs the words after it up to the next comma, semicolon or full stop."""
    negated = [m.group("rest").strip() for m in _NEGATED.finditer(unit)]
    return _NEGATED.sub(" ", unit).strip(), " ".join(n for n in negated if n)


def slot_semantic(factoring: Factoring, units: list[str], unit_vectors: np.ndarray, embed: Embed,
                  n_options: int, question: str = "") -> tuple[np.ndarray, list[str]]:
    """(per option: the sum of its values' leans over the slots, the unit that weighed most in each slot)."""
    out = np.zeros(n_options)
    if not units:
        return out, []
    topics = [list(s.values) for s in factoring.slots] + [[t] for t in factoring.shared]
    if len(topics) == 1 and question:  # one slot: the question says what every option is about
        topics[0] = topics[0] + [question]
    flat = [v for values in topics for v in values]
    diffs = [negation_split(difference_text(v, s.values)) for s in factoring.slots for v in s.values]
    vectors = embed(flat + [a for a, _ in diffs] + [n for _, n in diffs])
    topic_vectors, diff_vectors = vectors[:len(flat)], vectors[len(flat):len(flat) + len(diffs)]
    diff_denied = vectors[len(flat) + len(diffs):]  # zero rows where a value negates nothing
    sims = topic_vectors @ unit_vectors.T  # (values, units)
    bounds = np.cumsum([0] + [len(t) for t in topics])
    topicality = np.stack([sims[a:b].max(axis=0) for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    split = [negation_split(u) for u in units]
    negating = [u for u, (_, negated) in enumerate(split) if negated]
    if negating:  # such a unit asserts its positive part and counts against what its negated part says
        signed = embed([split[u][0] for u in negating] + [split[u][1] for u in negating])
        asserted, denied = signed[:len(negating)], signed[len(negating):]
    shown, start = [], 0
    for g, slot in enumerate(factoring.slots):
        others = np.delete(topicality, g, axis=0)
        about = topicality[g] - (others.max(axis=0) if len(others) else 0.0)
        weight = np.exp(TOPIC_SHARPNESS * (about - about.max()))
        weight /= weight.sum()
        d, dn = diff_vectors[start:start + len(slot.values)], diff_denied[start:start + len(slot.values)]
        start += len(slot.values)
        fit = d @ unit_vectors.T - dn @ unit_vectors.T  # (values, units)
        if negating:  # asserted agrees with asserted and denied with denied; across them they disagree
            fit[:, negating] = d @ asserted.T + dn @ denied.T - d @ denied.T - dn @ asserted.T
        lean = (fit - fit.mean(axis=0, keepdims=True)) @ weight * len(slot.values)
        out += lean[list(slot.of_option)]
        shown.append(units[int(np.argmax(weight))])
    return out, shown
