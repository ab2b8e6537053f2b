"""Options read by what sets them apart: the slots found from the option texts alone, each read on its own topic,
negation, order, and how two named sessions differ. Every option here is written by hand, outside the bench's
templates (bench/templates.py), in wordings the templates never use."""

from __future__ import annotations

import numpy as np
import pytest

from filegram_kit.llm.algorithms.compare import aspect_difference
from filegram_kit.llm.algorithms.embedders import embed_with
from filegram_kit.llm.algorithms.lexical_reader import answer_mcq, option_evidence
from filegram_kit.llm.algorithms.option_slots import option_slots, sequence
from filegram_kit.llm.algorithms.slot_reading import negation_split, read_units, units_of
from filegram_kit.llm.algorithms.text import split_sentences


def embed(texts):
    return embed_with("wordllama", list(texts), dim=256)


GRID = ["Cooks with fresh herbs, bikes to work and reads science fiction",
        "Cooks with fresh herbs, takes the bus and reads science fiction",
        "Orders takeaway, bikes to work and reads science fiction",
        "Orders takeaway, takes the bus and reads science fiction"]


def test_a_two_by_two_grid_is_two_binary_slots_and_what_all_share_is_set_aside():
    found = option_slots(GRID)
    assert found.shared == ("reads science fiction",)
    assert [s.values for s in found.slots] == [("Cooks with fresh herbs", "Orders takeaway"),
                                               ("bikes to work", "takes the bus")]
    assert [s.of_option for s in found.slots] == [(0, 0, 1, 1), (0, 1, 0, 1)]


def test_labelled_portraits_and_a_clause_with_commas_stay_whole():
    options = ["food: home-cooked; travel: cycling, in all weathers; books: novels",
               "food: home-cooked; travel: public transport; books: novels",
               "food: takeaway; travel: cycling, in all weathers; books: novels"]
    found = option_slots(options)
    assert found.shared == ("books: novels",)
    assert [s.values for s in found.slots] == [("food: home-cooked", "food: takeaway"),
                                               ("travel: cycling, in all weathers", "travel: public transport")]
    assert [s.of_option for s in found.slots] == [(0, 0, 1), (0, 1, 0)]


def test_options_that_share_nothing_are_one_slot_and_before_after_clauses_two():
    plain = option_slots(["Quiet and shy", "Loud and outgoing", "Somewhere in between"])
    assert len(plain.slots) == 1 and plain.slots[0].values == ("Quiet and shy", "Loud and outgoing",
                                                                 "Somewhere in between")
    change = option_slots(["Usually walks; that week drove", "Usually drove; that week walked",
                           "Usually walks; that week cycled"])
    assert [s.of_option for s in change.slots] == [(0, 1, 0), (0, 1, 2)]  # the before and after questions apart
    assert sequence("from tea to coffee") == ("tea", "coffee") and sequence("tea -> coffee") == ("tea", "coffee")
    odd = option_slots(["tea", "coffee", "tea, with milk"])  # 'with milk' partitions nothing: set aside
    assert [s.values for s in odd.slots] == [("tea", "coffee")] and odd.loose == ("with milk",)
    assert sequence("tea and coffee") is None
    assert sequence("reads every page in the order it was filed, then writes a long report with notes") is None


CONTEXT = """About her:
- She prepares dinner from scratch with basil and thyme from her garden.
- She rides a bicycle to the office every morning.
- She loves space-opera novels."""


def test_each_slot_is_read_on_its_own_topic_so_the_grid_key_wins():
    index, _ = answer_mcq("Which describes her?", GRID, CONTEXT)
    assert index == 0
    parts, _ = option_evidence("Which describes her?", GRID, CONTEXT)
    semantic = parts["semantic"]
    assert semantic[0] > semantic[3]  # both slots right beat both wrong
    assert semantic[0] - semantic[1] == pytest.approx(semantic[2] - semantic[3], abs=1e-6)  # slots add up


def test_a_negated_statement_counts_against_what_it_resembles():
    assert negation_split("keeps every file, never deletes anything") == ("keeps every file,", "deletes anything")
    options = ["Deletes old files", "Keeps old files"]
    index, _ = answer_mcq("What does she do with old files?", options,
                          "She never deletes anything. Old files are kept.")
    assert index == 1
    index, _ = answer_mcq("Which does she use?", ["Spreadsheets and charts", "Plain prose"],
                          "Her reports are plain prose, with no spreadsheets or charts.")
    assert index == 1


def test_a_change_is_read_in_the_order_the_context_states_it():
    options = ["tea -> coffee", "coffee -> tea"]
    context = "Most days she drinks tea; that morning she drank coffee instead."
    index, _ = answer_mcq("How did her drink change?", options, context)
    assert index == 0
    swapped = "Most days she drinks coffee; that morning she drank tea instead."
    assert answer_mcq("How did her drink change?", options, swapped)[0] == 1


def test_how_two_named_sessions_differ_is_read_on_each_options_topic():
    context = ("Session 1:\n- Works late at night.\n- Writes everything in long paragraphs.\n"
               "Session 2:\n- Works late at night.\n- Writes everything as short bullet lists.")
    question = "Two people worked on this; their sessions are Session 1 and Session 2. How do they differ?"
    options = ["The hours they work", "How they write"]
    differ = aspect_difference(question, options, context, embed, units_of)
    assert differ is not None and differ[1] > differ[0] + 0.05 and differ[0] == pytest.approx(0.0, abs=1e-6)
    assert answer_mcq(question, options, context)[0] == 1
    assert "difference" in option_evidence(question, options, context)[0]  # the reader reads it
    assert aspect_difference("Which of these is true?", options, context, embed, units_of) is None


def test_units_cut_at_semicolons_keep_the_rows_of_whole_sentences():
    sentences = split_sentences("She reads a lot. Usually tea; today coffee.")
    vectors = embed(sentences)
    units = read_units(sentences, vectors, embed)
    assert units.texts == ["She reads a lot.", "Usually tea", "today coffee."]
    assert np.allclose(units.vectors[0], vectors[0]) and np.allclose(units.vectors[2], embed(["today coffee."])[0])
