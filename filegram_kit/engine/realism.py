"""Are personas trivially separable? Tier separability of a corpus, per dimension and task activation.

For each dimension one or two simple per-trajectory indicators (spec 5.3), e.g. searches per
consumption action for A, directories created for C, edits for D. For every pair of tiers the AUC
says how often a trajectory of the higher-signal tier scores above one of the other: 0.5 is chance,
1.0 is perfect separation. A realistic corpus separates tiers where the task activates the dimension
(paper Table 10) and hardly at all where it does not, and adjacent tiers overlap (AUC well below 1).
Ground truth (persona tiers, perturbations) is read here only to score the corpus, never by memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import polars as pl

from ..traces.profiles import load_profiles
from ..traces.schema import Profile
from ..traces.tasks import load_tasks

# indicator -> (dimension, polars expression over one trajectory's cleaned events)
_CONSUME = pl.col("event_type").is_in(["file_read", "file_browse", "file_search"]).sum().clip(1)
_CREATE = (pl.col("event_type") == "file_write") & (pl.col("operation") == "create")
INDICATORS: dict[str, tuple[str, pl.Expr]] = {
    "search_ratio": ("A", (pl.col("event_type") == "file_search").sum() / _CONSUME),
    "revisit_ratio": ("A", ((pl.col("event_type") == "file_read") & (pl.col("view_count") > 1)).sum()
                      / (pl.col("event_type") == "file_read").sum().clip(1)),
    "output_chars": ("B", pl.col("content_length").filter(_CREATE).sum()),
    "files_created": ("B", _CREATE.sum()),
    "dirs_created": ("C", (pl.col("event_type") == "dir_create").sum()),
    "max_dir_depth": ("C", pl.col("depth").filter(pl.col("event_type") == "dir_create").max().fill_null(0)),
    "edits": ("D", (pl.col("event_type") == "file_edit").sum()),
    "deletes": ("E", (pl.col("event_type") == "file_delete").sum()),
    "images_and_data": ("F", (_CREATE & pl.col("file_type").is_in(["png", "jpg", "jpeg", "svg", "gif", "csv",
                                                                    "json", "xlsx"])).sum()),
}
# which tier shows more of the indicator (the AUC is oriented so that 1.0 = that order always holds)
_HIGHER = {"A": {"search_ratio": "M", "revisit_ratio": "L"}, "B": "L", "C": "L", "D": "L", "E": "L", "F": "L"}


def indicator_frame(events: pl.DataFrame) -> pl.DataFrame:
    """One row per trajectory: trajectory_id, profile_id, task_id and each indicator."""
    return (events.group_by("trajectory_id", "profile_id", "task_id", maintain_order=True)
            .agg(*(expr.cast(pl.Float64).alias(name) for name, (_, expr) in INDICATORS.items())))


def auc(high: Iterable[float], low: Iterable[float]) -> float:
    """P(a random `high` value > a random `low` one), ties counting half; NaN when a side is empty."""
    a, b = np.asarray(list(high), float), np.asarray(list(low), float)
    if not a.size or not b.size:
        return float("nan")
    return float((a[:, None] > b[None, :]).mean() + 0.5 * (a[:, None] == b[None, :]).mean())


def _true_tiers(frame: pl.DataFrame, profiles: dict[str, Profile], shifts: dict[str, dict]) -> pl.DataFrame:
    rows = []
    for tid, pid in frame.select("trajectory_id", "profile_id").iter_rows():
        tiers = {d: t.value for d, t in profiles[pid].tiers.items()}
        if tid in shifts:
            tiers[shifts[tid]["dimension"]] = shifts[tid]["to_tier"]
        rows.append({"trajectory_id": tid, **{f"tier_{d}": t for d, t in tiers.items()}})
    return frame.join(pl.DataFrame(rows), on="trajectory_id")


def separability(events: pl.DataFrame, *, profiles: dict[str, Profile] | None = None,
                 perturbations: list[dict] | None = None) -> pl.DataFrame:
    """AUC between tiers per indicator, on tasks that fully activate its dimension vs tasks that do not."""
    profiles = profiles or load_profiles()
    tasks = load_tasks()
    shifts = {p["trajectory_id"]: p for p in perturbations or []}
    frame = _true_tiers(indicator_frame(events), profiles, shifts)
    rows = []
    for name, (dim, _) in INDICATORS.items():
        higher = _HIGHER[dim] if isinstance(_HIGHER[dim], str) else _HIGHER[dim][name]
        order = ["L", "M", "R"] if higher == "L" else ["M", "L", "R"]
        active = frame["task_id"].map_elements(lambda t, d=dim: d in tasks[t].dims_full, return_dtype=pl.Boolean)
        for scope, mask in (("active", active), ("inactive", ~active)):
            part = frame.filter(mask)
            values = {t: part.filter(pl.col(f"tier_{dim}") == t)[name].to_list() for t in "LMR"}
            rows.append({"dimension": dim, "indicator": name, "tasks": scope, "n": part.height,
                         **{f"mean_{t}": round(float(np.mean(values[t])), 3) if values[t] else None for t in "LMR"},
                         f"auc_{order[0]}>{order[1]}": round(auc(values[order[0]], values[order[1]]), 3),
                         f"auc_{order[1]}>{order[2]}": round(auc(values[order[1]], values[order[2]]), 3),
                         f"auc_{order[0]}>{order[2]}": round(auc(values[order[0]], values[order[2]]), 3)})
    return _tidy(rows)


def _tidy(rows: list[dict]) -> pl.DataFrame:
    """Name the AUC columns by position (first > second tier, ...) so A's M-first order fits one schema."""
    out = []
    for row in rows:
        aucs = [(k, v) for k, v in row.items() if k.startswith("auc_")]
        base = {k: v for k, v in row.items() if not k.startswith("auc_")}
        out.append({**base, "order": aucs[0][0][4:].replace(">", " > ") + " > " + aucs[1][0][4:].split(">")[1],
                    "auc_adjacent_1": aucs[0][1], "auc_adjacent_2": aucs[1][1], "auc_extremes": aucs[2][1]})
    return pl.DataFrame(out)


def corpus_separability(corpus: str | Path) -> pl.DataFrame:
    """`separability` of a corpus folder built by `build_corpus` (reads its perturbations.json)."""
    from ..store import behaviour

    corpus = Path(corpus)
    frame = behaviour(corpus, progress=False)[0].collect()  # events_frame(clean(...)), the store where current
    manifest = corpus / "perturbations.json"
    shifts = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else []
    personas = load_profiles(corpus / "profiles.json") if (corpus / "profiles.json").is_file() else None
    return separability(frame, profiles=personas, perturbations=shifts)
