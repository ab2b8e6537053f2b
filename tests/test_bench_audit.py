"""The bench audit catches deliberately leaky item sets and passes the generator's own items."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from filegram_kit.bench.audit import ALL, MIN_CLASS_ITEMS, audit_items, limit
from filegram_kit.bench.generate import items_from_facts
from filegram_kit.bench.schema import Item
from filegram_kit.bench.simulate import simulated_facts
from filegram_kit.llm.tasks import LETTERS

VALUES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")


def _item(n: int, sub_track: str, choices: list[str], key: int, persona: int, **metadata) -> Item:
    return Item(f"x_{n:04d}", "T1_understanding", sub_track, "portrait", "procedural", f"p{persona}",
                (), "Which portrait fits?", tuple(choices), LETTERS[key], metadata)


def _portrait(values: tuple[int, ...]) -> str:
    return ", ".join(f"aspect{k} {VALUES[v]}" for k, v in enumerate(values))


def centre_keyed(n: int = 300, seed: int = 0) -> list[Item]:
    """The key is a random portrait, each distractor changes one of its aspects: the key is the centre."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        key = tuple(int(v) for v in rng.integers(len(VALUES), size=4))
        options = [key]
        for aspect in rng.choice(4, size=3, replace=False):
            changed = list(key)
            changed[aspect] = (key[aspect] + 1 + int(rng.integers(len(VALUES) - 1))) % len(VALUES)
            options.append(tuple(changed))
        order = rng.permutation(4)
        out.append(_item(k, "behavioral_fingerprint", [_portrait(options[i]) for i in order],
                         int(np.flatnonzero(order == 0)[0]), k % 10))
    return out


def exchangeable(n: int = 300, seed: int = 1) -> list[Item]:
    """Four independent random portraits, one of them the key at a balanced position: nothing to learn."""
    rng = np.random.default_rng(seed)
    return [_item(k, "behavioral_inference", [_portrait(tuple(int(v) for v in rng.integers(6, size=4)))
                                              for _ in range(4)], k % 4, k % 10) for k in range(n)]


def test_limit_is_chance_plus_the_larger_of_five_points_and_two_and_a_half_standard_errors():
    assert limit(25.0, 10_000) == pytest.approx(30.0)
    se = 100 * np.sqrt(0.25 * 0.75 / 50)
    assert limit(25.0, 50) == pytest.approx(25.0 + 2.5 * se)


def test_a_centre_keyed_set_fails_on_the_choices_only_check():
    report = audit_items(centre_keyed())
    row = report.table.filter(report.table["sub_class"] == "(all)").row(0, named=True)
    assert row["choices_only"] > 60  # chance is 25
    assert report.failed == ["behavioral_fingerprint"]
    assert "choices-only" in report.reasons()["behavioral_fingerprint"]


def test_an_exchangeable_set_passes():
    report = audit_items(exchangeable())
    assert report.passed, report.reasons()
    assert report.table["choices_only"][0] < limit(25.0, 300)


def test_a_set_whose_key_sits_at_one_position_fails_on_the_position_check():
    leaky = [_item(k, "behavioral_inference", list(i.choices), 0, k % 10)
             for k, i in enumerate(exchangeable())]
    report = audit_items(leaky)
    assert report.failed == ["behavioral_inference"]
    assert "key position 100.0" in report.reasons()["behavioral_inference"]


@pytest.fixture(scope="module")
def facts():
    return simulated_facts()


@pytest.fixture(scope="module")
def generated(facts):
    return items_from_facts(facts, seed=0)[0]


def test_generated_items_pass_every_check(generated, facts):
    report = audit_items(generated, facts)
    assert report.passed, report.reasons()
    assert set(report.table["sub_track"]) == {i.sub_track for i in generated if i.is_mcq}
    assert report.table["observer"].min() == 100.0


def test_keys_that_disagree_with_the_traces_fail_the_observer_check(generated, facts):
    flipped = [Item(i.question_id, i.track, i.sub_track, i.sub_class, i.channel, i.profile_id, i.input_trajectories,
                    i.question, i.choices, LETTERS[(i.answer_index + 1) % len(i.choices)] if k % 10 == 0 else i.correct,
                    i.metadata)
               for k, i in enumerate(generated) if i.sub_track == "behavioral_fingerprint"]
    report = audit_items(flipped, facts)
    assert report.failed == ["behavioral_fingerprint"]
    assert "observer agrees" in report.reasons()["behavioral_fingerprint"]


