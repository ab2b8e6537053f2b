"""The Profile Reconstruction judge scores the asserted *value* of an attribute, not word overlap.

Every behavioural attribute of paper Table 8 and every reference tier: an echo of the attribute or of
the question asserts nothing; the right value (its Table 8 word, or a paraphrase written here in plain
words) beats both wrong ones, an adjacent value beats the opposite one; a negated cue is no assertion.
"""

from __future__ import annotations

import pytest

from filegram_kit.bench.templates import QUESTIONS, attribute_hint, attribute_label
from filegram_kit.llm import get_backend
from filegram_kit.llm.algorithms import judge_attribute
from filegram_kit.llm.algorithms.value_judge import VOCABULARY, asserted_tiers, reference_tier, tokenize
from filegram_kit.traces.schema import ATTRIBUTES, BEHAVIORAL_ATTRIBUTES, TIERS, Tier

CASES = [(name, tier) for name in BEHAVIORAL_ATTRIBUTES for tier in TIERS]
IDS = [f"{name}-{tier.value}" for name, tier in CASES]
OPPOSITE = {Tier.L: Tier.R, Tier.R: Tier.L}

# A paraphrase per attribute and tier, as a model might write it: no Table 8 word where avoidable.
PARAPHRASE: dict[str, tuple[str, str, str]] = {
    "reading_strategy": ("The user opens each source file and reads it in full, one by one, before writing.",
                         "The user mostly greps for keywords first and opens only matches.",
                         "The user browses many folders and skims lots of files without reading closely."),
    "thoroughness": ("They go through every file exhaustively and skip nothing.",
                     "They are selective, focusing on the relevant files only.",
                     "They take a cursory glance at a few files and stop there."),
    "tone": ("Their writing is formal and scholarly, with citations.",
             "They write in a neutral, businesslike voice.",
             "Their notes are chatty and informal, full of slang."),
    "output_detail": ("Outputs are lengthy, exhaustive reports.",
                      "Outputs are of moderate length and stick to the essentials.",
                      "Outputs are short and terse, only what is needed."),
    "output_structure": ("Documents have numbered sections, subsections and a table of contents.",
                         "Documents have some headings but are only lightly structured.",
                         "Documents are unstructured plain paragraphs of running text."),
    "documentation": ("They keep a detailed readme and a changelog for every change.",
                      "They write a few notes as needed, nothing elaborate.",
                      "They leave their work undocumented, with hardly any notes."),
    "directory_style": ("Outputs go into a deep hierarchy of subfolders within subfolders.",
                        "They create a few subfolders, one or two levels at most, when needed.",
                        "Every file sits flat in the workspace root; no subfolders are created."),
    "naming": ("Files follow a strict naming convention with date prefixes.",
               "Names are mostly consistent but loosely descriptive.",
               "Files get arbitrary, haphazard names like untitled.md."),
    "version_strategy": ("They save numbered versions such as report_v2.md and report_v3.md.",
                         "Before changing a file they duplicate it as a .bak copy.",
                         "They overwrite the same file in place every time."),
    "edit_strategy": ("They improve documents through many small tweaks, bit by bit.",
                      "They make a few moderate edits to each draft.",
                      "They rewrite whole files from scratch instead of editing them."),
    "error_handling": ("They always make a safety copy before touching anything, very cautious.",
                       "They back up only important files.",
                       "They edit files directly without backing up anything."),
    "revision_depth": ("They revisit each document repeatedly, over several rounds.",
                       "They write a draft and then revise it once more.",
                       "They finish each document in one go."),
    "working_style": ("They plan first and work methodically in stages.",
                      "They work in a practical, flexible way.",
                      "They work in intense sprints."),
    "cleanup_policy": ("They purge temporary files and keep the workspace lean.",
                       "Now and then they archive old material.",
                       "They keep everything and accumulate files over time."),
    "cross_modal": ("Their reports are full of charts, diagrams and screenshots.",
                    "They add tables and CSV data next to the text.",
                    "They produce plain text documents with no images."),
    "output_modality": ("They deliver results in several formats.",
                        "Each result comes as two formats, a markdown report paired with a CSV.",
                        "Everything they produce is markdown only."),
}


def question(name: str) -> str:
    return QUESTIONS["profile"].format(label=attribute_label(name), description=attribute_hint(name))


