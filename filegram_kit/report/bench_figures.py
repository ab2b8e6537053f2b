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
    """Grouped bars per sub-task (paper order, top to bottom) from `bench.items.paper_comparison`; sub-tasks
    not built here (Track 4) show the paper's bar alone, hatched, and say so."""
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
    fig.update_layout(
        barmode="group", template="plotly_white", width=1000, height=120 + 56 * len(rows), font=dict(size=13),
        title=dict(text=f"QA items by track and sub-task: ours {ours:,} (tracks 1-3) vs paper {paper:,}", x=0.5),
        legend=dict(orientation="h", x=0.5, xanchor="center", y=1.02, yanchor="bottom"),
        margin=dict(l=120, r=60, t=100, b=60))
    fig.update_yaxes(autorange="reversed", title_text="", ticksuffix="  ")
    fig.update_xaxes(title_text="QA items", rangemode="tozero")
    return fig


@artifact("figure04_qa_distribution", paper="Figure 4", notebook="05_benchmark", corpus=True, figure=True,
          title="Figure 4: QA items by track and sub-task, ours (seed 0) vs the paper",
          note="Paper counts from Table 3's footnote (4,653 items over 9 sub-tasks); ours = "
               "`build_items(corpus, seed=0)` over the 640-trajectory corpus. Track 4 (File / Visual Grounding) "
               "needs rendered outputs and real screen recordings: not built (later issue).")
def figure04_qa_distribution(corpus: str | Path | None = None) -> FigureData:
    try:
        from ..bench.generate import build_items
    except ImportError as exc:  # the generator lands in its own issue
        raise RuntimeError(f"figure04_qa_distribution needs filegram_kit.bench.generate.build_items ({exc})") from exc
    from ..bench.items import paper_comparison
    from .corpus_source import resolve_corpus

    items = build_items(resolve_corpus(corpus), seed=0)
    data = paper_comparison(items).select("track", "sub_track", "abbr", "paper_count", "ours", "note")
    return FigureData(qa_distribution_figure(data), data)