def test_sessions_whose_task_gives_the_key_away_fail_the_task_prior_check(generated, facts):
    """Like the old perturbation items, whose deviating session was always on a candidate task: here every
    key is the session on T-01, which a reader sees, so "pick the T-01 session" must be caught."""
    items = [i for i in generated if i.sub_class == "impostor"
             and facts.task_of[i.metadata["answer_trajectory"]] == "T-01"]
    assert len(items) >= 10 and len({i.profile_id for i in items}) >= 2
    report = audit_items(items, facts)
    assert report.table["task_prior"][0] == 100.0
    assert report.failed == ["anomaly_detection"]
    assert "task prior" in report.reasons()["anomaly_detection"]


def test_items_with_other_option_counts_in_the_held_out_fold_are_answered():
    """A held-out persona whose items have more options than any training item's (a small corpus)."""
    items = exchangeable(120)
    wide = [_item(1000 + k, "behavioral_inference", [*i.choices, "aspect0 golf"], i.answer_index, 99)
            for k, i in enumerate(items[:12])]
    report = audit_items(items + wide)
    assert report.table["items"][0] == 132


def test_sessions_ordered_so_the_intruder_comes_last_fail_the_position_check(generated, facts):
    """The old leak: inputs sorted by trajectory id put the other persona's session first or last."""
    impostors = [i for i in generated if i.sub_class == "impostor"]
    leaky = []
    for i in impostors:
        answer = i.metadata["answer_trajectory"]
        inputs = (*[t for t in i.input_trajectories if t != answer], answer)
        labels = {t: f"Session {k + 1}" for k, t in enumerate(inputs)}
        leaky.append(Item(i.question_id, i.track, i.sub_track, i.sub_class, i.channel, i.profile_id, inputs,
                          i.question, tuple(labels[t] for t in inputs), LETTERS[len(inputs) - 1],
                          {**i.metadata, "labels": labels, "option_facts": [{"trajectory": t} for t in inputs]}))
    assert audit_items(impostors, facts).passed
    report = audit_items(leaky, facts)
    assert report.failed == ["anomaly_detection"]
    assert "key position" in report.reasons()["anomaly_detection"]


def test_seeds_are_audited_apart_and_a_leak_in_one_is_named_with_its_seed():
    from filegram_kit.bench.audit import audit_per_seed

    def with_seed(items, seed):
        return [Item(f"{i.question_id}_s{seed}", i.track, i.sub_track, i.sub_class, i.channel, i.profile_id,
                     i.input_trajectories, i.question, i.choices, i.correct, {**i.metadata, "item_seed": seed})
                for i in items]

    clean, leaky = exchangeable(), [_item(k, "behavioral_inference", list(i.choices), 0, k % 10)
                                    for k, i in enumerate(exchangeable())]
    report = audit_per_seed(with_seed(clean, 0) + with_seed(leaky, 1))
    assert report.table["item_seed"].unique().sort().to_list() == [0, 1]
    assert report.failed == ["behavioral_inference"]
    assert list(report.reasons()) == ["behavioral_inference (item seed 1)"]
    assert audit_per_seed(clean).table.equals(audit_items(clean).table)  # one seed: the plain audit


def test_a_sub_class_under_thirty_items_is_pooled_and_flagged(generated):
    report = audit_items(generated)
    classes = report.table.filter(pl.col("sub_class") != ALL)
    small = classes.filter(pl.col("items") < MIN_CLASS_ITEMS)
    assert small.height and small["small"].all()
    assert not classes.filter(pl.col("items") >= MIN_CLASS_ITEMS)["small"].any()
    flagged = {(sub_class, why) for _, sub_class, why in report.flagged_classes()}
    for sub_class in small["sub_class"]:
        assert any(c == sub_class and "audited pooled" in why for c, why in flagged)
    assert not report.table.filter(pl.col("sub_class") == ALL)["small"].any()  # a sub-task itself is never "small"
