"""FileGramBench item generators: counts, option counts, keys that match the evidence, no tells, determinism.

The corpus here is simulated from the engine's expression model (bench.simulate), so the tests run
without building trajectories yet face the same gap between persona tiers and what sessions show.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

import numpy as np
import pytest

from filegram_kit.bench import SUB_TRACKS
from filegram_kit.bench.generate import GENERATORS, items_from_facts
from filegram_kit.bench.observer import observe
from filegram_kit.bench.reasoning import PARTNERS, persona_pairs
from filegram_kit.bench.simulate import simulated_facts
from filegram_kit.bench.templates import BEHAVIOUR
from filegram_kit.traces.profiles import PERTURBATION_CANDIDATES


@pytest.fixture(scope="module")
def facts():
    return simulated_facts()


@pytest.fixture(scope="module")
def items(facts):
    return items_from_facts(facts, seed=0)[0]


def by(items, sub_track):
    return [i for i in items if i.sub_track == sub_track]


def test_counts_reach_the_paper_and_option_counts_stay_in_range(items):
    counts = Counter(i.sub_track for i in items)
    for name in GENERATORS:  # Tracks 1-3 (Track 4 is built on its own settings: test_track4.py)
        paper = SUB_TRACKS[name][2]
        assert 0.9 * paper <= counts[name] <= paper, (name, counts[name])
    for item in items:
        low, high = SUB_TRACKS[item.sub_track][3]
        assert low <= len(item.choices) <= high, item.question_id
        assert item.channel in ("procedural", "semantic", "episodic")


def test_ids_unique_and_no_duplicate_questions(items):
    assert len({i.question_id for i in items}) == len(items)
    keys = [(i.question, tuple(sorted(i.choices)), i.input_trajectories, i.correct if not i.choices else "")
            for i in items]
    assert len(set(keys)) == len(keys)
    for item in items:
        assert len(set(item.choices)) == len(item.choices), item.question_id


def test_questions_carry_no_ground_truth(items, facts):
    names = {pid for pid in facts.personas} | {pid.split("_", 1)[1] for pid in facts.personas}
    names |= {p.name for p in facts.personas.values()}
    for item in items:
        text = item.question.lower()
        assert not any(n.lower() in text for n in names), item.question_id
        assert not re.search(r"\b(?:tier|L|M|R)\b", item.question), item.question_id


def test_every_key_is_what_the_ideal_observer_of_the_traces_picks(items, facts):
    mcq = [i for i in items if i.is_mcq]
    assert all(i.metadata.get("option_facts") for i in mcq)
    wrong = [i.question_id for i in mcq if observe(i, facts).index != i.answer_index]
    assert wrong == []


def test_keys_are_balanced_over_letters_where_options_are_placed(items):
    for sub_track in SUB_TRACKS:
        groups: dict[int, Counter] = {}
        for item in by(items, sub_track):
            if item.choices and "labels" not in item.metadata:
                groups.setdefault(len(item.choices), Counter())[item.correct] += 1
        for n, letters in groups.items():
            assert max(letters.values()) - min(letters.get(c, 0) for c in "ABCDEF"[:n]) <= 1, (sub_track, n)


def test_session_options_keep_the_input_order_and_the_key_position_is_uniform(items):
    sessions = [i for i in items if "labels" in i.metadata]
    assert sessions
    for item in sessions:
        labels = item.metadata["labels"]
        assert list(item.choices) == [labels[t] for t in item.input_trajectories]
        assert item.input_trajectories[item.answer_index] == item.metadata["answer_trajectory"]
    impostors = [i for i in sessions if i.sub_class == "impostor"]
    counts = np.bincount([i.answer_index for i in impostors], minlength=6)
    expected = len(impostors) / 6
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 20.5, counts  # 5 degrees of freedom: p < 0.001 would mean the position tells the key
    first_or_last = np.mean([i.answer_index in (0, 5) for i in impostors])
    assert first_or_last < 0.45  # sorted by persona name it was 1.0 (the old leak); uniform is 1/3


def test_attribute_recognition_keys_are_the_persona_values(items, facts):
    for item in by(items, "attribute_recognition"):
        meta = item.metadata
        if item.sub_class == "language":
            assert item.choices[item.answer_index] in {"English", "Chinese", facts.personas[item.profile_id].language}
        if item.sub_class == "dimension_tier":
            truth = facts.tiers(item.profile_id)[meta["dimension"]]
            assert item.metadata["option_facts"][item.answer_index]["tier"] == truth
            assert item.choices[item.answer_index] in BEHAVIOUR[meta["dimension"]][truth]


def test_trace_disentanglement_key_is_the_one_difference_among_the_options(items, facts):
    for item in by(items, "trace_disentanglement"):
        a, b = item.metadata["interleave"]
        assert sorted(item.metadata["interleave"]) == sorted(item.input_trajectories)
        key = item.metadata["dimension"]
        for k, option in enumerate(item.metadata["option_facts"]):
            d = option["dimension"]
            users_differ = facts.effective(a)[d] != facts.effective(b)[d]
            sessions_differ = facts.expressed[a].tiers[d] != facts.expressed[b].tiers[d]
            if k == item.answer_index:
                assert d == key and users_differ and sessions_differ
            else:
                assert not users_differ and not sessions_differ, item.question_id


def test_anomaly_options_give_nothing_away_by_task(items, facts):
    for item in by(items, "anomaly_detection"):
        answer = item.metadata["answer_trajectory"]
        tasks = [facts.task_of[t] for t in item.input_trajectories]
        assert len(set(tasks)) == len(tasks)
        if item.sub_class == "impostor":
            assert facts.persona_of[answer] != item.profile_id
            assert sum(facts.persona_of[t] == item.profile_id for t in item.input_trajectories) == 5
        else:
            assert answer in facts.shifts and all(t in PERTURBATION_CANDIDATES for t in tasks)
            assert sum(t in facts.shifts for t in item.input_trajectories) == 1


def test_shift_direction_options_are_not_built_around_the_key(items):
    """The old set (from->to, to->from, from->third) put the key first in every pattern."""
    patterns = Counter()
    for item in by(items, "shift_analysis"):
        if item.sub_class == "shift_direction":
            opts = item.metadata["option_facts"]
            key = opts[item.answer_index]
            reverse = any(o["from"] == key["to"] and o["to"] == key["from"] for o in opts)
            patterns[reverse] += 1
    assert patterns[False] > 0  # the key's reverse is not always among the options


def test_behavioral_inference_holds_out_its_task(items):
    for item in by(items, "behavioral_inference"):
        held = item.metadata["held_out_task"]
        assert not any(t.endswith("_" + held) for t in item.input_trajectories)


def test_same_seed_same_items_other_seed_other_items_same_inputs(facts, items):
    assert items_from_facts(facts, seed=0)[0] == items
    other = items_from_facts(facts, seed=1)[0]
    assert [i.correct for i in other] != [i.correct for i in items]
    assert all(i.question_id.startswith(i.question_id.split("_")[0] + "_s1_") for i in other)
    # the input sets of a whole history are the same in every seed: one ingest serves all seeds
    history = {i.input_trajectories for i in items if i.sub_track == "behavioral_inference"}
    assert history & {i.input_trajectories for i in other if i.sub_track == "behavioral_inference"}


def test_a_smaller_corpus_gets_proportionally_fewer_items():
    small = simulated_facts(n_personas=5)
    items, report = items_from_facts(small, seed=0)
    counts = Counter(i.sub_track for i in items)
    assert counts["profile_reconstruction"] == 5 * 16
    assert all(r.kept <= r.target for r in report)


def test_disentanglement_pairs_all_users_of_a_small_corpus_and_a_fixed_number_per_user_beyond():
    """Pairing every two of 1,000 users wrote 30M drafts; the items needed grow only with the corpus."""
    small = [f"u{i:03d}" for i in range(PARTNERS + 1)]
    assert persona_pairs(small) == list(itertools.combinations(small, 2))
    for n in (PARTNERS + 2, 57, 400):
        users = [f"u{i:03d}" for i in range(n)][::-1]
        pairs = persona_pairs(users)
        per_user = Counter(u for pair in pairs for u in pair)
        assert set(per_user.values()) == {PARTNERS} and len(per_user) == n
        assert len({frozenset(pair) for pair in pairs}) == len(pairs) == n * PARTNERS // 2
        rank = {u: i for i, u in enumerate(users)}  # combinations order of the list given
        assert pairs == sorted(pairs, key=lambda pair: (rank[pair[0]], rank[pair[1]]))
        assert all(rank[a] < rank[b] for a, b in pairs)
        # the design follows the ids, not the order they come in
        assert {frozenset(p) for p in persona_pairs(sorted(users))} == {frozenset(p) for p in pairs}


def test_perturbation_keys_cycle_over_the_positions_after_the_evidence_check(items):
    """Positions set before items were dropped for lack of evidence left one position the key's in 18 of 55."""
    perturbation = [i for i in by(items, "anomaly_detection") if i.sub_class == "perturbation"]
    assert len(perturbation) >= 8
    counts = np.bincount([i.answer_index for i in perturbation], minlength=len(perturbation[0].choices))
    assert counts.max() - counts.min() <= 1, counts