def value(name: str, tier: Tier) -> str:
    return ATTRIBUTES[name].tiers[tier]


def score(name: str, ref: Tier, answer: str) -> int:
    return judge_attribute(name, value(name, ref), answer, question(name))[0]


def to_100(likert: int) -> float:
    return (likert - 1) * 25.0


def test_every_behavioural_attribute_has_a_vocabulary_and_a_paraphrase_per_tier():
    assert set(VOCABULARY) == set(BEHAVIORAL_ATTRIBUTES) == set(PARAPHRASE)


@pytest.mark.parametrize("name", BEHAVIORAL_ATTRIBUTES)
def test_no_cue_phrase_belongs_to_two_tiers(name):
    owner: dict[tuple[str, ...], Tier] = {}
    for tier, cues in zip(TIERS, VOCABULARY[name], strict=True):
        for cue in cues.split("|"):
            phrase = tuple(t for t in tokenize(cue) if t != "|")
            assert set(phrase) - {"not"}, f"{name}: {cue!r} is only a negator"
            assert owner.setdefault(phrase, tier) == tier, f"{name}: {cue!r} is in {owner[phrase]} and {tier}"


@pytest.mark.parametrize(("name", "ref"), CASES, ids=IDS)
def test_an_echo_of_the_attribute_or_the_question_asserts_nothing(name, ref):
    for echo in (name, attribute_label(name), question(name), f"{attribute_label(name)}.",
                 f"This user's {attribute_label(name)} ({attribute_hint(name)})."):
        got, why = judge_attribute(name, value(name, ref), echo, question(name))
        assert to_100(got) <= 10, (echo, why)


@pytest.mark.parametrize(("name", "ref"), CASES, ids=IDS)
def test_the_right_value_beats_both_wrong_ones_and_a_neighbour_beats_the_opposite(name, ref):
    label = attribute_label(name)
    forms = {"table 8 word": lambda t: value(name, t),
             "label: value": lambda t: f"{label}: {value(name, t).lower()}",
             "paraphrase": lambda t: PARAPHRASE[name][t.index]}
    for form, answer in forms.items():
        got = {t: score(name, ref, answer(t)) for t in TIERS}
        assert all(got[ref] > got[t] for t in TIERS if t != ref), (form, got)
        assert got[ref] >= 4, (form, got)  # the right value is asserted, not merely ranked first
        if ref in OPPOSITE:
            assert got[Tier.M] > got[OPPOSITE[ref]], (form, got)


@pytest.mark.parametrize(("name", "ref"), CASES, ids=IDS)
def test_name_plus_a_wrong_value_scores_below_name_plus_the_right_value(name, ref):
    label = attribute_label(name)
    right = score(name, ref, f"The user's {label}: {value(name, ref)}.")
    for other in TIERS:
        if other != ref:
            assert score(name, ref, f"The user's {label}: {value(name, other)}.") < right


@pytest.mark.parametrize(("name", "ref"), CASES, ids=IDS)
def test_a_negated_value_is_not_an_assertion_of_it(name, ref):
    word = value(name, ref).split(",")[0]
    if any(t == "not" for t in tokenize(word)):
        pytest.skip(f"{word!r} is itself a negation")
    answer = f"The user is not {word}."
    _, tiers = asserted_tiers(name, answer, question(name))
    assert ref not in tiers
    assert score(name, ref, answer) < score(name, ref, f"The user is {word}.")


@pytest.mark.parametrize(("name", "negated", "answer", "means"), [
    ("reading_strategy", Tier.M, "The user does not search; they open every file one by one.", Tier.L),
    ("reading_strategy", Tier.M, "This user doesn't grep for anything.", None),
    ("cleanup_policy", Tier.L, "The user never deletes files.", Tier.R),
    ("cleanup_policy", Tier.L, "Temporary files are not removed.", None),
    ("directory_style", Tier.L, "Nothing is nested.", None),
    ("error_handling", Tier.L, "The user edits without making a backup.", Tier.R),
    ("cross_modal", Tier.L, "Reports contain no charts or images.", Tier.R),
    ("version_strategy", Tier.M, "They keep no backups.", Tier.R),
    ("tone", Tier.L, "The writing is never formal.", None),
    ("cleanup_policy", Tier.L, "从不删除任何文件。", Tier.R),
])
def test_a_negated_cue_is_no_assertion_and_a_negated_value_phrase_is_its_own_value(name, negated, answer, means):
    _, tiers = asserted_tiers(name, answer, question(name))
    assert negated not in tiers
    assert tiers == ({means} if means else set())
    assert score(name, negated, answer) < score(name, negated, f"The user: {value(name, negated)}.")


