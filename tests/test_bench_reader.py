"""The shared reader on hand-made contexts, and the anonymised inputs memories get for an item."""

from __future__ import annotations

from dataclasses import replace

import pytest

from filegram_kit.bench import Item
from filegram_kit.bench.inputs import TrajectoryStore, anonymise, interleave, materialise
from filegram_kit.bench.reader import answer, likert_to_100
from filegram_kit.llm import get_backend
from filegram_kit.memory import Context
from filegram_kit.traces.load import save_trajectories
from tests.builders import make, read, write

BACKEND = get_backend("offline")


def mcq(correct="B", choices=None, **kw) -> Item:
    choices = choices or ("keeps every file flat in the workspace root (flat)",
                          "sorts outputs into deeply nested folders three levels deep (deeply nested)",
                          "creates a few folders one or two levels deep (adaptive)")
    return Item("q1", "T1_understanding", "attribute_recognition", "dimension_tier", "procedural", "p1", ("t",),
                "How does the user organise files into folders?", choices, correct, kw)


def test_the_reader_picks_the_option_the_context_supports():
    context = Context("## Procedural Patterns\n- C Organization Preference: Deeply nested (3+ levels) (L) [0.98]\n"
                      "- dirs_created (C): 4.2 / 4 / 1.1 / 2 / 7")
    got = answer(mcq(), context, backend=BACKEND)
    assert got.answer == "B" and got.score == 1.0 and got.is_correct and got.error is None
    wrong = answer(mcq(correct="C"), context, backend=BACKEND)
    assert wrong.answer == "B" and wrong.score == 0.0


def test_an_empty_context_ties_every_option_so_each_key_scores_exactly_chance():
    replies = [answer(mcq(correct=letter), Context(""), backend=BACKEND) for letter in "ABC"]
    assert [r.score for r in replies] == [pytest.approx(1 / 3)] * 3  # the tie's expected score, wherever the key
    assert not any(r.is_correct for r in replies) and len({r.answer for r in replies}) == 1  # one item, one pick


def test_free_form_items_are_judged_on_a_1_to_5_scale_rescaled_to_100():
    item = Item("q2", "T1_understanding", "profile_reconstruction", "attribute", "procedural", "p1", ("t",),
                "Describe this user's directory style (how they arrange folders).", (),
                "directory style: Nested, 3+ levels")
    good = answer(item, Context("The user arranges folders nested three or more levels deep (3+ levels)."),
                  backend=BACKEND)
    bad = answer(item, Context("The user writes long reports in formal English."), backend=BACKEND)
    assert good.likert is not None and bad.likert is not None and good.likert > bad.likert
    assert good.score == likert_to_100(good.likert) and likert_to_100(1) == 0 and likert_to_100(5) == 100


def profrec(metadata, correct="directory style: Nested, 3+ levels") -> Item:
    return Item("q3", "T1_understanding", "profile_reconstruction", "attribute", "procedural", "p1", ("t",),
                "Describe this user's directory style (how they arrange folders) as observed in their file-system "
                "behaviour.", (), correct, metadata)


def test_profile_items_with_an_attribute_are_judged_on_the_value_not_the_words():
    item = profrec({"attribute": "directory_style", "tier": "L"})
    right = answer(item, Context("Outputs sit in deeply nested folders, three or more levels deep."), backend=BACKEND)
    neighbour = answer(item, Context("The user creates a few folders one or two levels deep."), backend=BACKEND)
    opposite = answer(item, Context("The user keeps every file flat in the workspace root."), backend=BACKEND)
    echo = answer(item, Context("directory style"), backend=BACKEND)
    assert right.likert >= 4 and neighbour.likert == 3 and opposite.likert == 1 and echo.likert == 1
    assert echo.score == 0.0 and right.score == likert_to_100(right.likert)
    assert "reference L (Nested, 3+ levels)" in right.rationale


def test_without_a_tier_the_reference_value_is_read_from_the_correct_field():
    with_tier = profrec({"attribute": "directory_style", "tier": "R"}, correct="directory style: Flat, root only")
    without = profrec({"attribute": "directory_style"}, correct="directory style: Flat, root only")
    context = Context("The user keeps every file flat in the workspace root.")
    assert answer(with_tier, context, backend=BACKEND).likert == answer(without, context, backend=BACKEND).likert >= 4


