"""What the traces show, as probabilities: the engine's expression model, read backwards.

The engine makes a trajectory *show* its persona's tier on a dimension with probability 0.85 where
the task activates the dimension fully, 0.5 partly and 0.12 otherwise, and its neutral default tier
else (`engine.policy.EXPRESSION`, `NEUTRAL`); a perturbed session shows its shifted tier. Each
trajectory's shown tiers are recorded in the corpus' ground truth (`expressed.json`). From them,
this module answers what an ideal observer of the traces would believe:

- `tier_loglik`: how well each persona tier explains a set of sessions' shown tiers on a dimension;
- `usual_tier`: the persona tier the sessions support (posterior argmax and its log-odds margin);
- `surprise`: how unexpected one session's shown tiers are given the user's other sessions
  (leave-one-out posterior predictive), the observer's anomaly score.

An unknown "other" tier (a perturbation, noise) keeps a small probability EPSILON, so one odd
session never rules a tier out. Where the ground truth was the instructed tiers (an LLM agent's
corpus) or assumed (no expressed.json), a session shows its tier with probability 1 - EPSILON.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..engine.policy import EXPRESSION, NEUTRAL
from ..traces.schema import DIMENSION_CODES
from .ground_truth import CorpusFacts

EPSILON = 0.02
TIERS = ("L", "M", "R")


def p_shown(shown: str, tier: str, level: str, dim: str, *, certain: bool = False) -> float:
    """P(a session shows `shown` on `dim` | the persona's tier is `tier`, the task's activation `level`)."""
    p = 1.0 if certain else EXPRESSION[level]
    neutral = NEUTRAL[dim].value
    base = p * (shown == tier) + (1.0 - p) * (shown == neutral)
    return (1.0 - EPSILON) * base + EPSILON / len(TIERS)


def _observations(facts: CorpusFacts, tids: Iterable[str], dim: str) -> list[tuple[str, str, bool]]:
    return [(facts.expressed[t].tiers[dim], facts.level(facts.task_of[t], dim), facts.expressed[t].certain)
            for t in tids]


def tier_loglik(facts: CorpusFacts, tids: Iterable[str], dim: str) -> dict[str, float]:
    """log P(the sessions' shown tiers on `dim` | persona tier), per tier."""
    obs = _observations(facts, tids, dim)
    return {x: sum(math.log(p_shown(s, x, lv, dim, certain=c)) for s, lv, c in obs) for x in TIERS}


def usual_tier(facts: CorpusFacts, tids: Iterable[str], dim: str) -> tuple[str, float]:
    """(the tier the sessions support best, its log-likelihood margin over the runner-up); flat prior."""
    ll = tier_loglik(facts, tids, dim)
    ranked = sorted(TIERS, key=lambda x: (-ll[x], TIERS.index(x)))
    return ranked[0], ll[ranked[0]] - ll[ranked[1]]


def posterior(facts: CorpusFacts, tids: Iterable[str], dim: str) -> dict[str, float]:
    ll = tier_loglik(facts, tids, dim)
    top = max(ll.values())
    z = sum(math.exp(v - top) for v in ll.values())
    return {x: math.exp(v - top) / z for x, v in ll.items()}


def predictive(facts: CorpusFacts, others: Iterable[str], tid: str, dim: str) -> float:
    """P(session `tid` shows what it shows on `dim` | the user's `others` sessions)."""
    post = posterior(facts, others, dim)
    shown, level = facts.expressed[tid].tiers[dim], facts.level(facts.task_of[tid], dim)
    certain = facts.expressed[tid].certain
    return sum(post[x] * p_shown(shown, x, level, dim, certain=certain) for x in TIERS)


def surprise(facts: CorpusFacts, others: Iterable[str], tid: str,
             dims: Iterable[str] = DIMENSION_CODES) -> float:
    """-log P(session `tid`'s shown tiers | the user's `others`), summed over `dims`: the observer's anomaly
    score (higher = less like this user)."""
    others = [t for t in others if t != tid]
    return -sum(math.log(predictive(facts, others, tid, d)) for d in dims)


def dimension_surprise(facts: CorpusFacts, others: Iterable[str], tid: str) -> dict[str, float]:
    """Per dimension, how unexpected session `tid`'s shown tier is given the user's `others`."""
    others = [t for t in others if t != tid]
    return {d: -math.log(predictive(facts, others, tid, d)) for d in DIMENSION_CODES}
