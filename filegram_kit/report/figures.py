"""Interactive figures (plotly) shared by the notebooks; paper figures are registered here too."""

from __future__ import annotations

from collections.abc import Iterable

import plotly.graph_objects as go

from ..persona_space import distance_matrix, tier_matrix
from ..schema import BEHAVIORAL_ATTRIBUTES, DIMENSION_CODES, DIMENSIONS, Profile

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