def test_the_reference_is_read_from_its_value_a_label_prefix_a_tier_letter_or_cues():
    assert reference_tier("reading_strategy", "Search-first") == Tier.M
    assert reference_tier("reading_strategy", "reading strategy: Breadth-first") == Tier.R
    assert reference_tier("directory_style", "Adaptive, 1-2") == Tier.M  # hyphen for the en dash
    assert reference_tier("cleanup_policy", "l") == Tier.L
    assert reference_tier("cleanup_policy", "The user keeps everything and deletes nothing.") == Tier.R
    with pytest.raises(ValueError, match="cannot tell which reading_strategy value"):
        reference_tier("reading_strategy", "purple elephants")
    with pytest.raises(ValueError, match="behavioural attribute"):
        judge_attribute("language", "English", "English")


def test_specific_evidence_lifts_a_right_answer_from_4_to_5_but_value_numbers_do_not():
    name = "reading_strategy"
    assert score(name, Tier.M, "Search-first.") == 4
    assert score(name, Tier.M, "Search-first: 14 searches, then it opened only the 3 matching files.") == 5
    assert score(name, Tier.M, "It greps for keywords, reads the search results and jumps to matches.") == 5
    assert score("directory_style", Tier.L, "Nested, 3+ levels.") == 4  # the 3 is the value's own word
    assert score("directory_style", Tier.L, "Nested folders, up to 5 levels deep.") == 5
    assert score(name, Tier.M, "It searches first. The report was compiled from 12 sources.") == 4  # not about it


def test_phrases_that_only_contain_a_cue_word_assert_nothing():
    for name, answer in [("output_structure", "It never produced a structured data file."),
                         ("cross_modal", "The report opens with a table of contents."),
                         ("directory_style", "The root cause was a typo.")]:
        assert asserted_tiers(name, answer, question(name))[1] == set(), answer


def test_hedges_and_mixed_answers_get_partial_credit_in_tier_order():
    name, hedge = "reading_strategy", "Somewhere between sequential deep reading and search-first."
    assert score(name, Tier.L, hedge) == 3 and score(name, Tier.M, hedge) == 3 and score(name, Tier.R, hedge) == 2
    mixed = "Mostly sequential reading, file after file, in full, line by line; it searches once."
    assert score(name, Tier.L, mixed) >= 4  # one incidental search does not make it a hedge
    both_ends = "Sometimes it reads sequentially, sometimes it skims."
    assert score(name, Tier.M, both_ends) == 2


def test_chinese_answers_are_judged_too():
    assert score("cleanup_policy", Tier.M, "用户会定期归档旧文件。") == 4
    assert score("reading_strategy", Tier.M, "先用关键词搜索，再打开匹配的文件。") >= 4
    assert score("reading_strategy", Tier.L, "先用关键词搜索，再打开匹配的文件。") == 3


def test_the_offline_backend_task_matches_the_algorithm_and_explains_itself():
    backend = get_backend("offline")
    name, ref = "cleanup_policy", value("cleanup_policy", Tier.R)
    got = backend.judge_attribute(question(name), name, ref, "The user never deletes anything.")
    assert got.score == judge_attribute(name, ref, "The user never deletes anything.", question(name))[0] == 4
    assert "never delete" in got.rationale and "reference R" in got.rationale
    echo = backend.judge_attribute(question(name), name, ref, "cleanup policy")
    assert echo.score == 1 and "no value" in echo.rationale
    with pytest.raises(ValueError, match="behavioural attribute"):
        backend.judge_attribute("q", "favourite_colour", "blue", "blue")


def test_the_judge_stays_independent_of_the_trace_engine():
    import inspect

    from filegram_kit.llm.algorithms import value_judge

    source = inspect.getsource(value_judge)
    assert "engine" not in source.replace("trace engine", "") and "workspace" not in source
