"""A view of drift alarms' calibration for notebooks: the false-alarm rate asked against the one realised.

    calibration_figure(table)      # `alarm_calibration.pu_calibration` / `corpus_calibration` rows
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from ..behaviour.alarm_calibration import KEPT

MODEL_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")
SCORE_DASHES = {"two_class": "solid", "one_class": "dot"}


def calibration_figure(table: pl.DataFrame) -> go.Figure:
    """Asked vs realised (log-log, 95% user-clustered intervals), one panel per data set (columns) and feedback
    (rows: alarms unreviewed, or reviewed with the user's own confirmed), one line per model (colour) and score
    (solid: two-class, dotted: one-class); the diagonal is a kept promise, the band around it the [0.5x, 2x] the
    rate is held to. A point on the bottom edge realised no false alarm at all."""
    asked = sorted(table["asked"].unique().to_list())
    datasets = table["data"].unique(maintain_order=True).to_list() or [""]
    feedbacks = sorted(table["feedback"].unique().to_list()) if "feedback" in table.columns else [False]
    titles = [f"{data}{', alarms confirmed' if feedback else ''}" for feedback in feedbacks for data in datasets]
    figure = make_subplots(rows=len(feedbacks), cols=len(datasets), subplot_titles=titles, shared_yaxes=True,
                           vertical_spacing=0.12)
    if not asked:
        return figure
    low, high = asked[0] / 10, asked[-1] * 3
    floor = low * 1.1  # log axes: a realised 0 is drawn here, on the bottom edge
    models = table["model"].unique(maintain_order=True).to_list()
    for r, feedback in enumerate(feedbacks, start=1):
        for d, data in enumerate(datasets, start=1):
            first = d == 1 and r == 1
            panel = {"row": r, "col": d}
            figure.add_scatter(x=[low, high, high, low],
                               y=[low * KEPT[0], high * KEPT[0], high * KEPT[1], low * KEPT[1]], mode="lines",
                               fill="toself", fillcolor="rgba(120,120,120,0.15)", line={"width": 0},
                               hoverinfo="skip", name=f"kept ({KEPT[0]:g}x to {KEPT[1]:g}x)", legendgroup="kept",
                               showlegend=first, **panel)
            figure.add_scatter(x=[low, high], y=[low, high], mode="lines", line={"color": "#555", "dash": "dash"},
                               name="realised = asked", hoverinfo="skip", legendgroup="diagonal", showlegend=first,
                               **panel)
            here = table.filter(pl.col("data") == data)
            if "feedback" in table.columns:
                here = here.filter(pl.col("feedback") == feedback)
            for m, model in enumerate(models):
                for score, dash in SCORE_DASHES.items():
                    part = here.filter((pl.col("model") == model) & (pl.col("score") == score)).sort("asked")
                    if not part.is_empty():
                        _calibration_line(figure, part, f"{model}, {score.replace('_', '-')}",
                                          MODEL_COLORS[m % len(MODEL_COLORS)], dash, floor, first, panel)
            figure.update_xaxes(type="log", range=[math.log10(low), math.log10(high)], **panel,
                                title="false-alarm rate asked" if r == len(feedbacks) else None)
            figure.update_yaxes(type="log", range=[math.log10(low), math.log10(high)], **panel,
                                title="realised on normal sessions" if d == 1 else None)
    figure.update_layout(title="Drift alarms: false-alarm rate asked vs realised", height=380 * len(feedbacks) + 60,
                         margin={"t": 60, "b": 40})
    return figure


def _calibration_line(figure: go.Figure, part: pl.DataFrame, name: str, color: str, dash: str, floor: float,
                      legend: bool, panel: dict[str, int]) -> None:
    """One model and score's asked-vs-realised line with its interval and hits on hover."""
    realised = [max(v, floor) for v in part["realised"].fill_null(0).to_list()]
    figure.add_scatter(
        x=part["asked"], y=realised, mode="lines+markers", name=name, legendgroup=name, showlegend=legend,
        line={"color": color, "dash": dash},
        error_y={"type": "data", "symmetric": False,
                 "array": [max(h, floor) - r for h, r in zip(part["realised_hi"].fill_null(0), realised,
                                                              strict=True)],
                 "arrayminus": [r - max(lo, floor) for lo, r in zip(part["realised_lo"].fill_null(0), realised,
                                                                     strict=True)]},
        customdata=part.select("hits", "normal").to_numpy(),
        hovertemplate="asked %{x:.3f}<br>realised %{y:.4f}<br>hits %{customdata[0]:.3f}"
                      "<br>normal sessions %{customdata[1]}<extra></extra>", **panel)
