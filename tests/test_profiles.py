import json
from collections import Counter

import pytest

from filegram_kit.behaviour.persona_space import tier_counts
from filegram_kit.traces.profiles import (
    PERTURBATION_CANDIDATES,
    ProfileDataError,
    attribute_model,
    design_pairs,
    get_profile,
    load_profiles,
    perturbation_schedule,
    sample_profiles,
    version_strategy_tier,
)
from filegram_kit.traces.schema import BEHAVIORAL_ATTRIBUTES, DIMENSION_CODES, Tier
from filegram_kit.traces.tasks import load_tasks

# Rows of paper Table 9, written here by hand.
TABLE9 = {"p1_methodical": "LLLLLM", "p3_efficient_executor": "MRRRMR", "p8_minimal_editor": "RRMLRR",
          "p12_prolific_scanner": "RLRLMM", "p17_creative_archivist": "LLLLML",
          "p20_visual_auditor": "LRMRRL"}


def test_twenty_paper_profiles_with_table9_tiers():
    profiles = load_profiles()
    assert len(profiles) == 20
    for pid, vector in TABLE9.items():
        assert profiles[pid].vector == vector
    assert Counter(p.language for p in profiles.values()) == {"Chinese": 10, "English": 10}
    assert get_profile("p17").name == "Chen Wenjing"


def test_every_tier_in_at_least_five_profiles_per_dimension():
    counts = tier_counts(load_profiles())
    assert counts.select("L", "M", "R").min_horizontal().min() >= 5
    assert counts.select("L", "M", "R").sum_horizontal().to_list() == [20] * 6


def test_attributes_follow_the_documented_rules():
    for p in load_profiles().values():
        assert set(p.attributes) == set(BEHAVIORAL_ATTRIBUTES)
        assert p.attributes["version_strategy"] == version_strategy_tier(p.tiers["C"], p.tiers["D"])
        assert p.attributes["cleanup_policy"] == p.tiers["E"]
        assert p.attributes["reading_strategy"] == p.tiers["A"]
        assert p.attributes["directory_style"] == p.tiers["C"]
    # working_style keeps the engine's rhythm tier: p3 is a bursty worker, p1 a phased one
    assert get_profile("p3").attributes["working_style"] == Tier.R
    assert get_profile("p1").attributes["working_style"] == Tier.L


def test_version_strategy_rule():
    assert version_strategy_tier("L", "L") == Tier.L
    assert version_strategy_tier("L", "R") == Tier.R
    assert version_strategy_tier("R", "M") == Tier.R
    assert version_strategy_tier("M", "M") == Tier.M


def test_design_pairs_differ_where_the_release_says():
    pairs = {(a.id.split("_")[0], b.id.split("_")[0]): a.differing_dimensions(b) for a, b, _ in design_pairs()}
    assert pairs[("p1", "p2")] == ("C", "D")
    assert pairs[("p15", "p5")] == ("B",)
    assert pairs[("p19", "p16")] == ("E",)
    assert pairs[("p17", "p18")] == tuple(DIMENSION_CODES)


def test_bad_profiles_file_names_profile_and_field(tmp_path):
    doc = {"profiles": [{"id": "x", "name": "X", "role": "r", "language": "English",
                         "tiers": dict.fromkeys(DIMENSION_CODES, "L"), "attributes": {}}]}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProfileDataError, match=r"p.json: profile 0: field 'attributes.reading_strategy'"):
        load_profiles(path)
    doc["profiles"][0]["tiers"]["C"] = "Q"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProfileDataError, match="profile 0: field 'tiers'"):
        load_profiles(path)


# -- sampling -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 7, 20, 45])
def test_sampled_personas_balance_every_tier(n):
    profiles = sample_profiles(n, seed=11)
    counts = tier_counts(profiles).select("L", "M", "R")
    assert counts.min_horizontal().min() >= 1
    assert (counts.max_horizontal() - counts.min_horizontal()).max() <= 1
    vectors = [p.vector for p in profiles]
    assert len(set(vectors)) == n
    assert not set(vectors) & {p.vector for p in load_profiles().values()}
    assert len({p.id for p in profiles}) == n and all(p.synthetic for p in profiles)


