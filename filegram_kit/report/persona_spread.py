"""A few personas that cover the dimension grid, and items spread over them, for views that cannot run on all.

Notebooks 06 and 07 answer interactively, so they start on a subset. Two personas give no interval
(`util.cluster_ci`: a persona-clustered CI needs at least 5), and the first few ids in order share most
tiers. `spread_personas` picks by farthest-point on the tier vectors instead: each next persona is the
one whose nearest already-picked persona differs in the most dimensions.

A per-sub-task item limit has the same trap: the first N items of a sub-task (`bench.groups.select`) are
about its first personas, so 20 items of 6 personas can be about 2 of them. `items_across_personas` takes
them in turn from each persona instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import chain, zip_longest

from ..bench.schema import Item
from ..traces.schema import DIMENSION_CODES, Profile
from ..util.cluster_ci import MIN_CLUSTERS
from ..util.natural_order import natural_key, natural_sorted

DEFAULT_SPREAD = MIN_CLUSTERS + 1  # one above the CI's minimum, so dropping one persona keeps an interval


def _distance(a: Profile, b: Profile) -> int:
    return sum(a.tiers[d] != b.tiers[d] for d in DIMENSION_CODES)


def spread_personas(profiles: Mapping[str, Profile], k: int = DEFAULT_SPREAD,
                    among: Iterable[str] | None = None) -> list[str]:
    """`k` persona ids of `among` (default: all of `profiles`) far apart on the dimension grid, in natural order.

    Deterministic: starts at the first id in natural order; ties go to the earlier id in natural order.
    Ids without a profile are never picked (nothing to place them on the grid by)."""
    pool = natural_sorted(p for p in (profiles if among is None else among) if p in profiles)
    if k >= len(pool):
        return pool
    rank = {p: i for i, p in enumerate(pool)}
    picked = [pool[0]]
    nearest = {p: _distance(profiles[p], profiles[pool[0]]) for p in pool[1:]}
    while len(picked) < k:
        best = max(nearest, key=lambda p: (nearest[p], -rank[p]))  # farthest; the earlier id on a tie
        picked.append(best)
        del nearest[best]
        for p in nearest:
            nearest[p] = min(nearest[p], _distance(profiles[p], profiles[best]))
    return sorted(picked, key=natural_key)


def items_across_personas(items: Iterable[Item], limit: int | None) -> list[Item]:
    """At most `limit` items per sub-task, taken in turn from each persona (natural order), each persona's in
    item order; all of them when `limit` is None. The result keeps the items' original order."""
    items = list(items)
    if limit is None:
        return items
    by_task: dict[str, dict[str, list[int]]] = {}
    for k, item in enumerate(items):
        by_task.setdefault(item.sub_track, {}).setdefault(item.profile_id, []).append(k)
    keep: set[int] = set()
    for by_persona in by_task.values():
        turns = zip_longest(*(by_persona[p] for p in natural_sorted(by_persona)))
        keep.update([k for k in chain.from_iterable(turns) if k is not None][:limit])
    return [item for k, item in enumerate(items) if k in keep]
