"""Paper Figure 5: one FileGramBench question per sub-task, as the generator built it.

The rule is fixed, not picked by hand: the first item of each sub-task in item order (item seed 0;
`build_items` numbers each sub-task's items from 0001 in its own order). A multiple-choice item is
shown with its options and the correct one marked; a free-form item (Profile Reconstruction) has
no options, so its reference answer is shown instead. Questions never name the persona (generate.py).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import plotly.graph_objects as go
import polars as pl

from ..llm.tasks import LETTERS
from .registry import FigureData, artifact

COLUMNS = {"question_id": pl.String, "track": pl.String, "sub_track": pl.String, "sub_class": pl.String,
           "channel": pl.String, "question": pl.String, "choices": pl.String, "correct": pl.String,
           "correct_text": pl.String}
# table columns: header, width (px), characters per wrapped line at the cell font
TABLE = (("sub-task", 210, 27), ("question", 470, 66), ("choices (✓ = correct) / reference answer", 720, 108))
FONT, LINE, PAD = 12, 17, 14  # px


def first_per_sub_track(items: list) -> list:
    """The first item of each sub-task, in item order (so sub-tasks appear in the generator's order)."""
    chosen: dict[str, object] = {}
    for item in items:
        chosen.setdefault(item.sub_track, item)
    return list(chosen.values())


def examples_frame(items: list) -> pl.DataFrame:
    """One row per item: its release fields, `choices` JSON-encoded as on disk, and the correct answer's text."""
    rows = [{"question_id": i.question_id, "track": i.track, "sub_track": i.sub_track, "sub_class": i.sub_class,
             "channel": i.channel, "question": i.question, "choices": json.dumps(list(i.choices), ensure_ascii=False),
             "correct": i.correct, "correct_text": i.choices[i.answer_index] if i.is_mcq else i.correct}
            for i in items]
    return pl.DataFrame(rows, schema=COLUMNS)


def _wrap(text: str, width: int, hang: int = 0) -> list[str]:
    """Lines of at most `width` characters; lines after the first indented by `hang` spaces."""
    return textwrap.wrap(text, width, subsequent_indent=" " * hang) or [""]


def _bold(lines: list[str]) -> list[str]:
    return [f"<b>{line}</b>" for line in lines]


def _answer_lines(row: dict) -> list[str]:
    choices = json.loads(row["choices"])
    width = TABLE[2][2]
    if not choices:
        return ["<i>free-form: no options; the reference answer</i>", *_bold(_wrap(row["correct"], width))]
    lines = []
    for letter, text in zip(LETTERS, choices, strict=False):
        wrapped = _wrap(f"{letter}. {text}", width, hang=4)
        lines += _bold(["✓ " + wrapped[0], *wrapped[1:]]) if letter == row["correct"] else ["   " + wrapped[0],
                                                                                            *wrapped[1:]]
    return lines


def _cells(row: dict) -> list[list[str]]:
    label = [*_bold(_wrap(row["sub_track"].replace("_", " "), TABLE[0][2])), row["track"],
             f"channel: {row['channel']}", *_wrap(f"{row['question_id']} ({row['sub_class']})", TABLE[0][2], 2)]
    return [label, _wrap(row["question"], TABLE[1][2]), _answer_lines(row)]


def examples_figure(frame: pl.DataFrame) -> go.Figure:
    """A table, one row per sub-task; every cell wrapped to its column, the figure as tall as its rows."""
    cells = [_cells(row) for row in frame.iter_rows(named=True)]
    heights = [max(len(c) for c in row) * LINE + PAD for row in cells]
    fills = ["#ffffff" if k % 2 == 0 else "#f3f5f8" for k in range(len(cells))]
    fig = go.Figure(go.Table(
        columnwidth=[w for _, w, _ in TABLE],
        header=dict(values=[f"<b>{h}</b>" for h, _, _ in TABLE], fill_color="#dde3ea", align="left",
                    font=dict(size=FONT + 1), height=30),
        cells=dict(values=[["<br>".join(row[k]) for row in cells] for k in range(len(TABLE))], align="left",
                   fill_color=[fills] * len(TABLE), font=dict(size=FONT), height=LINE + 4)))
    fig.update_layout(width=sum(w for _, w, _ in TABLE) + 40, height=int(sum(heights) + 30 + 90),
                      margin=dict(l=20, r=20, t=70, b=20),
                      title=dict(text="Figure 5 (ours): one FileGramBench question per sub-task (item seed 0, the "
                                      "first item of each)", x=0.5))
    return fig


@artifact("figure05_qa_examples", paper="Figure 5", notebook="05_benchmark", corpus=True, figure=True,
          title="Figure 5: FileGramBench QA examples, one per sub-task, as built from the corpus",
          note="Each row is the first item of its sub-task in item order (`build_items(corpus, seed=0)` and "
               "`track4_items(corpus, seed=0)`), not picked for how it reads. Options are shown in their placed "
               "order with the correct one marked; Profile Reconstruction and Visual Grounding are free-form, so "
               "their reference answer is shown. A File Grounding question reads as its source sub-task's: what "
               "differs is that its evidence is answered from the rendered outputs. The CSV has the release "
               "fields of each item (`choices` JSON-encoded).")
def figure05_qa_examples(corpus: str | Path | None = None) -> FigureData:
    from ..bench.generate import build_items
    from ..bench.track4 import track4_items
    from .corpus_source import resolve_corpus

    corpus = resolve_corpus(corpus)
    frame = examples_frame(first_per_sub_track(build_items(corpus, seed=0) + track4_items(corpus, seed=0)))
    return FigureData(examples_figure(frame), frame)
