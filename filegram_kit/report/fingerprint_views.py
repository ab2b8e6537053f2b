"""Views of the 17-D procedural fingerprint for notebook 03: features by tier, a 2-D map of all
sessions, drift scores against perturbations, and two personas side by side.

    frame = tier_frame(fp, profiles, perturbations)      fingerprints + tier_A..tier_F + perturbed flags
    feature_by_tier(frame, "search_ratio")               one feature split by its dimension's tier
    fingerprint_map(frame, color="tier_C", deviation=drift(trajs))   FigureData(figure, coordinates)
    perturbation_auc(frame, drift(trajs))                do deviation scores find the perturbed sessions?
    compare_personas(fp, "p1_methodical", "p3_efficient_executor")   FigureData(figure, per-feature table)

Tiers and perturbations are ground truth: they colour and score the views, never enter the map's
coordinates (those come from the 17 features alone).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import polars as pl
from plotly.colors import qualitative

from ..behaviour.fingerprint import FEATURE_DEFINITIONS, FEATURE_DIMENSION, FEATURES
from ..engine.realism import auc
from ..traces.schema import DIMENSION_CODES, DIMENSIONS, Profile
from ..util.float_ties import ranked
from .registry import FigureData
from .tables import trajectory_tiers

TIERS = ("L", "M", "R")
TIER_MARKER = {"L": "#3b6ea8", "M": "#b89b5e", "R": "#c0504d"}  # blue / sand / red as in the profile heatmap
DIMENSION_COLORS = dict(zip(DIMENSION_CODES, qualitative.Safe, strict=False))
# counts and sizes (heavy right tails) are log1p'd before PCA; ratios stay as they are
RATIO_FEATURES = frozenset({"search_ratio", "browse_ratio", "revisit_ratio", "small_edit_ratio", "delete_to_create"})
TIER_COLUMNS = tuple(f"tier_{d}" for d in DIMENSION_CODES)


def _shift(p: Mapping[str, Any] | Any) -> dict[str, str]:
    """A perturbation (a perturbations.json row or a `profiles.Perturbation`) as plain strings."""
    get = p.get if isinstance(p, Mapping) else lambda key: getattr(p, key)
    return {"trajectory_id": str(get("trajectory_id")), "dimension": str(get("dimension")),
            "to_tier": str(get("to_tier"))}  # Tier is a StrEnum: str() is its letter


def tier_frame(fp: pl.DataFrame, profiles: Mapping[str, Profile],
               perturbations: Iterable[Mapping[str, Any] | Any] | None = None) -> pl.DataFrame:
    """`fp` plus each trajectory's true tier per dimension (tier_A..tier_F; a perturbed trajectory has its
    shifted tier in the perturbed dimension), `perturbed` and `perturbed_dimension` (null when not)."""
    shifts = {s["trajectory_id"]: s for s in map(_shift, perturbations or [])}
    missing = sorted(set(fp["profile_id"]) - set(profiles))
    if missing:
        raise KeyError(f"tier_frame: no profile for {', '.join(missing)}")
    tagged = pl.DataFrame([(tid, s["dimension"]) for tid, s in shifts.items()], orient="row",
                          schema={"trajectory_id": pl.String, "perturbed_dimension": pl.String})
    tiers = trajectory_tiers(fp, profiles, shifts.values(), prefix="tier_").drop("profile_id")
    return (fp.join(tiers, on="trajectory_id").join(tagged, on="trajectory_id", how="left")
            .with_columns(perturbed=pl.col("perturbed_dimension").is_not_null()))


def feature_by_tier(frame: pl.DataFrame, feature: str) -> go.Figure:
    """Box + points of one feature per tier of its dimension; the title gives the expected order and its AUC."""
    d = FEATURE_DEFINITIONS[feature]
    column = f"tier_{FEATURE_DIMENSION[feature]}"
    fig = go.Figure()
    for tier in TIERS:
        part = frame.filter(pl.col(column) == tier)
        fig.add_trace(go.Box(y=part[feature].to_list(), name=tier, boxpoints="all", jitter=0.5, pointpos=0,
                             marker=dict(color=TIER_MARKER[tier], size=5, opacity=0.6), line=dict(width=1.5),
                             hovertext=part["trajectory_id"].to_list(), showlegend=False))
    high, low = (frame.filter(pl.col(column) == t)[feature].to_list() for t in (d.high, d.low))
    fig.update_layout(
        title=f"{feature} by tier of {d.dimension} {DIMENSIONS[d.dimension].name}: expected {d.high} > {d.low}, "
              f"AUC {auc(high, low):.2f}",
        template="plotly_white", height=420, margin=dict(l=10, r=10, t=50, b=40))
    fig.update_xaxes(title=f"tier of {d.dimension} (ground truth; perturbed sessions at their shifted tier)")
    fig.update_yaxes(title=feature)
    return fig


def feature_matrix(frame: pl.DataFrame) -> np.ndarray:
    """The 17 features, log1p on counts and sizes, each column standardised (constant columns become 0)."""
    x = frame.select(pl.col(f).log1p() if f not in RATIO_FEATURES else pl.col(f) for f in FEATURES)
    x = x.fill_null(0.0).to_numpy().astype(float)
    std = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(std > 0, std, 1.0)


def pca_2d(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First two principal components of centred `x` by SVD: coordinates, explained-variance shares, loadings.

    Signs are fixed so each component's largest loading is positive (same input, same picture)."""
    x = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    share = s ** 2 / (float((s ** 2).sum()) or 1.0)
    pad = max(0, 2 - len(vt))  # fewer than two sessions: a flat second axis
    vt, share = np.vstack([vt[:2], np.zeros((pad, x.shape[1]))]), np.concatenate([share[:2], np.zeros(pad)])
    vt *= np.sign(vt[np.arange(2), np.abs(vt).argmax(axis=1)])[:, None]
    return x @ vt.T, share, vt


