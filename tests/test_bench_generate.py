"""FileGramBench item generators: counts, option counts, distractor rules, no leaks, balance, determinism."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from filegram_kit.bench import SUB_TRACKS
from filegram_kit.bench.drafts import distance
from filegram_kit.bench.facts import CorpusFacts, Shift
from filegram_kit.bench.generate import items_from_facts
from filegram_kit.bench.templates import BEHAVIOUR, portrait
from filegram_kit.profiles import load_profiles, perturbation_schedule
from filegram_kit.tasks import load_tasks


def paper_facts() -> CorpusFacts:
    """The paper's corpus as the generators see it: 20 personas x 32 tasks, 100 perturbations (seed 0)."""
    personas, tasks = load_profiles(), load_tasks()
    sessions = {pid: {t: f"{pid}_{t}" for t in sorted(tasks)} for pid in personas}
    shifts = {p.trajectory_id: Shift(p.dimension, p.from_tier.value, p.to_tier.value)
              for p in perturbation_schedule(seed=0)}
    return CorpusFacts(personas, tasks, sessions, shifts)


@pytest.fixture(scope="module")
def facts():
    return paper_facts()


@pytest.fixture(scope="module")
def items(facts):
    return items_from_facts(facts, seed=0)


def by(items, sub_track):
    return [i for i in items if i.sub_track == sub_track]


def test_counts_and_option_counts_follow_the_paper(items):
    counts = Counter(i.sub_track for i in items)
    assert counts == {name: spec[2] for name, spec in SUB_TRACKS.items()}
    assert len(items) == 4003  # tracks 1-3 of Table 3's footnote
    for item in items:
        low, high = SUB_TRACKS[item.sub_track][3]
        assert low <= len(item.choices) <= high, item.question_id
        assert item.track == SUB_TRACKS[item.sub_track][0] and item.channel in ("procedural", "semantic", "episodic")


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
    tier_words = {text.rsplit("(", 1)[1].rstrip(")") for tiers in BEHAVIOUR.values() for text in tiers.values()}
    for item in items:
        text = item.question.lower()
        assert not any(n.lower() in text for n in names), item.question_id
        assert not any(w.lower() in text for w in tier_words), item.question_id
        assert not re.search(r"\((?:L|M|R)\)", item.question), item.question_id


def test_correct_positions_are_balanced_per_option_count(items):
    for sub_track in SUB_TRACKS:
        groups: dict[int, Counter] = {}
        for item in by(items, sub_track):
            if item.choices:
                groups.setdefault(len(item.choices), Counter())[item.correct] += 1
        for n, letters in groups.items():
            assert set(letters) <= set("ABCDEF"[:n])
            assert max(letters.values()) - min(letters.get(c, 0) for c in "ABCDEF"[:n]) <= 1, (sub_track, n)


def test_answers_are_true_of_the_target(items, facts):
    for item in by(items, "attribute_recognition"):
        meta = item.metadata
        if item.sub_class == "dimension_tier":
            assert item.choices[item.answer_index] == BEHAVIOUR[meta["dimension"]][facts.tiers(item.profile_id)[
                meta["dimension"]]]
        if item.sub_class == "language":
            assert item.choices[item.answer_index] == facts.personas[item.profile_id].language
    for item in by(items, "behavioral_fingerprint"):
        assert item.choices[item.answer_index] == portrait(facts.tiers(item.profile_id))
        assert len(item.input_trajectories) == 1
    for item in by(items, "anomaly_detection"):
        answer = item.metadata["answer_trajectory"]
        assert answer in item.input_trajectories
        assert item.metadata["answer_trajectory"].rsplit("_", 1)[1] in item.choices[item.answer_index]
        if item.sub_class == "impostor":
            assert not answer.startswith(item.profile_id + "_")
            assert sum(t.startswith(item.profile_id + "_") for t in item.input_trajectories) == 5
        else:
            assert answer in facts.shifts
    for item in by(items, "shift_analysis"):
        assert item.metadata["answer_trajectory"] in facts.shifts


def test_distractor_personas_are_fine_grained(items, facts):
    """Portraits and predictions that are not the answer differ from the target in 1-2 dimensions,
    only in dimensions the evidence (the task) can show."""
    reverse = {portrait(t): t for t in _all_vectors()}
    for item in by(items, "behavioral_fingerprint"):
        target = facts.tiers(item.profile_id)
        active = set(facts.active(item.metadata["task_id"]))
        for k, option in enumerate(item.choices):
            if k != item.answer_index:
                other = reverse[option]
                assert 1 <= distance(target, other) <= 2
                assert {d for d in target if target[d] != other[d]} <= active
    for item in by(items, "anomaly_detection"):
        if item.sub_class == "impostor":  # 1-2 dimensions away, or the nearest persona when none is that close
            target = facts.tiers(item.profile_id)
            gaps = [distance(target, facts.tiers(q)) for q in facts.personas if q != item.profile_id]
            gap = distance(target, facts.tiers(item.metadata["impostor_profile"]))
            assert 1 <= gap <= 2 if min(gaps) <= 2 else gap == min(gaps)


def test_trace_disentanglement_pairs_differ_in_one_active_dimension(items, facts):
    for item in by(items, "trace_disentanglement"):
        a, b = item.profile_id, item.metadata["other_profile"]
        active = facts.active(item.metadata["task_id"])
        assert [d for d in active if facts.tiers(a)[d] != facts.tiers(b)[d]] == [item.metadata["dimension"]]
        assert sorted(item.metadata["interleave"]) == sorted(item.input_trajectories)


def test_behavioral_inference_holds_out_its_task(items):
    for item in by(items, "behavioral_inference"):
        held = item.metadata["held_out_task"]
        assert len(item.input_trajectories) == 31
        assert not any(t.endswith("_" + held) for t in item.input_trajectories)
        assert held in item.question


def test_same_seed_same_items_other_seed_other_items(facts, items):
    assert items_from_facts(facts, seed=0) == items
    other = items_from_facts(facts, seed=1)
    assert [i.correct for i in other] != [i.correct for i in items]


def test_a_smaller_corpus_gets_proportionally_fewer_items(facts):
    small = CorpusFacts({p: facts.personas[p] for p in list(facts.personas)[:5]}, facts.tasks,
                        {p: s for p, s in list(facts.sessions.items())[:5]}, facts.shifts)
    counts = Counter(i.sub_track for i in items_from_facts(small, seed=0))
    assert counts["behavioral_inference"] == round(560 * 160 / 640)
    assert counts["profile_reconstruction"] == 5 * 16


def _all_vectors():
    import itertools

    for combo in itertools.product("LMR", repeat=6):
        yield dict(zip("ABCDEF", combo, strict=True))
