"""Behaviour of the offline algorithms behind the typed LLM tasks (filegram_kit.llm.algorithms)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from filegram_kit.llm.algorithms import (
    LsaEmbedder,
    answer_mcq,
    answer_open,
    describe_style,
    embed,
    extract_facts,
    judge_anomaly,
    judge_likert,
    rephrase,
    segment,
    summarize,
)
from filegram_kit.llm.algorithms.text import numbers, split_sentences, word_count

FINANCE = [
    "Read the broker research note on DBS Group quarterly earnings and revenue.",
    "Opened the revenue forecast spreadsheet for DBS Group.",
    "Compared the forward earnings valuation of DBS Group with peers.",
    "Noted the analyst's revenue and earnings model assumptions.",
    "Checked the capex guidance and earnings outlook in the investor deck.",
]
PETS = [
    "Looked at the vet invoice for the dog's vaccination.",
    "Renamed the photos of the dog at the vet clinic.",
    "Read the dog food feeding schedule and vet notes.",
    "Moved the vet appointment reminders for the dog into the pet folder.",
    "Checked the dog's medication dosage from the vet letter.",
]
LEGAL = [
    "Read the court filing for the Harbor Lane lease dispute.",
    "Listed the hearing dates from the judge's scheduling order.",
    "Compared the witness statements about the lease dispute.",
    "Summarised the motion the lawyer filed with the court.",
]
CONTEXT = (
    "The user keeps project notes in a folder named archive_2024. DBS Group reported Q4 revenue of $38.2 billion, "
    "up 23.8% year on year.\nOperating costs were $29.1 billion. The user prefers descriptive file names with dates, "
    "such as 2024-03-05_meeting_notes.md.\nThey usually write short bullet-point summaries instead of long prose. "
    "The dog Shadow visits the vet every March."
)


# -- embeddings ------------------------------------------------------------------------------------
def test_embedding_paraphrases_are_closer_than_unrelated_texts():
    texts = [
        "The company reported quarterly revenue growth and raised its earnings guidance.",
        "Quarterly sales rose and management lifted the profit outlook for the company.",
        "The photos from the beach holiday were sorted into albums by date.",
        "Holiday pictures taken at the seaside were arranged into photo albums.",
        "The dog needs its vaccination at the vet next week.",
        "Our puppy is due for a vet appointment and vaccines soon.",
    ]
    vectors = embed(texts)
    # float32 values handed out as float64, so products of them sum in float64 (memo.py, util/float_ties.py)
    assert vectors.shape == (6, 256) and vectors.dtype == np.float64
    assert np.array_equal(vectors, vectors.astype(np.float32))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sim = vectors @ vectors.T
    for pair in range(3):
        a, b = 2 * pair, 2 * pair + 1
        others = [j for j in range(6) if j not in (a, b)]
        assert sim[a, b] > max(sim[a, others].max(), sim[b, others].max()) + 0.1, (pair, np.round(sim, 2))


def test_embedding_is_deterministic_and_independent_of_the_batch():
    first = embed(FINANCE + PETS)
    again = LsaEmbedder(256, 0).embed(FINANCE + PETS)
    assert first.tobytes() == again.astype(np.float64).tobytes()  # the memo hands float32 rows out as float64
    one_by_one = np.vstack([embed([t]) for t in FINANCE + PETS])
    assert one_by_one.tobytes() == first.tobytes()  # a query embedded alone is comparable with documents
    assert embed(FINANCE, dim=32).shape == (5, 32)


def test_embedding_handles_chinese_empty_and_unknown_text():
    zh = ["投资分析师跟踪的公司和反复出现的议题", "请总结这位投资分析师的工作重心", "旅行照片按照日期整理成相册"]
    vectors = embed(zh + ["", "   ", "zzqx qqqzz"])
    np.testing.assert_allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2
    assert not vectors[3:].any()  # empty text, whitespace and wholly unknown words: zero vectors
    with pytest.raises(TypeError):
        embed("one string, not a list")  # type: ignore[arg-type]


def test_embedder_fits_on_given_documents_and_pads_to_dim():
    docs = ["apples and pears are fruit", "pears and plums are fruit", "cars and trucks are vehicles",
            "trucks and buses are vehicles", "fruit salad with apples", "buses carry people"]
    model = LsaEmbedder(dim=16, seed=1).fit(docs)
    vectors = model.embed(["apples pears", "trucks buses"])
    assert vectors.shape == (2, 16)
    assert model.model_.components.shape[1] < 16 and not vectors[:, model.model_.components.shape[1]:].any()
    assert float(vectors[0] @ model.embed(["plums fruit"])[0]) > float(vectors[1] @ model.embed(["plums fruit"])[0])


# -- summaries and facts ---------------------------------------------------------------------------
SOLAR = (
    "Solar panels convert sunlight into electricity for homes. The cat slept on the sofa all afternoon.\n"
    "Many homes now install solar panels to cut electricity bills. Solar electricity from panels on homes "
    "reduces bills and emissions. Panels and batteries let homes store solar electricity. "
    "My neighbour bought a red bicycle yesterday."
)


def test_summary_keeps_the_central_sentence_within_the_budget_in_order():
    short = summarize(SOLAR, max_words=12)
    assert short == "Solar electricity from panels on homes reduces bills and emissions."
    longer = summarize(SOLAR, max_words=40)
    assert word_count(longer) <= 40 and "Solar electricity from panels on homes" in longer
    assert "cat" not in longer and "bicycle" not in longer  # the off-topic sentences are least central
    picked = split_sentences(longer)
    source = split_sentences(SOLAR)
    assert [source.index(s) for s in picked] == sorted(source.index(s) for s in picked)
    assert summarize(SOLAR, max_words=40) == longer
    assert summarize("", 50) == ""
    assert word_count(summarize("One two three four five six seven eight nine ten.", max_words=4)) == 4


def test_summary_of_chinese_text():
    text = ("太阳能电池板把阳光转化为家庭用电。猫在沙发上睡觉。"
            "很多家庭安装太阳能电池板来降低电费。太阳能电池板和电池让家庭储存电力。")
    out = summarize(text, max_words=30)
    assert 0 < word_count(out) <= 30 and "太阳能" in out and "猫" not in out


def test_facts_keep_numbers_dates_and_names_and_drop_filler():
    text = (
        "Hope you are doing well. Just checking in on things.\n"
        "The board approved a budget of $4.5 million on 12 March 2024.\n"
        "Let me know if you have any questions. Thanks again for everything.\n"
        "Priya Raman moved the launch to Q3 2025; the team agreed.\n"
        "The board approved a budget of $4.5 million on 12 March 2024, as noted.\n"
        "I think that is all for now."
    )
    facts = extract_facts(text)
    assert facts == ["The board approved a budget of $4.5 million on 12 March 2024.",  # the earlier twin
                     "Priya Raman moved the launch to Q3 2025"]  # the clause, without "the team agreed"
    assert extract_facts(text, max_facts=1) == facts[:1]  # the budget statement is the most informative
    assert extract_facts("Just checking in. Thanks for everything.") == []


# -- segmentation ----------------------------------------------------------------------------------
@pytest.mark.parametrize("embedder", ["wordllama", "lsa"])
def test_segmentation_splits_at_topic_boundaries(embedder):
    assert segment(FINANCE + PETS, embedder=embedder) == [(0, 5), (5, 10)]
    assert segment(PETS + FINANCE + LEGAL, embedder=embedder) == [(0, 5), (5, 10), (10, 14)]


def test_segmentation_keeps_a_single_topic_whole_and_covers_the_sequence():
    for items in (FINANCE, PETS, LEGAL, FINANCE + FINANCE[::-1]):
        assert segment(items) == [(0, len(items))]
    assert segment([]) == []
    assert segment(["only one item"]) == [(0, 1)]
    spans = segment(FINANCE + PETS, penalty=0.0, min_size=3)  # no penalty: splits as much as min_size allows
    assert spans[0][0] == 0 and spans[-1][1] == 10 and all(b - a >= 3 for a, b in spans)
    assert all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1)) and len(spans) == 3
    with pytest.raises(ValueError):
        segment(FINANCE, min_size=0)


# -- reader ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("question, choices, gold", [
    ("What revenue did DBS Group report for Q4?",
     ["Revenue of $29.1 billion", "Revenue of $38.2 billion", "Revenue of $23.8 billion", "Revenue of $12 billion"],
     1),
    ("What was the year-on-year revenue growth?", ["32.8%", "23.8%", "38.2%", "8.3%"], 1),
    ("What were the operating costs?", ["$38.2 billion", "$29.1 billion", "$23.8 billion"], 1),
    ("How does the user name files?",
     ["Short cryptic abbreviations", "Descriptive names with dates", "Random numbers only", "Names of pets"], 1),
    ("How does the user write summaries?",
     ["Long flowing prose essays", "Tables with formulas", "Short bullet-point summaries", "Voice memos"], 2),
    ("When does the dog visit the vet?", ["Every December", "Every week", "Never", "Every March"], 3),
])
@pytest.mark.parametrize("embedder", ["wordllama", "lsa"])
def test_mcq_reader_picks_the_option_the_context_supports(question, choices, gold, embedder):
    index, scores = answer_mcq(question, choices, CONTEXT, embedder=embedder)
    assert index == gold, scores
    assert len(scores) == len(choices) and abs(sum(scores) - 1.0) < 1e-9
    assert scores[gold] == max(scores)
    assert answer_mcq(question, choices, CONTEXT, embedder=embedder) == (index, scores)


def test_the_reader_embeds_with_the_embedder_it_is_given():
    from filegram_kit.llm.algorithms.lexical_reader import option_scores

    args = ("How does the user name files?", ["Short cryptic abbreviations", "Descriptive names with dates"], CONTEXT)
    assert not np.array_equal(option_scores(*args, embedder="wordllama"), option_scores(*args, embedder="lsa"))


def test_mcq_reader_ties_go_to_the_lowest_index_and_empty_context_is_uniform():
    index, scores = answer_mcq("What is the colour?", ["Blue", "Blue"], "The sky is blue.")
    assert index == 0 and scores[0] == scores[1]
    index, scores = answer_mcq("Anything?", ["yes", "no", "maybe"], "")
    assert index == 0 and np.allclose(scores, 1 / 3)
    with pytest.raises(ValueError):
        answer_mcq("Anything?", [], CONTEXT)


def test_open_reader_returns_the_answering_sentence_within_budget():
    out = answer_open("What revenue did DBS Group report?", CONTEXT, max_words=20)
    assert out.startswith("DBS Group reported Q4 revenue of $38.2 billion") and word_count(out) <= 20
    assert answer_open("anything", "") == ""


# -- judges ----------------------------------------------------------------------------------------
REFERENCE = ("DBS Group reported Q4 revenue of $38.2 billion, up 23.8% year on year. Management guided capex "
             "near 18.4% for next quarter. The analyst keeps DBS at 10% of the portfolio.")


def test_likert_scores_identity_high_unrelated_low_and_partial_between():
    assert judge_likert(REFERENCE, REFERENCE)[0] == 5
    unrelated, why = judge_likert(REFERENCE, "The dog visits the vet every March and eats twice a day.")
    assert unrelated == 1 and "missing" in why
    partial, why = judge_likert(REFERENCE, "DBS Group reported Q4 revenue of $38.2 billion, up 23.8% year on year.")
    assert 2 <= partial <= 4 and "capex" in why
    assert judge_likert(REFERENCE, "")[0] == 1


def test_likert_lowers_the_score_for_a_contradicting_number():
    wrong = REFERENCE.replace("$38.2 billion", "$31.5 billion")
    score, why = judge_likert(REFERENCE, wrong)
    assert score <= 2 and "$31.5 instead of $38.2" in why
    score, why = judge_likert(REFERENCE, wrong, rubric={2: "one clear error", 1: "wrong"})
    assert why.endswith("one clear error")
    with pytest.raises(ValueError):
        judge_likert("the of and", "anything")


def test_anomaly_judge_separates_outliers_from_task_explained_variation():
    deviation = {"edit_count": 4.2, "read_ratio": -3.6, "files_created": 3.3, "session_minutes": 0.4}
    label, why = judge_anomaly(deviation)
    assert label == "outlier" and "edit_count" in why and "read_ratio" in why
    shift = {"edit_count": 4.0, "read_ratio": -3.0, "files_created": 2.5}
    label, why = judge_anomaly(deviation, shift)
    assert label == "variation" and "task" in why
    assert judge_anomaly({"edit_count": 4.5, "read_ratio": 0.3})[0] == "uncertain"  # one feature alone
    assert judge_anomaly({"edit_count": 2.4, "read_ratio": -2.2})[0] == "uncertain"  # only mild
    assert judge_anomaly({"edit_count": 0.8, "read_ratio": -1.1})[0] == "variation"
    assert judge_anomaly({})[0] == "uncertain"
    with pytest.raises(ValueError, match="edit_count"):
        judge_anomaly({"edit_count": float("nan")})


# -- style and rephrasing --------------------------------------------------------------------------
def test_style_fields_of_a_markdown_document():
    doc = ("# Quarterly report\n\n## Summary\nRevenue grew 12% this quarter. Therefore, we recommend keeping "
           "the current budget for the next period.\n\n## Details\n- Item one is done\n- Item two is pending\n"
           "- Item three is blocked\n\n| item | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n")
    style = describe_style(doc)
    assert style["language"] == "en" and style["heading_levels"] == [1, 2] and style["headings"] == 3
    assert style["table_rows"] == 3 and style["bullet_ratio"] == round(3 / 11, 3)
    assert style["words"] == word_count(doc) and style["characters"] == len(doc)
    assert style["avg_sentence_words"] == round((5 + 11 + 4 + 4 + 4) / 5, 2)  # headings, table rows excluded
    assert style["structure"] == "highly structured" and style["tone"] != "casual"
    assert "H1-H2" in style["summary"] and "3-row table" in style["summary"]
    casual = describe_style("hey lol this is gonna be awesome!! don't worry about it")
    assert casual["formality"] < 0.4 < style["formality"] and casual["structure"] == "free-form"
    assert casual["tone"] == "casual"
    assert describe_style("您好，综上所述，本报告特此说明。")["language"] == "zh"
    mixed = "## 概述\n本文档基于3份资料整理。" + " The broker notes on TSMC revenue growth and margins" * 3
    assert describe_style(mixed)["language"] == "zh"  # Chinese scaffolding (12 characters) around 129 letters
    assert describe_style("Met 王伟 to review the quarterly budget, staffing and vendors.")["language"] == "en"
    assert describe_style("")["language"] == "en"


REGISTERS = {  # (formal, casual) writing in general English and Chinese, no engine's wording
    "en": ("On the whole, the committee considers the proposal sound. It may be argued that further "
           "consultation is warranted. Consequently, a comprehensive evaluation of the alternatives is "
           "recommended before the budget is approved.",
           "ok so the proposal looks fine i guess!! we're gonna need another chat about it though. "
           "can't decide on the budget yet 😅"),
    "zh": ("鉴于上述情况，本委员会对该方案进行了全面评估，并且提出以下建议。综上所述，特此说明。",
           "咱们先随便看看吧，这个方案挺好玩的！预算的事回头再聊一下呗。"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_formality_orders_general_writing_by_register(lang):
    formal, casual = (describe_style(text) for text in REGISTERS[lang])
    assert formal["tone"] == "formal" and casual["tone"] == "casual"
    assert formal["formality"] - casual["formality"] > 0.5
    neutral = "The report lists the files in the folder. The budget file has three rows."
    assert casual["formality"] < describe_style(neutral)["formality"] < formal["formality"]
    assert describe_style("# Title only\n\n| a | b |\n|---|---|\n")["formality"] == 0.5  # no prose, no evidence


@pytest.mark.parametrize("pack", ["A", "B"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_formality_reads_the_register_of_engine_outputs_in_either_wording(pack, lang):
    """The same reports in the engine's two style packs: register, not one pack's words, orders them."""
    from filegram_kit.engine.compose import Fact, Style, compose_report
    from filegram_kit.engine.style_packs import get_pack

    facts = [Fact("notes/budget.md", "Budget review", ["Revenue grew 12% in the third quarter.",
                                                       "The marketing team spent 40,000 on the spring campaign.",
                                                       "Two vendors missed their delivery dates in August."]),
             Fact("mail/offsite.eml", "Team offsite", ["The offsite moves to the second week of May.",
                                                       "Anna books the venue and the travel for everyone.",
                                                       "The agenda covers hiring, the roadmap and the budget."])]
    styles = {tone: [describe_style(compose_report("Quarterly planning", facts, Style(
        lang=lang, tone=tone, heading_depth=2, target_chars=900, pack=get_pack(pack)), np.random.default_rng(seed)))
        for seed in range(4)] for tone in "LMR"}
    scores = {tone: [s["formality"] for s in found] for tone, found in styles.items()}
    assert min(scores["L"]) > max(scores["M"]) and min(scores["M"]) > max(scores["R"])
    assert {s["tone"] for s in styles["R"]} == {"casual"}
    if lang == "en":  # Chinese reports quote English sources: their own register shows in a few characters
        assert {s["tone"] for s in styles["L"]} == {"formal"}


def _kept(text: str) -> list[str]:
    files = re.findall(r"[\w/.-]+\.[A-Za-z0-9]{1,5}\b", text)
    quotes = re.findall(r"\"[^\"]+\"", text)
    return sorted(numbers(text) + files + quotes)


@pytest.mark.parametrize("question", [
    "Which of the following best describes how the user names files like report_v2.docx?",
    "What is the total size of \"Q3 summary\" after 3 edits?",
    "How many files did the user create in notes/2024/ before 14:30?",
    "In task T-05, which folder did the user create first?",
    "Did the user delete archive_old.zip on 2024-03-05?",
    "What does the note \"usually late\" in prefer_often.md say about 3 meetings?",  # rule words inside kept parts
    "以下哪一项最能描述用户在 2024 年的命名习惯？",
])
def test_rephrase_keeps_numbers_quotes_and_file_names_and_changes_the_wording(question):
    for seed in (0, 1, 2):
        out = rephrase(question, seed=seed)
        assert out != question
        assert _kept(out) == _kept(question)
        assert out == rephrase(question, seed=seed)


def test_rephrase_rewrites_known_question_forms():
    assert rephrase("Which of the following best describes the user's naming style?").startswith("Which option")
    assert rephrase("In task T-05, which folder did the user create first?") == \
        "Which folder did the user create first in task T-05?"
    assert rephrase("How many files were renamed?") == "What number of files were renamed?"


def test_bm25_scores_match_the_okapi_formula_worked_by_hand():
    from filegram_kit.llm.algorithms.bm25 import Bm25Index

    index = Bm25Index([["budget", "review", "budget"], ["review", "travel"], [], ["budget"]])
    # N = 4, lengths 3/2/0/1, avgdl 1.5; "travel": df 1, only passage 1 (tf 1, length 2)
    idf = np.log(1 + (4 - 1 + 0.5) / (1 + 0.5))
    norm = 1.5 * (1 - 0.75 + 0.75 * 2 / 1.5)
    assert index.scores(["travel"]) == pytest.approx([0.0, idf * 2.5 / (1 + norm), 0.0, 0.0])
    assert index.df("budget") == 2 and index.df("unseen") == 0
    budget = index.scores(["budget"])
    idf = np.log(1 + (4 - 2 + 0.5) / (2 + 0.5))
    tf2_long = idf * 2 * 2.5 / (2 + 1.5 * (0.25 + 0.75 * 3 / 1.5))
    tf1_short = idf * 1 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 1 / 1.5))
    assert budget == pytest.approx([tf2_long, 0.0, 0.0, tf1_short])
    assert tf1_short > tf2_long  # length normalisation: one mention in a 1-term passage beats two in 3 terms
    assert index.scores(["budget", "budget"]) == pytest.approx(2 * budget)  # query repeats weigh in


def test_bm25_index_of_texts_equals_the_index_of_their_content_terms():
    from filegram_kit.llm.algorithms.bm25 import Bm25Index
    from filegram_kit.llm.algorithms.text import content_terms

    texts = ["The budget review is due Friday.", "", "Travel budgets grew 12% in Q3.", "Reviews, reviews."]
    query = content_terms("budget review travel 12")
    expected = Bm25Index([content_terms(t) for t in texts]).scores(query)
    assert Bm25Index.of_texts(texts).scores(query) == pytest.approx(expected)
    assert Bm25Index.of_texts([]).scores(query).shape == (0,)
