"""Charts of FileGramOS ablations for notebooks 06 and 07: channel removals and knob sweeps with their CIs.

    sweep_figure(ablation.sweep_frame(rows, variants))    one panel per knob: Avg [95% CI] per value
    removal_figure(ablation.variant_changes(rows, vs))    change per column when a channel is removed
"""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from ..bench.bootstrap import STAT_COLUMNS
from .registry import FigureData


def sweep_figure(frame: pl.DataFrame, *, column: str = "Avg") -> FigureData:
    """One panel per knob: the score at each value with its persona-clustered CI; the base value in black."""
    knobs = frame["knob"].unique(maintain_order=True).to_list()
    fig = make_subplots(rows=1, cols=len(knobs), subplot_titles=knobs, shared_yaxes=True,
                        horizontal_spacing=0.03)
    for k, knob in enumerate(knobs, 1):
        part = frame.filter(pl.col("knob") == knob)
        fig.add_trace(go.Scatter(
            x=part["value"].to_list(), y=part["estimate"].to_list(), mode="markers+lines", name=knob,
            marker={"size": 9, "color": ["#111111" if b else "#1f77b4" for b in part["is_base"]]},
            error_y={"type": "data", "symmetric": False, "array": (part["hi"] - part["estimate"]).to_list(),
                     "arrayminus": (part["estimate"] - part["lo"]).to_list()},
            hovertext=[f"change vs base: {c:+.1f} [{lo:+.1f}, {hi:+.1f}]" if c is not None else "base value"
                       for c, lo, hi in zip(part["change"], part["change_lo"], part["change_hi"], strict=True)],
            showlegend=False), row=1, col=k)
        fig.update_xaxes(type="category", row=1, col=k)
    fig.update_yaxes(title_text=f"{column} (%), 95% CI", row=1, col=1)
    fig.update_layout(width=300 * len(knobs) + 100, height=380, margin={"t": 60, "l": 60, "r": 20, "b": 40},
                      title=f"FileGramOS {column} as each Table 14 knob varies (others held; black = base value)")
    return FigureData(fig, frame)


def removal_figure(changes: pl.DataFrame) -> FigureData:
    """Grouped bars: per column, the paired change when each channel is removed, with its CI."""
    fig = go.Figure()
    for variant in changes["variant"].unique(maintain_order=True).to_list():
        part = changes.filter(pl.col("variant") == variant)
        part = part.with_columns(pl.col("column").replace_strict({c: i for i, c in enumerate(STAT_COLUMNS)},
                                                                 default=99).alias("_o")).sort("_o")
        fig.add_trace(go.Bar(x=part["column"].to_list(), y=part["diff"].to_list(), name=variant,
                             error_y={"type": "data", "symmetric": False,
                                      "array": (part["hi"] - part["diff"]).to_list(),
                                      "arrayminus": (part["diff"] - part["lo"]).to_list()}))
    fig.update_layout(barmode="group", width=1100, height=420, yaxis_title="change vs full model (points), 95% CI",
                      title="Removing one FileGramOS channel: the paired change per column")
    return FigureData(fig, changes)