def _axis_title(k: int, share: float, loadings: np.ndarray) -> str:
    top = [FEATURES[i] for i in ranked(np.abs(loadings))[:2]]
    return f"PC{k + 1} ({share:.0%} of variance; mostly {', '.join(top)})"


def _colors(data: pl.DataFrame, color: str) -> dict[str, str]:
    if color.startswith("tier_"):
        return TIER_MARKER
    palette = qualitative.Alphabet
    keys = sorted(set(data[color]), key=lambda k: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", k)])
    return {key: palette[i % len(palette)] for i, key in enumerate(keys)}  # p2 before p10


def map_frame(frame: pl.DataFrame, deviation: pl.DataFrame | None = None) -> tuple[pl.DataFrame, list[str]]:
    """Ids, tiers, perturbation tags and pc1/pc2 of every session (+ drift columns), and the two axis titles."""
    coords, share, loadings = pca_2d(feature_matrix(frame))
    keep = [c for c in ("trajectory_id", "profile_id", "task_id", *TIER_COLUMNS, "perturbed",
                        "perturbed_dimension") if c in frame.columns]
    data = frame.select(keep).with_columns(pc1=pl.Series(coords[:, 0]).round(4),
                                           pc2=pl.Series(coords[:, 1]).round(4))
    if deviation is not None:
        data = data.join(deviation.select("trajectory_id", "deviation", "flagged", "judge", "shifted_features"),
                         on="trajectory_id", how="left")
    return data, [_axis_title(k, share[k], loadings[k]) for k in range(2)]


def _markers(part: pl.DataFrame) -> dict[str, Any]:
    perturbed = part["perturbed"].to_list() if "perturbed" in part.columns else [False] * part.height
    marker: dict[str, Any] = {"symbol": ["diamond" if p else "circle" for p in perturbed], "size": 9, "opacity": 0.8}
    if "deviation" in part.columns:
        marker["size"] = (5 + 2.5 * part["deviation"].fill_null(0).clip(0, 6)).to_list()  # 5 to 20 px
        flagged = part["flagged"].fill_null(False).to_list()
        marker["line"] = {"color": "black", "width": [2 if f else 0 for f in flagged]}
    return marker


def _hover(part: pl.DataFrame) -> list[str]:
    def line(row: dict[str, Any]) -> str:
        text = f"{row['trajectory_id']}<br>{row.get('task_id')}"
        if row.get("perturbed"):
            text += f"<br>perturbed: {row['perturbed_dimension']}"
        if row.get("deviation") is not None:
            text += f"<br>deviation {row['deviation']:.2f}{' FLAGGED' if row.get('flagged') else ''}"
            text += f" {row.get('judge') or ''}<br>shifted: {', '.join(row.get('shifted_features') or [])}"
        return text

    return [line(r) for r in part.iter_rows(named=True)]


def fingerprint_map(frame: pl.DataFrame, color: str = "profile_id",
                    deviation: pl.DataFrame | None = None) -> FigureData:
    """Every session on the first two principal components of its standardised fingerprint.

    Coloured by `color` (profile_id or tier_A..tier_F); perturbed sessions are diamonds; with a drift
    frame (`drift.drift`) marker size grows with deviation and flagged sessions get a black outline."""
    data, titles = map_frame(frame, deviation)
    colors = _colors(data, color)
    fig = go.Figure()
    for key, shade in colors.items():
        part = data.filter(pl.col(color) == key)
        if part.height:
            fig.add_trace(go.Scatter(x=part["pc1"].to_list(), y=part["pc2"].to_list(), mode="markers", name=key,
                                     marker={**_markers(part), "color": shade}, hovertext=_hover(part),
                                     hoverinfo="text"))
    for name, symbol, line in (("perturbed (diamond)", "diamond", 0), ("flagged (outline)", "circle", 2)):
        if line == 0 or deviation is not None:
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name, marker=dict(
                symbol=symbol, color="white", size=9, line=dict(color="black", width=line or 1))))
    fig.update_layout(title=f"Fingerprint map of {data.height} sessions, coloured by {color}",
                      template="plotly_white", height=560, legend_title=color, margin=dict(l=10, r=10, t=50, b=40))
    fig.update_xaxes(title=titles[0])
    fig.update_yaxes(title=titles[1])
    return FigureData(fig, data)


