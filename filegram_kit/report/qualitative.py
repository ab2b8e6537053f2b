"""Paper Figure 7: a qualitative comparison. One Behavioral Fingerprint item and one Trace Disentanglement
item, and for every method what its context held and what the shared reader answered from it.

The items are not chosen for a flattering outcome: each is the first item of its sub-task in item
order (item seed 0), whatever the methods then do with it. Every method ingests the item's inputs
exactly as the harness gives them (anonymised), retrieves with the question, and the offline reader
answers (`bench_views.compare_methods`). The excerpt is the start of the context, cut for the page;
the reader saw all of it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from .registry import FigureData, artifact
from .settings import RunSettings, settings_of

SUB_TRACKS = ("behavioral_fingerprint", "trace_disentanglement")
EXCERPT_CHARS = 240


def first_items(items: list, sub_tracks: tuple[str, ...] = SUB_TRACKS) -> list:
    """The first multiple-choice item of each sub-task, in item order."""
    chosen = []
    for sub in sub_tracks:
        found = next((i for i in items if i.sub_track == sub and i.is_mcq), None)
        if found is not None:
            chosen.append(found)
    return chosen


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def comparison_frame(items: list, store, methods: tuple[str, ...], backend) -> pl.DataFrame:
    """One row per (item, method): the context's size and start, the answer, the correct letter, the verdict."""
    from .bench_views import compare_methods

    rows = []
    for item in items:
        cmp = compare_methods(item, store, methods, backend=backend)
        for r in cmp.frame.iter_rows(named=True):
            context = cmp.contexts.get(r["method"])
            rows.append({"question_id": item.question_id, "sub_track": item.sub_track, "question": item.question,
                         "correct_answer": item.correct, "method": r["method"], "label": r["label"],
                         "context_tokens": r["context_tokens"],
                         "context_excerpt": excerpt(context.text) if context is not None else "",
                         "correct_choice": item.choices[ord(item.correct) - ord("A")],
                         "answer": r["answer"], "answered": r["chosen"], "is_correct": r["is_correct"],
                         "error": r["error"]})
    return pl.DataFrame(rows, infer_schema_length=None)


def _wrap(text: str | None, width: int) -> str:
    return "<br>".join(textwrap.wrap(text or "", width)) or " "


def comparison_figure(frame: pl.DataFrame) -> go.Figure:
    """One table per item: method, context tokens, context start, answer and verdict."""
    ids = frame["question_id"].unique(maintain_order=True).to_list()
    titles = []
    for qid in ids:
        row = frame.filter(pl.col("question_id") == qid).row(0, named=True)
        titles.append(_wrap(f"{row['sub_track'].replace('_', ' ')} · {qid} · {row['question']} Correct: "
                            f"{row['correct_answer']}. {excerpt(row['correct_choice'], 160)}", 170))
    methods = frame.filter(pl.col("question_id") == ids[0]).height
    per_item = 150 + 52 * methods
    fig = make_subplots(rows=len(ids), cols=1, specs=[[{"type": "table"}]] * len(ids), subplot_titles=titles,
                        vertical_spacing=90 / (per_item * len(ids)))
    for k, qid in enumerate(ids, 1):
        part = frame.filter(pl.col("question_id") == qid)
        verdicts = zip(part["is_correct"], part["error"], strict=True)
        verdict = ["✓" if c else ("error" if e else "✗") for c, e in verdicts]
        fill = ["#e3f4e1" if c else "#fbe4e1" for c in part["is_correct"]]
        fig.add_trace(go.Table(
            columnwidth=[80, 55, 470, 150, 40],
            header={"values": ["method", "context tokens", "what the context held (start)", "answer", "right?"],
                    "fill_color": "#dde3ea", "align": "left", "font": {"size": 12}},
            cells={"values": [part["label"].to_list(), part["context_tokens"].to_list(),
                              [_wrap(t, 100) for t in part["context_excerpt"]],
                              [_wrap(f"{a}: {excerpt(c or '', 70)}", 30) if a else "" for a, c in
                               zip(part["answer"], part["answered"], strict=True)], verdict],
                   "fill_color": [fill] * 5, "align": "left", "font": {"size": 10}, "height": 44}),
            row=k, col=1)
    fig.update_annotations(font_size=12, align="left")
    fig.update_layout(width=1500, height=per_item * len(ids) + 60, margin={"l": 20, "r": 20, "t": 110, "b": 20},
                      title="Figure 7 (ours): what each memory's context held, and what the shared reader answered")
    return fig


@artifact("figure07_qualitative", paper="Figure 7", notebook="05_benchmark", corpus=True, figure=True,
          title="Figure 7: qualitative comparison of every method on one BehavFP and one TraceDis item",
          note="Items: the first multiple-choice item of each of the two sub-tasks in item order (item seed 0), not "
               "picked for the outcome. Each method ingests that item's anonymised inputs, retrieves with the "
               "question, and the offline lexical reader answers from the context alone. The excerpt is the "
               "start of the context (the reader saw all of it); the CSV has every row.")
def figure07_qualitative(corpus: str | Path | None = None, *, settings: RunSettings | None = None) -> FigureData:
    from ..bench.generate import build_items
    from ..bench.inputs import TrajectoryStore
    from ..llm import get_backend
    from .corpus_source import resolve_corpus

    corpus, settings = resolve_corpus(corpus), settings_of(settings)
    items = first_items(build_items(corpus, seed=settings.item_seeds[0]))
    frame = comparison_frame(items, TrajectoryStore(corpus), settings.methods, get_backend(settings.backend))
    return FigureData(comparison_figure(frame), frame)
