"""The shared reader as a measuring instrument: no position or wording artefacts, comparisons read from prose,
and a paraphrased ground truth that shares no word with what it is asked."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from filegram_kit.bench.controls import truth_context
from filegram_kit.bench.generate import items_from_facts
from filegram_kit.bench.paraphrase import WORDINGS, paraphrased_context, shared_words
from filegram_kit.bench.reader import answer, presentation_order
from filegram_kit.bench.simulate import simulated_facts
from filegram_kit.llm import get_backend
from filegram_kit.llm.algorithms.compare import comparison_scores, naming_options
from filegram_kit.llm.tasks import LETTERS
from filegram_kit.memory.base import Context


@pytest.fixture(scope="module")
def facts():
    return simulated_facts(seed=5, n_personas=12)


@pytest.fixture(scope="module")
def items(facts):
    return [i for i in items_from_facts(facts, seed=1)[0] if i.is_mcq]


@pytest.fixture(scope="module")
def backend():
    return get_backend("offline", embedder="lsa")


def _positions(items, contexts, backend) -> dict[str, Counter]:
    found: dict[str, Counter] = {}
    for item, context in zip(items, contexts, strict=True):
        letter = answer(item, Context(context), backend=backend).answer
        found.setdefault(item.sub_track, Counter())[LETTERS.index(letter)] += 1
    return found


def _assert_uniform(found: dict[str, Counter], items) -> None:
    sizes = {i.sub_track: len(i.choices) for i in items}
    for sub_track, counts in found.items():
        if len({len(i.choices) for i in items if i.sub_track == sub_track}) > 1:
            continue  # mixed option counts: positions beyond the smallest set are not comparable
        observed = [counts.get(k, 0) for k in range(sizes[sub_track])]
        assert chisquare(observed).pvalue > 0.01, f"{sub_track}: answer positions {observed} are not uniform"


def test_with_an_empty_context_answers_are_uniform_over_positions(items, backend):
    found = _positions(items, [""] * len(items), backend)
    _assert_uniform(found, items)
    anomaly = found["anomaly_detection"]
    assert len(anomaly) >= 4  # not always the option whose number the question states ("these 6 sessions")


def test_with_another_personas_truth_answers_are_uniform_over_positions(items, facts, backend):
    by_sub: dict[str, list] = {}
    for item in items:
        by_sub.setdefault(item.sub_track, []).append(item)
    chosen, contexts = [], []
    for group in by_sub.values():
        for k, item in enumerate(group):  # the truth of an item of another persona in the same sub-task
            other = next((g for g in group[k + 1:] + group[:k] if g.profile_id != item.profile_id), None)
            if other is not None:
                chosen.append(item)
                contexts.append(truth_context(other, facts))
    _assert_uniform(_positions(chosen, contexts, backend), chosen)


def test_the_presentation_order_is_a_permutation_fixed_by_the_item(items):
    orders = [presentation_order(i) for i in items]
    assert all(sorted(o) == list(range(len(i.choices))) for o, i in zip(orders, items, strict=False))
    assert presentation_order(items[0]) == orders[0]
    assert len({tuple(o) for o in orders if len(o) == 4}) > 5


PROSE = """Notes on this user.
Session 1 (T-02) went as usual: reports in Markdown, a couple of folders.
Session 2 (T-07): much like the others.
Session 3 (T-04) looked nothing like the rest; it is unusual for this user, who here deleted every draft.
Session 4 (T-09) was typical of this user."""


def test_the_comparison_reader_finds_the_session_a_narrative_calls_unusual():
    labels = ["Session 1", "Session 2", "Session 3", "Session 4"]
    assert naming_options(labels) and not naming_options(["Reads files", "Writes files"])
    odd = comparison_scores("Which session deviates from this user's usual self?", labels, PROSE)
    assert int(np.argmax(odd)) == 2
    typical = comparison_scores("Which session is most characteristic of this user?", labels, PROSE)
    assert int(np.argmax(typical)) != 2 and int(np.argmin(typical)) == 2


def test_numbers_after_a_deviation_word_are_compared_and_session_10_is_not_session_1():
    labels = [f"Session {k}" for k in (1, 2, 10)]
    text = "- Session 1: deviation 1.2\n- Session 2: deviation 0.4\n- Session 10: deviation 3.9"
    scores = comparison_scores("Which session was not done by this user?", labels, text)
    assert int(np.argmax(scores)) == 2
    assert np.allclose(comparison_scores("Which session was not done by this user?", labels, ""), 0.0)


def test_a_memory_that_flags_the_odd_session_is_read_whatever_its_format(items, facts, backend):
    anomaly = [i for i in items if i.sub_track == "anomaly_detection"][:60]
    listed = [truth_context(i, facts) for i in anomaly]  # "- Session 5 was done by someone else."
    narrative = [" ".join(line.lstrip("- ") for line in text.splitlines()) for text in listed]
    for contexts in (listed, narrative):
        right = sum(answer(i, Context(c), backend=backend).score for i, c in zip(anomaly, contexts, strict=True))
        assert right == len(anomaly)


@pytest.mark.parametrize("control", sorted(WORDINGS))
def test_the_paraphrased_truth_shares_no_content_word_with_its_question_or_options(facts, control):
    wording = WORDINGS[control]
    for seed in (0, 1, 2):
        for item in items_from_facts(facts, seed=seed)[0]:
            assert not shared_words(item, paraphrased_context(item, facts, wording)), item.question_id


def test_the_two_paraphrase_sets_are_written_apart():
    """The untuned set B says the same facts in its own words: few content words shared with A beyond frames."""
    from filegram_kit.llm.algorithms.text import content_terms

    def words(w):
        texts = [v for d in w.behaviour.values() for v in d.values()] + [v for d in w.attribute.values()
                                                                          for v in d.values()]
        return set(content_terms(" ".join(texts)))

    a, b = words(WORDINGS["oracle_paraphrased"]), words(WORDINGS["oracle_paraphrased_b"])
    assert len(a & b) <= 0.05 * len(a | b), sorted(a & b)


def test_a_contrast_is_read_as_one_half_per_named_session():
    from filegram_kit.llm.algorithms.compare import contrast_evidence, contrast_parts
    from filegram_kit.llm.algorithms.embedders import embed_with

    assert contrast_parts("One of them writes long reports, while the other writes short notes.") == (
        "writes long reports", "writes short notes.".rstrip("."))
    assert contrast_parts("The user writes long reports.") is None
    context = ("Session 1 (T-05):\n- Deletes every temporary file as soon as the work is done.\n"
               "Session 2 (T-05):\n- Keeps every file it makes, never deleting anything.")
    question = "Two users worked on T-05 at the same time; their sessions are Session 1 and Session 2. Which differs?"
    options = ["One of them deletes temporary files promptly, while the other keeps every file.",
               "One of them writes long reports, while the other writes short notes."]
    fit = contrast_evidence(question, options, context, lambda texts: embed_with("lsa", texts, dim=64))
    assert fit is not None and fit[0] > fit[1]
    swapped = contrast_evidence(question, options, context.replace("Session 1", "Session X").replace(
        "Session 2", "Session 1").replace("Session X", "Session 2"), lambda texts: embed_with("lsa", texts, dim=64))
    assert np.allclose(fit, swapped)  # which user is which does not matter, only that they differ so
    assert contrast_evidence(question, options, "Nothing about either.", lambda t: embed_with("lsa", t, dim=64)) is None


def test_explain_shows_each_options_score_parts_and_support():
    from filegram_kit.llm.algorithms.lexical_reader import explain_options, option_scores

    labels = ["Session 1", "Session 2", "Session 3", "Session 4"]
    rows = explain_options("Which session deviates?", labels, PROSE)
    assert [r["option"] for r in rows] == labels
    assert np.allclose([r["score"] for r in rows], option_scores("Which session deviates?", labels, PROSE))
    assert any("unusual" in line for line in rows[2]["support"]) and set(rows[2]["parts"]) == {
        "stated", "numbers", "implicit"}


def test_the_same_facts_as_a_bulleted_record_or_as_prose_get_the_same_answer(items, facts, backend):
    """Format neutrality: a memory that writes its facts as headed bullet lines (as FileGramOS does) and one that
    writes them as running prose (as a summarising baseline does) must be read alike."""
    chosen = [i for k, i in enumerate(items) if k % 3 == 0]
    same = 0
    for item in chosen:
        listed = truth_context(item, facts)
        prose = " ".join(line.lstrip("- ").rstrip(":") + ("." if line.rstrip().endswith(":") else "")
                         for line in listed.splitlines())
        a = answer(item, Context(listed), backend=backend)
        b = answer(item, Context(prose), backend=backend)
        same += a.answer == b.answer
    assert same >= 0.9 * len(chosen), f"{same} of {len(chosen)} answered alike"


def test_a_column_ranks_only_if_the_reader_reads_the_truth_in_both_wordings():
    """reader_limits: the lower of the two paraphrase ceilings decides; wordings far apart are flagged; an older
    run without the second wording is judged on the first alone."""
    import polars as pl

    from filegram_kit.bench.analysis import reader_limits

    def table(**rows):
        return pl.DataFrame([{"method": m, "AttrRec": v[0], "TraceDis": v[1]} for m, v in rows.items()])

    limits = reader_limits(table(chance=(34.0, 41.7), oracle_paraphrased=(70.0, 80.0),
                                 oracle_paraphrased_b=(55.0, 78.0)))
    by = {r["column"]: r for r in limits.iter_rows(named=True)}
    assert by["AttrRec"]["reader_limited"] and by["AttrRec"]["wording_bound"]  # B 55 < 59, 15 points apart
    assert not by["TraceDis"]["reader_limited"] and not by["TraceDis"]["wording_bound"]
    older = reader_limits(table(chance=(34.0, 41.7), oracle_paraphrased=(70.0, 50.0)))
    assert [r["reader_limited"] for r in older.iter_rows(named=True)] == [False, True]
    assert older["oracle_paraphrased_b"].null_count() == older.height
