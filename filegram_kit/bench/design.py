"""Option sets with no structural tell: the key is exchangeable with its distractors.

A choices-only model can only beat chance when, given the options alone, some member is more
likely to be the key than the others. Two ways that happens, and the fix for each:

- The option set is built *around* the key (distractors are its neighbours, so the key is the
  centre; a direction's reverse is always there ...). Fix: draw sets from a design in which every
  member plays the same role, e.g. a 2 x 2 grid of tiers on two dimensions, or any subset of a
  universe of values.
- Some value is the key more often than others (shifts are one step, so "L -> M" is common and
  "L -> R" never happens). Fix: **conditional Poisson sampling** (Chen, Dempster & Liu, 1994).
  For a universe of values with key frequencies p and sets of size m, draw the set S with
  P(S) proportional to the product of member weights w, fitted so that each value's inclusion
  probability is m * p. Then P(key = x | S) = 1/m for every member: given the key x, draw the
  other m - 1 members by the same weights from the rest of the universe (`exchangeable_set`).
  Exact when every m * p <= 1; otherwise the excess is capped and a small residual remains.
- A value set that cannot vary (three tiers, two languages) needs balanced keys instead:
  `balanced_select` keeps, per option set, the same number of items for each member.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")
FIT_ITERATIONS = 200
SMOOTHING = 0.5  # pseudo-count per universe value: a value never seen as a key still gets a weight


def _elementary(w: np.ndarray, m: int) -> np.ndarray:
    """e_k(w) for k = 0..m (elementary symmetric polynomials), by the usual recursion."""
    e = np.zeros(m + 1)
    e[0] = 1.0
    for x in w:
        e[1:] = e[1:] + x * e[:-1]
    return e


def _inclusion(w: np.ndarray, m: int) -> np.ndarray:
    """Inclusion probability of each value under P(S) proportional to prod(w over S), |S| = m."""
    total = _elementary(w, m)[m]
    return np.array([w[i] * _elementary(np.delete(w, i), m - 1)[m - 1] / total for i in range(len(w))])


def _capped_targets(p: np.ndarray, m: int) -> np.ndarray:
    """m * p, capped just below 1 with the excess spread over the rest (inclusion probabilities sum to m)."""
    target = m * p / p.sum()
    cap = 1.0 - 1e-6
    for _ in range(len(p)):
        over = target > cap
        if not over.any():
            break
        excess = float((target[over] - cap).sum())
        target[over] = cap
        free = ~over & (target < cap)
        target[free] += excess * target[free] / target[free].sum()
    return target


def design_weights(frequencies: dict[Hashable, float], universe: Sequence[Hashable], m: int) -> np.ndarray:
    """Conditional-Poisson weights over `universe` for sets of size m, from key frequencies (counts or shares).

    Every universe value gets SMOOTHING added to its count, so rare values stay possible members.
    """
    if not 1 <= m <= len(universe):
        raise ValueError(f"set size {m} must be between 1 and the universe size {len(universe)}")
    p = np.array([float(frequencies.get(x, 0.0)) + SMOOTHING for x in universe])
    if m == len(universe):
        return np.ones(len(universe))
    target = _capped_targets(p / p.sum(), m)
    w = target / (1.0 - target)
    for _ in range(FIT_ITERATIONS):
        pi = _inclusion(w, m)
        if np.max(np.abs(pi - target)) < 1e-9:
            break
        w = w * target / pi
        w = w / w.max()
    return w


def _draw(rng: np.random.Generator, w: np.ndarray, k: int) -> list[int]:
    """k indices with P(S) proportional to prod(w over S), drawn sequentially (exact)."""
    chosen, n = [], len(w)
    for i in range(n):
        if k == 0:
            break
        rest = _elementary(w[i + 1:], k)
        take = w[i] * rest[k - 1]
        if rng.random() * (take + rest[k]) < take:
            chosen.append(i)
            k -= 1
    return chosen


def exchangeable_set(rng: np.random.Generator, key: T, universe: Sequence[T], weights: np.ndarray, m: int) -> list[T]:
    """The key and m - 1 other universe values drawn by the design's weights; key first."""
    index = list(universe).index(key)
    rest = [i for i in range(len(universe)) if i != index]
    picked = _draw(rng, np.asarray(weights)[rest], m - 1)
    others = [universe[rest[i]] for i in picked]
    return [key, *[others[int(i)] for i in rng.permutation(len(others))]]


def partner(rng: np.random.Generator, key: T, universe: Sequence[T], weights: np.ndarray) -> T:
    """One other value for a pair with the key (an exchangeable set of two)."""
    return exchangeable_set(rng, key, universe, weights, 2)[1]


def balanced_select(drafts: list[T], n: int, rng: np.random.Generator, *, signature: Callable[[T], Hashable],
                    key: Callable[[T], Hashable], members: Callable[[T], Sequence[Hashable]],
                    rank: Callable[[T], float] | None = None) -> list[T]:
    """Up to n drafts such that, within each signature (an option set's kind), every member of the set is the
    key equally often. Rounds add one draft per (signature, member) where every member still has one, spread
    over signatures; `rank` orders each pool (lower first, e.g. prefer whole-history variants), ties at random.
    When fewer than a whole round is missing, one more round of a random open signature contributes that
    many members, chosen at random (so a member is the key at most once more than another of its set).
    Returns fewer than n only when the pools run out."""
    pools: dict[Hashable, dict[Hashable, list[T]]] = {}
    universes: dict[Hashable, tuple[Hashable, ...]] = {}
    for d in drafts:
        sig = signature(d)
        universes.setdefault(sig, tuple(members(d)))
        pools.setdefault(sig, {}).setdefault(key(d), []).append(d)
    for by_key in pools.values():
        for k, pool in by_key.items():
            order = rng.permutation(len(pool))
            by_key[k] = sorted((pool[int(i)] for i in order), key=rank) if rank else [pool[int(i)] for i in order]
    taken: Counter = Counter()
    chosen: list[T] = []
    signatures = [s for s in pools if all(pools[s].get(k) for k in universes[s])]
    while len(chosen) < n:
        open_ = [s for s in signatures if all(len(pools[s][k]) > taken[s] for k in universes[s])]
        if not open_:
            break
        for s in [open_[int(i)] for i in rng.permutation(len(open_))]:
            if len(chosen) + len(universes[s]) > n:
                continue
            chosen += [pools[s][k][taken[s]] for k in universes[s]]
            taken[s] += 1
        if all(len(chosen) + len(universes[s]) > n for s in open_):
            break
    open_ = [s for s in signatures if all(len(pools[s][k]) > taken[s] for k in universes[s])]
    if len(chosen) < n and open_:  # a partial round: the remainder is smaller than every open set
        s = open_[int(rng.integers(len(open_)))]
        members_left = [universes[s][int(i)] for i in rng.permutation(len(universes[s]))][:n - len(chosen)]
        chosen += [pools[s][k][taken[s]] for k in members_left]
    return chosen