def test_every_supported_perturbation_draft_is_kept_whatever_the_impostor_draws(facts, monkeypatch):
    """Perturbation items are limited by the corpus (one per perturbed session whose shift shows), so their
    share must not shrink when the impostor generator writes more drafts."""
    from filegram_kit.bench import detection

    def perturbation_count():
        items = items_from_facts(facts, seed=0, sub_tracks=["anomaly_detection"])[0]
        return sum(i.sub_class == "perturbation" for i in items), len(items)

    before = perturbation_count()
    monkeypatch.setattr(detection, "IMPOSTOR_TRIES", 2 * detection.IMPOSTOR_TRIES)
    assert perturbation_count() == before


def test_balanced_select_fills_a_remainder_smaller_than_a_set_and_stays_balanced():
    from filegram_kit.bench.design import balanced_select

    drafts = [(sig, key, n) for sig, members in (("pair", "ab"), ("triple", "xyz")) for key in members
              for n in range(40)]
    for n in (10, 11, 13, 57):
        chosen = balanced_select(drafts, n, np.random.default_rng(n), signature=lambda d: d[0], key=lambda d: d[1],
                                 members=lambda d: "ab" if d[0] == "pair" else "xyz")
        assert len(chosen) == n and len(set(chosen)) == n
        for sig in ("pair", "triple"):
            keys = Counter(d[1] for d in chosen if d[0] == sig)
            if keys:
                assert max(keys.values()) - min(keys.get(k, 0) for k in ("ab" if sig == "pair" else "xyz")) <= 1