def test_sampling_is_deterministic_per_seed():
    a, b, c = sample_profiles(10, seed=5), sample_profiles(10, seed=5), sample_profiles(10, seed=6)
    assert a == b
    assert [p.vector for p in a] != [p.vector for p in c]


def test_sampled_attributes_follow_the_paper_model():
    profiles = sample_profiles(60, seed=2)
    for p in profiles:
        assert p.attributes["version_strategy"] == version_strategy_tier(p.tiers["C"], p.tiers["D"])
        assert p.attributes["reading_strategy"] == p.tiers["A"]  # never diverges among the paper's 20
    tone = attribute_model()["tone"]
    assert tone[Tier.R][Tier.L] > 0  # paper personas with concise output still often write formally
    assert sum(p.attributes["tone"] != p.tiers["B"] for p in profiles) > 0


def test_sample_size_limits():
    assert len(sample_profiles(1, seed=0)) == 1
    with pytest.raises(ValueError, match="at least 1"):
        sample_profiles(0)


def test_samples_beyond_the_tier_vectors_cover_every_vector_and_keep_the_smaller_samples():
    """729 tier vectors, 709 without the paper's 20: a larger sample uses each of them per full round."""
    paper = {p.vector for p in load_profiles().values()}
    big = sample_profiles(1500, seed=3)
    counts = Counter(p.vector for p in big)
    assert len(big) == len({p.id for p in big}) == 1500 and not set(counts) & paper
    assert len(counts) == 709 and set(counts.values()) <= {2, 3}  # two full rounds, then 82 distinct more
    for d in DIMENSION_CODES:
        tiers = Counter(p.tiers[d].value for p in big)
        assert max(tiers.values()) - min(tiers.values()) <= 30, (d, tiers)  # as even as the vector space allows
    small = sample_profiles(40, seed=3)
    assert [p.vector for p in small] == [p.vector for p in sample_profiles(40, seed=3)]
    assert len({p.vector for p in small}) == 40


# -- perturbation schedule -------------------------------------------------------------------------


def test_schedule_has_five_per_profile_and_100_in_all():
    schedule = perturbation_schedule()
    assert len(schedule) == 100
    per_profile = Counter(p.profile_id for p in schedule)
    assert set(per_profile.values()) == {5} and len(per_profile) == 20
    assert len({p.trajectory_id for p in schedule}) == 100


def test_each_perturbation_shifts_one_task_relevant_dimension_by_one_tier():
    tasks, profiles = load_tasks(), load_profiles()
    for p in perturbation_schedule(seed=3):
        assert p.task_id in PERTURBATION_CANDIDATES
        assert p.dimension in tasks[p.task_id].dims_full
        assert p.from_tier == profiles[p.profile_id].tiers[p.dimension]
        assert abs(p.to_tier.index - p.from_tier.index) == 1


def test_schedule_is_deterministic_and_per_profile_stable():
    assert perturbation_schedule(seed=1) == perturbation_schedule(seed=1)
    assert perturbation_schedule(seed=1) != perturbation_schedule(seed=2)
    paper = list(load_profiles().values())
    alone = perturbation_schedule(paper[:1], seed=1)
    assert alone == [p for p in perturbation_schedule(paper, seed=1) if p.profile_id == paper[0].id]


def test_middle_tiers_shift_both_ways():
    shifts = {(p.from_tier, p.to_tier) for s in range(5) for p in perturbation_schedule(seed=s)}
    assert {(Tier.M, Tier.L), (Tier.M, Tier.R), (Tier.L, Tier.M), (Tier.R, Tier.M)} <= shifts


def test_schedule_works_for_sampled_personas():
    sampled = sample_profiles(9, seed=4)
    schedule = perturbation_schedule(sampled, seed=0, per_profile=3)
    assert Counter(p.profile_id for p in schedule) == {p.id: 3 for p in sampled}


def test_sampling_near_the_size_of_tier_space_still_gives_distinct_balanced_personas():
    profiles = sample_profiles(700, seed=3)
    assert len({p.vector for p in profiles}) == 700
    counts = tier_counts(profiles).select("L", "M", "R")
    assert (counts.max_horizontal() - counts.min_horizontal()).max() <= 1
