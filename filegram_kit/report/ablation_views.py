"""Charts of FileGramOS ablations for notebooks 06 and 07: channel removals and knob sweeps with their CIs.

    sweep_figure(ablation.sweep_frame(rows, variants))    one panel per knob: Avg [95% CI] per value
    removal_figure(ablation.variant_changes(rows, vs))    change per column when a channel is removed
"""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from ..bench.bootstrap import STAT_COLUMNS
from ..util.cluster_ci import NO_CI_NOTE, with_no_ci_note
from ..util.natural_order import natural_key
from .registry import FigureData


def _bars(low: pl.Series, mid: pl.Series, high: pl.Series) -> dict:
    """Asymmetric error bars; a point without bounds (fewer than 5 personas) gets none, not a bar to 0."""
    return {"type": "data", "symmetric": False, "array": (high - mid).fill_null(0.0).to_list(),
            "arrayminus": (mid - low).fill_null(0.0).to_list()}


def _change_text(change: float | None, lo: float | None, hi: float | None) -> str:
    if change is None:
        return "base value"
    text = f"change vs base: {change:+.1f}"
    return f"{text} [{lo:+.1f}, {hi:+.1f}]" if lo is not None and hi is not None else with_no_ci_note(text)


def _no_ci(frame: pl.DataFrame, value: str) -> str:
    """A title suffix when some estimate has no interval."""
    return f" ({NO_CI_NOTE})" if (frame[value].is_not_null() & frame["lo"].is_null()).any() else ""


def sweep_figure(frame: pl.DataFrame, *, column: str = "Avg") -> FigureData:
    """One panel per knob: the score at each value (in natural order) with its persona-clustered CI; the base
    value in black. No fixed width: the figure fills the notebook cell it is shown in."""
    knobs = frame["knob"].unique(maintain_order=True).to_list()
    fig = make_subplots(rows=1, cols=len(knobs), subplot_titles=knobs, shared_yaxes=True,
                        horizontal_spacing=0.03)
    for k, knob in enumerate(knobs, 1):
        part = frame.filter(pl.col("knob") == knob)
        part = part[sorted(range(part.height), key=lambda i: natural_key(part["value"][i]))]
        fig.add_trace(go.Scatter(
            x=part["value"].to_list(), y=part["estimate"].to_list(), mode="markers+lines", name=knob,
            marker={"size": 9, "color": ["#111111" if b else "#1f77b4" for b in part["is_base"]]},
            error_y=_bars(part["lo"], part["estimate"], part["hi"]),
            hovertext=[_change_text(c, lo, hi)
                       for c, lo, hi in zip(part["change"], part["change_lo"], part["change_hi"], strict=True)],
            showlegend=False), row=1, col=k)
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=part["value"].to_list(),
                         row=1, col=k)
    fig.update_yaxes(title_text=f"{column} (%), 95% CI", row=1, col=1)
    fig.update_layout(autosize=True, height=380, margin={"t": 60, "l": 60, "r": 20, "b": 40},
                      title=f"FileGramOS {column} per Table 14 knob (others held; black = base)"
                      + _no_ci(frame, "estimate"))
    return FigureData(fig, frame)


def removal_figure(changes: pl.DataFrame) -> FigureData:
    """Grouped bars: per column, the paired change when each channel is removed, with its CI."""
    fig = go.Figure()
    for variant in changes["variant"].unique(maintain_order=True).to_list():
        part = changes.filter(pl.col("variant") == variant)
        part = part.with_columns(pl.col("column").replace_strict({c: i for i, c in enumerate(STAT_COLUMNS)},
                                                                 default=99).alias("_o")).sort("_o")
        fig.add_trace(go.Bar(x=part["column"].to_list(), y=part["diff"].to_list(), name=variant,
                             error_y=_bars(part["lo"], part["diff"], part["hi"])))
    fig.update_layout(barmode="group", autosize=True, height=420,
                      yaxis_title="change vs full model (points), 95% CI",
                      title="Removing one FileGramOS channel: the paired change per column" + _no_ci(changes, "diff"))
    return FigureData(fig, changes)
