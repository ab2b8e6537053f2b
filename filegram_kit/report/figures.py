"""Interactive figures (plotly) shared by the notebooks; paper figures are registered here too."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from ..behaviour.persona_space import distance_matrix, tier_matrix
from ..traces.schema import BEHAVIORAL_ATTRIBUTES, DIMENSION_CODES, DIMENSIONS, Profile
from . import distribution
from .registry import FigureData, artifact

TIER_COLORS = [[0.0, "#3b6ea8"], [0.5, "#e8e4d8"], [1.0, "#c0504d"]]  # L blue, M sand, R red


def profile_heatmap(profiles: Iterable[Profile] | dict[str, Profile], *, attributes: bool = False,
                    title: str | None = None) -> go.Figure:
    """Personas x dimensions (or x attributes), each cell coloured and labelled by its tier."""
    items = list(profiles.values()) if isinstance(profiles, dict) else list(profiles)
    z = tier_matrix(items, attributes=attributes)
    columns = list(BEHAVIORAL_ATTRIBUTES) if attributes else [f"{d} {DIMENSIONS[d].name}" for d in DIMENSION_CODES]
    text = [["LMR"[v] for v in row] for row in z]
    fig = go.Figure(go.Heatmap(z=z, x=columns, y=[p.id for p in items], text=text, texttemplate="%{text}",
                               colorscale=TIER_COLORS, zmin=0, zmax=2, showscale=False,
                               hovertemplate="%{y}<br>%{x}: %{text}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(title=title or ("Attribute tiers" if attributes else "Profile matrix (dimension tiers)"),
                      height=max(300, 22 * len(items) + 120), margin=dict(l=10, r=10, t=50, b=10))
    return fig


def distance_heatmap(profiles: Iterable[Profile] | dict[str, Profile], *, kind: str = "hamming") -> go.Figure:
    """Pairwise persona distances; fine-grained pairs show up as pale cells off the diagonal."""
    items = list(profiles.values()) if isinstance(profiles, dict) else list(profiles)
    ids = [p.id for p in items]
    z = distance_matrix(items, kind=kind)
    fig = go.Figure(go.Heatmap(z=z, x=ids, y=ids, colorscale="Viridis", texttemplate="%{z}",
                               colorbar=dict(title=kind)))
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(title=f"Pairwise {kind} distance between personas", height=max(400, 24 * len(ids) + 150),
                      margin=dict(l=10, r=10, t=50, b=10))
    return fig


CATEGORY_COLORS = {"read": "#3b6ea8", "write": "#c0504d", "organize": "#8a9a3b", "flow": "#d99a2b",
                   "metadata": "#9a9a9a"}
_BAR = "#4c6e91"
PAPER_FIGURE3 = "paper: 640 trajectories, 10K output files, 20,028 atomic actions"


def distribution_figure(data: pl.DataFrame) -> go.Figure:
    """Figure 3 as four panels from `distribution.distribution_data`; the totals go in the title."""
    total = distribution.totals(data)
    fig = make_subplots(rows=2, cols=2, horizontal_spacing=0.09, vertical_spacing=0.16, subplot_titles=(
        "Atomic actions per task type, by category", "Trajectories per task type",
        "Output files created, by file type", "Atomic actions per trajectory"))
    by_type = distribution.panel(data, "actions_by_task_type")
    for category in distribution.CATEGORIES:
        part = by_type.filter(pl.col("series") == category)
        fig.add_trace(go.Bar(x=part["x"].to_list(), y=part["value"].to_list(), name=category,
                             marker_color=CATEGORY_COLORS[category]), row=1, col=1)
    for name, row, col in (("trajectories_by_task_type", 1, 2), ("output_files_by_type", 2, 1),
                           ("actions_per_trajectory", 2, 2)):
        part = distribution.panel(data, name)
        fig.add_trace(go.Bar(x=part["x"].to_list(), y=part["value"].to_list(), marker_color=_BAR, showlegend=False,
                             text=part["value"].to_list() if name != "actions_per_trajectory" else None,
                             textposition="outside", cliponaxis=False), row=row, col=col)
    fig.update_layout(
        barmode="stack", template="plotly_white", width=1200, height=820, font=dict(size=13),
        title=dict(text=f"Data distribution: {total['trajectories']:,} trajectories, {total['output_files']:,} output "
                        f"files, {total['atomic_actions']:,} atomic actions<br><sup>{PAPER_FIGURE3}</sup>",
                   x=0.5, y=0.975, yanchor="top", font=dict(size=18)),
        legend=dict(title="action category", orientation="h", x=0.5, xanchor="center", y=1.045, yanchor="bottom"),
        margin=dict(l=70, r=30, t=130, b=70))
    fig.update_xaxes(title_text="task type", row=1, col=1)
    fig.update_xaxes(title_text="task type", row=1, col=2)
    fig.update_xaxes(title_text="file extension", tickangle=-45, row=2, col=1)
    fig.update_xaxes(title_text="atomic actions in the trajectory", tickangle=-45, row=2, col=2)
    for row, col, label in ((1, 1, "actions"), (1, 2, "trajectories"), (2, 1, "files"), (2, 2, "trajectories")):
        fig.update_yaxes(title_text=label, rangemode="tozero", row=row, col=col)
    return fig


@artifact("figure03_data_distribution", paper="Figure 3", notebook="02_trace_generation", corpus=True, figure=True,
          title="Figure 3: data distribution of the generated corpus (20 personas x 32 tasks, seed 0)",
          note="Paper: 640 trajectories, 10K output files, 20,028 atomic actions. Atomic actions are the 12 event "
               "types clean() keeps; output files are the files a persona created (new writes and copies).")
def figure03_data_distribution(corpus: str | Path | None = None) -> FigureData:
    from .corpus_source import cleaned_frame, resolve_corpus

    data = distribution.distribution_data(cleaned_frame(resolve_corpus(corpus)))
    return FigureData(distribution_figure(data), data)