def test_the_value_judge_goes_through_the_backends_typed_task():
    from filegram_kit.llm.prompting import Completion, PromptBackend

    class Judge(PromptBackend):
        name, prompts = "judge", []

        def _complete(self, prompt, *, json_mode, max_tokens):
            self.prompts.append(prompt)
            if "ANSWER:\n" in prompt and "REFERENCE VALUE" in prompt:
                return Completion('{"score": 4, "rationale": "asserts nested folders"}')
            return Completion("The folders are nested three levels deep.")

    backend = Judge()
    got = answer(profrec({"attribute": "directory_style", "tier": "L"}), Context("ctx"), backend=backend)
    assert got.likert == 4 and got.score == 75.0 and got.rationale == "asserts nested folders"
    judge_prompt = backend.prompts[-1]
    assert "Nested, 3+ levels | Adaptive, 1–2 | Flat, root only" in judge_prompt
    assert "REFERENCE VALUE: Nested, 3+ levels" in judge_prompt and "three levels deep" in judge_prompt


def test_a_reply_that_does_not_parse_is_an_error_not_a_guess():
    from filegram_kit.llm.prompting import Completion, PromptBackend

    class Rambling(PromptBackend):
        name = "rambling"

        def _complete(self, prompt, *, json_mode, max_tokens):
            return Completion("I would rather not say.")

    got = answer(mcq(), Context("anything"), backend=Rambling())
    assert got.error == "parse" and got.score == 0.0 and got.answer == ""


def test_inputs_are_anonymous_and_a_pair_arrives_as_two_labelled_sessions_starting_together(tmp_path):
    a = make(tmp_path / "m", "p1_methodical_T-05", [read("a.md"), write("out/a.md", "alpha text"), read("b.md")])
    b = make(tmp_path / "m", "p3_efficient_executor_T-05", [read("c.md"), write("out/c.md", "gamma text")])
    save_trajectories([a, b], tmp_path / "corpus", progress=False)
    store = TrajectoryStore(tmp_path / "corpus")
    one = anonymise(store.get("p1_methodical_T-05"))
    assert one.id == "T-05" and one.profile_id is None and one.summary == {}
    assert all(e.profile_id is None for e in one.events)
    item = replace(mcq(), input_trajectories=("p1_methodical_T-05", "p3_efficient_executor_T-05"),
                   metadata={"interleave": ["p1_methodical_T-05", "p3_efficient_executor_T-05"]})
    first, second = materialise(item, store)
    assert (first.label, second.label) == ("Session 1", "Session 2") and first.task_id == second.task_id == "T-05"
    assert first.profile_id is None and second.profile_id is None and len(first.events) + len(second.events) == 5
    assert first.events[0].timestamp == second.events[0].timestamp  # interleaved in time: both start together
    texts = {t.content(e["media_ref"]) for t in (first, second) for e in t.events if e.event_type == "file_write"}
    assert texts == {"alpha text", "gamma text"}  # each session reads its own media
    merged = interleave(store.get("p1_methodical_T-05"), store.get("p3_efficient_executor_T-05"))
    assert merged.id == "T-05" and len(merged.events) == 5 and merged.label is None  # one unlabelled stream
    times = [e.timestamp for e in merged.events]
    assert times == sorted(times)
    plain = materialise(replace(item, metadata={}), store)
    assert [t.id for t in plain] == ["T-05", "T-05"]


def test_sessions_named_by_the_options_reach_the_memory_under_those_labels_in_item_order(tmp_path):
    from filegram_kit.bench.groups import input_set, trajectory_ids

    a = make(tmp_path / "m", "p1_methodical_T-05", [read("a.md")])
    b = make(tmp_path / "m", "p3_efficient_executor_T-07", [read("c.md")])
    save_trajectories([a, b], tmp_path / "corpus", progress=False)
    store = TrajectoryStore(tmp_path / "corpus")
    ids = ("p3_efficient_executor_T-07", "p1_methodical_T-05")
    labels = {ids[0]: "Session 1", ids[1]: "Session 2"}
    item = replace(mcq(), input_trajectories=ids, metadata={"labels": labels})
    got = materialise(item, store)
    assert [t.id for t in got] == ["Session 1", "Session 2"] and [t.task_id for t in got] == ["T-07", "T-05"]
    assert all(t.profile_id is None for t in got)
    # the labels are part of the input set: the same sessions under other labels are another memory
    relabelled = replace(item, metadata={"labels": {ids[0]: "Session 2", ids[1]: "Session 1"}})
    assert input_set(item) != input_set(relabelled)
    assert trajectory_ids(input_set(item)) == ids