def perturbation_auc(frame: pl.DataFrame, deviation: pl.DataFrame) -> pl.DataFrame:
    """For deviation and task-adjusted deviation: AUC(perturbed > normal sessions) and flag rates of each."""
    data = frame.select("trajectory_id", "perturbed").join(deviation, on="trajectory_id", how="inner")
    pert, normal = data.filter(pl.col("perturbed")), data.filter(~pl.col("perturbed"))
    return pl.DataFrame([
        {"score": score, "perturbed": pert.height, "normal": normal.height,
         "auc": round(auc(pert[score].to_list(), normal[score].to_list()), 3),
         "flagged_perturbed": round(float(pert["flagged"].mean() or 0), 3),
         "flagged_normal": round(float(normal["flagged"].mean() or 0), 3)}
        for score in ("deviation", "task_adjusted_deviation")])


def compare_frame(fp: pl.DataFrame, a: str, b: str) -> pl.DataFrame:
    """Per feature: mean of persona a's and b's sessions, difference (a - b), and that difference in units of
    the feature's standard deviation over all sessions of `fp` (null where the feature never varies)."""
    for pid in (a, b):
        if pid not in set(fp["profile_id"]):
            raise KeyError(f"compare_personas: no sessions of {pid!r} in the fingerprint frame")
    mean = {pid: fp.filter(pl.col("profile_id") == pid).select(FEATURES).mean().row(0) for pid in (a, b)}
    std = fp.select(pl.col(FEATURES).std(ddof=1)).row(0)
    rows = []
    for i, f in enumerate(FEATURES):
        diff = mean[a][i] - mean[b][i]
        spread = std[i] if std[i] is not None and std[i] > 0 else None
        rows.append({"feature": f, "dimension": FEATURE_DIMENSION[f], f"mean_{a}": round(mean[a][i], 3),
                     f"mean_{b}": round(mean[b][i], 3), "difference": round(diff, 3),
                     "standardised": round(diff / spread, 3) if spread else None})
    return pl.DataFrame(rows)


def compare_personas(fp: pl.DataFrame, a: str, b: str) -> FigureData:
    """`compare_frame` and a bar per feature of the standardised difference, coloured by dimension."""
    data = compare_frame(fp, a, b)
    fig = go.Figure(go.Bar(
        x=data["standardised"].fill_null(0).to_list(), y=[f"{d} · {f}" for d, f in data.select("dimension", "feature")
                                                          .iter_rows()], orientation="h",
        marker_color=[DIMENSION_COLORS[d] for d in data["dimension"]],
        customdata=data.select(f"mean_{a}", f"mean_{b}", "dimension").rows(),
        hovertemplate="%{y} (%{customdata[2]})<br>" + f"{a}: " + "%{customdata[0]}<br>" + f"{b}: "
                      + "%{customdata[1]}<br>%{x:.2f} sd<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title=None)
    fig.update_xaxes(title=f"{a} − {b}, in standard deviations over all sessions", zeroline=True)
    fig.update_layout(title=f"{a} vs {b}: mean fingerprint difference", template="plotly_white", height=520,
                      margin=dict(l=10, r=10, t=50, b=40))
    return FigureData(fig, data)
