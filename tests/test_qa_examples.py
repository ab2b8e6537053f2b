"""Figure 5: one built item per sub-task, drawn as it is (question, options, key or reference), wrapped to fit."""

import json
import re
from pathlib import Path

import polars as pl

from filegram_kit.bench.generate import build_items
from filegram_kit.bench.schema import Item
from filegram_kit.bench.track4 import track4_items
from filegram_kit.report import reproduce
from filegram_kit.report.qa_examples import TABLE, examples_figure, examples_frame, figure05_qa_examples


def first_items(corpus: Path) -> dict[str, Item]:
    found: dict[str, Item] = {}
    for item in build_items(corpus, seed=0) + track4_items(corpus, seed=0):
        if item.sub_track not in found:
            found[item.sub_track] = item
    return found


def test_one_row_per_sub_task_each_equal_to_its_first_item(small_corpus):
    data = figure05_qa_examples(corpus=small_corpus).data
    expected = first_items(small_corpus)
    assert data["sub_track"].to_list() == list(expected)
    assert len(expected) >= 2  # the tiny corpus has several sub-tasks, among them a free-form one
    for row in data.iter_rows(named=True):
        item = expected[row["sub_track"]]
        assert (row["question_id"], row["track"], row["channel"]) == (item.question_id, item.track, item.channel)
        assert row["question"] == item.question and row["correct"] == item.correct
        assert json.loads(row["choices"]) == list(item.choices)
        assert row["correct_text"] == (item.choices[item.answer_index] if item.is_mcq else item.correct)


def test_free_form_rows_show_the_reference_answer(small_corpus):
    result = figure05_qa_examples(corpus=small_corpus)
    free = result.data.filter(pl.col("choices") == "[]")
    assert set(free["sub_track"]) == {"profile_reconstruction", "visual_grounding"}
    answers = result.figure.data[0].cells.values[2]
    for row in free.iter_rows(named=True):
        position = result.data["sub_track"].to_list().index(row["sub_track"])
        assert "reference answer" in answers[position] and row["correct"].split()[0] in answers[position]


def _plain(cell: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", line) for line in cell.split("<br>")]


def test_long_questions_and_options_wrap_to_their_column():
    long_item = Item("q_0001", "T2_reasoning", "behavioral_inference", "held_out_task", "procedural", "p1",
                     ("p1_T-01",), "How would this user work? " * 30, ("an option that goes on " * 20, "short"), "A")
    figure = examples_figure(examples_frame([long_item]))
    cells = figure.data[0].cells.values
    for (_, _, width), column in zip(TABLE, cells, strict=True):
        lines = _plain(column[0])
        assert max(len(line) for line in lines) <= width + 4  # the ✓ / indent prefix
    assert len(_plain(cells[1][0])) > 5 and "✓ A." in cells[2][0]
    assert figure.layout.height > 200  # grows with its rows


def test_reproduce_writes_the_frame_as_csv(small_corpus, tmp_path):
    reproduce(tmp_path, only=["figure05_qa_examples"], corpus=small_corpus, images=False, progress=False)
    written = pl.read_csv(tmp_path / "figure05_qa_examples.csv")
    assert written["question_id"].to_list() == [i.question_id for i in first_items(small_corpus).values()]
    assert (tmp_path / "figure05_qa_examples.html").is_file()
