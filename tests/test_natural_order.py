"""Natural order for people reading lists of ids (util/natural_order.py), and the spread persona picker the
interactive notebooks start with (report/persona_spread.py)."""

from __future__ import annotations

import itertools

from filegram_kit.report.persona_spread import spread_personas
from filegram_kit.traces.profiles import load_profiles, sample_profiles
from filegram_kit.traces.schema import DIMENSION_CODES
from filegram_kit.util.natural_order import natural_sorted


def test_ids_and_values_sort_by_their_numbers():
    assert natural_sorted(["p10_silent_auditor", "p2_thorough_reviser", "p1_methodical", "p20_x", "p11_y"]) == [
        "p1_methodical", "p2_thorough_reviser", "p10_silent_auditor", "p11_y", "p20_x"]
    assert natural_sorted(["1000", "300", "500", "800"]) == ["300", "500", "800", "1000"]
    assert natural_sorted(["T-10", "T-9", "T-01"]) == ["T-01", "T-9", "T-10"]
    assert natural_sorted(["b", "A", "a2", "a10"]) == ["A", "a2", "a10", "b"]
    assert natural_sorted([5, 2, 3]) == [2, 3, 5]


def _min_distance(profiles, ids):
    return min(sum(profiles[a].tiers[d] != profiles[b].tiers[d] for d in DIMENSION_CODES)
               for a, b in itertools.combinations(ids, 2))


def test_the_spread_personas_are_far_apart_and_in_natural_order():
    profiles = load_profiles()
    picked = spread_personas(profiles, 6)
    assert len(picked) == 6 == len(set(picked)) and picked == natural_sorted(picked)
    first_six = natural_sorted(profiles)[:6]
    assert _min_distance(profiles, picked) > _min_distance(profiles, first_six)
    assert spread_personas(profiles, 6) == picked  # deterministic
    assert spread_personas(profiles, 30) == natural_sorted(profiles)  # asking for more: all of them
    among = natural_sorted(profiles)[5:12]
    assert set(spread_personas(profiles, 3, among=among + ["not_a_persona"])) <= set(among)


def test_sampled_personas_are_spread_too():
    profiles = {p.id: p for p in sample_profiles(12, seed=3)}
    picked = spread_personas(profiles, 5)
    assert len(picked) == 5 and _min_distance(profiles, picked) >= 2


def test_a_per_subtask_limit_is_spread_over_the_personas():
    from types import SimpleNamespace

    from filegram_kit.bench.groups import select
    from filegram_kit.report.persona_spread import items_across_personas

    personas = [f"p{k}" for k in (1, 2, 3, 10, 11, 20)]
    items = [SimpleNamespace(sub_track=t, profile_id=p, n=n) for t in ("a", "b") for p in personas for n in range(8)]
    first = select(items, 12)
    assert len({i.profile_id for i in first if i.sub_track == "a"}) == 2  # the first 12 are about 2 personas
    spread = items_across_personas(items, 12)
    for task in ("a", "b"):
        mine = [i for i in spread if i.sub_track == task]
        assert len(mine) == 12 and {i.profile_id for i in mine} == set(personas)  # 2 of each of the 6
        assert all(sum(i.profile_id == p for i in mine) == 2 for p in personas)
    assert [i for i in items if i in spread] == spread  # in the items' own order
    assert items_across_personas(items, None) == items and len(items_across_personas(items, 100)) == len(items)
