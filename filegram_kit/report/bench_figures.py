"""FileGramBench figures: how many QA items each track and sub-task has, ours against the paper."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import polars as pl

from .registry import FigureData, artifact

PAPER_COLOR, OURS_COLOR = "#b9b4a6", "#4c6e91"


def _label(row: dict) -> str:
    return f"{row['track'].split('_')[0]} {row['abbr'] or row['sub_track']}"


def qa_distribution_figure(data: pl.DataFrame) -> go.Figure:
    """Grouped bars per sub-task (paper order, top to bottom) from `bench.items.paper_comparison`; a sub-task
    absent from the items (Track 4 when it is left out) shows the paper's bar alone, hatched, and says so."""
    rows = list(data.iter_rows(named=True))
    labels = [_label(r) for r in rows]
    built = [r["ours"] is not None for r in rows]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=labels, x=[r["paper_count"] for r in rows], name="paper", orientation="h",
                         marker=dict(color=PAPER_COLOR, pattern_shape=["" if b else "/" for b in built]),
                         text=[f"{r['paper_count']:,}" if r["paper_count"] is not None else "" for r in rows],
                         textposition="outside", cliponaxis=False))
    fig.add_trace(go.Bar(y=labels, x=[r["ours"] or 0 for r in rows], name="ours", orientation="h",
                         marker_color=OURS_COLOR, textposition="outside", cliponaxis=False,
                         text=[f"{r['ours']:,}" if b else r["note"] for r, b in zip(rows, built, strict=True)]))
    ours = sum(r["ours"] or 0 for r in rows)
    paper = sum(r["paper_count"] or 0 for r in rows)
    tracks = sorted({r["track"].split("_")[0][1:] for r, b in zip(rows, built, strict=True) if b})
    scope = f"tracks {tracks[0]}-{tracks[-1]}" if len(tracks) > 1 else f"track {tracks[0]}" if tracks else "none"
    fig.update_layout(
        barmode="group", template="plotly_white", width=1000, height=120 + 56 * len(rows), font=dict(size=13),
        title=dict(text=f"QA items by track and sub-task: ours {ours:,} ({scope}) vs paper {paper:,}", x=0.5),
        legend=dict(orientation="h", x=0.5, xanchor="center", y=1.02, yanchor="bottom"),
        margin=dict(l=120, r=60, t=100, b=60))
    fig.update_yaxes(autorange="reversed", title_text="", ticksuffix="  ")
    fig.update_xaxes(title_text="QA items", rangemode="tozero")
    return fig


@artifact("figure04_qa_distribution", paper="Figure 4", notebook="05_benchmark", corpus=True, figure=True,
          title="Figure 4: QA items by track and sub-task, ours (seed 0) vs the paper",
          note="Paper counts from Table 3's footnote (4,653 items over 9 sub-tasks); ours = "
               "`build_items(corpus, seed=0)` (tracks 1-3) plus `track4_items(corpus, seed=0)` (File Grounding "
               "drawn from the six multiple-choice sub-tasks where the evidence lies in the outputs; Visual "
               "Grounding: first halves of replayed engine sessions, not real participants' recordings) over "
               "the 640-trajectory corpus.")
def figure04_qa_distribution(corpus: str | Path | None = None) -> FigureData:
    from ..bench.generate import build_items
    from ..bench.items import paper_comparison
    from ..bench.track4 import track4_items
    from .corpus_source import resolve_corpus

    corpus = resolve_corpus(corpus)
    items = build_items(corpus, seed=0) + track4_items(corpus, seed=0)
    data = paper_comparison(items).select("track", "sub_track", "abbr", "paper_count", "ours", "note")
    return FigureData(qa_distribution_figure(data), data)
