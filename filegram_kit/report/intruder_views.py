"""A view of the intruder-run protocol for notebooks: one target's stream scored both ways.

    stream_figure(blocks, stream, train=1500)     # surprise per block, "others" and "past", intruders in red
"""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go
import polars as pl

from ..behaviour.intruder_runs import REFERENCES, Stream, stream_scores
from ..behaviour.masquerade import Block

REFERENCE_COLORS = {"others": "#888888", "past": "#1f77b4"}
INTRUDER_COLOR = "#d62728"


def stream_figure(blocks: Mapping[str, list[Block]], stream: Stream, *, train: int, detector: str = "habit",
                  order: int = 1) -> go.Figure:
    """The target's later blocks in time order, each reference's score as a line, the intruders' blocks marked."""
    figure = go.Figure()
    for reference in REFERENCES:
        scores = stream_scores(blocks, [stream], train=train, detector=detector, order=order, reference=reference)
        figure.add_scatter(x=scores["position"], y=scores["score"], mode="lines", name=reference,
                           line={"color": REFERENCE_COLORS[reference]})
        intruder = scores.filter(pl.col("masquerade"))
        figure.add_scatter(x=intruder["position"], y=intruder["score"], mode="markers", showlegend=False,
                           marker={"color": INTRUDER_COLOR, "size": 6}, name=f"intruder ({reference})")
    figure.update_layout(title=f"{stream.target}'s later blocks (red: an intruder's), {detector} score",
                         xaxis_title="block in the stream", yaxis_title="surprise per action (or distance)",
                         height=320, margin={"t": 40, "b": 40})
    return figure
