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
    """Asked vs realised (log-log, 95% user-clustered intervals), one panel per data set, one line per model
    (colour) and score (solid: two-class, dotted: one-class); the diagonal is a kept promise, the band around
    it the [0.5x, 2x] the rate is held to. A point on the bottom edge realised no false alarm at all."""
    asked = sorted(table["asked"].unique().to_list())
    datasets = table["data"].unique(maintain_order=True).to_list() or [""]
    figure = make_subplots(rows=1, cols=len(datasets), subplot_titles=datasets, shared_yaxes=True)
    if not asked:
        return figure
    low, high = asked[0] / 10, asked[-1] * 3
    floor = low * 1.1  # log axes: a realised 0 is drawn here, on the bottom edge
    models = table["model"].unique(maintain_order=True).to_list()
    for d, data in enumerate(datasets, start=1):
        first = d == 1
        figure.add_scatter(x=[low, high, high, low], y=[low * KEPT[0], high * KEPT[0], high * KEPT[1], low * KEPT[1]],
                           mode="lines", fill="toself", fillcolor="rgba(120,120,120,0.15)", line={"width": 0},
                           hoverinfo="skip", name=f"kept ({KEPT[0]:g}x to {KEPT[1]:g}x)", legendgroup="kept",
                           showlegend=first, row=1, col=d)
        figure.add_scatter(x=[low, high], y=[low, high], mode="lines", line={"color": "#555", "dash": "dash"},
                           name="realised = asked", hoverinfo="skip", legendgroup="diagonal", showlegend=first,
                           row=1, col=d)
        for m, model in enumerate(models):
            for score, dash in SCORE_DASHES.items():
                part = table.filter((pl.col("data") == data) & (pl.col("model") == model)
                                    & (pl.col("score") == score)).sort("asked")
                if not part.is_empty():
                    _calibration_line(figure, part, f"{model}, {score.replace('_', '-')}",
                                      MODEL_COLORS[m % len(MODEL_COLORS)], dash, floor, first, d)
        figure.update_xaxes(type="log", title="false-alarm rate asked", range=[math.log10(low), math.log10(high)],
                            row=1, col=d)
        figure.update_yaxes(type="log", range=[math.log10(low), math.log10(high)], row=1, col=d)
    figure.update_yaxes(title="realised on normal sessions", row=1, col=1)
    figure.update_layout(title="Drift alarms: false-alarm rate asked vs realised", height=440,
                         margin={"t": 60, "b": 40})
    return figure


def _calibration_line(figure: go.Figure, part: pl.DataFrame, name: str, color: str, dash: str, floor: float,
                      legend: bool, col: int) -> None:
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
                      "<br>normal sessions %{customdata[1]}<extra></extra>", row=1, col=col)
