"""The realism check: tier separability per dimension, on tasks that activate it and tasks that do not."""

from __future__ import annotations

import math

import polars as pl

from filegram_kit.engine.realism import INDICATORS, auc, separability
from filegram_kit.traces.profiles import load_profiles


def test_auc_counts_wins_and_half_ties():
    assert auc([2, 3], [1]) == 1.0 and auc([1], [2, 3]) == 0.0
    assert auc([1, 2], [1, 2]) == 0.5
    assert math.isnan(auc([], [1]))


def _frame(edits_by_tier: dict[str, int], task: str) -> list[dict]:
    rows = []
    for profile in load_profiles().values():
        tid = f"{profile.id}_{task}"
        for _ in range(edits_by_tier[profile.tiers["D"].value]):
            rows.append({"trajectory_id": tid, "profile_id": profile.id, "task_id": task, "event_type": "file_edit",
                         "operation": None, "view_count": None, "content_length": None, "depth": None,
                         "file_type": "md"})
        rows.append({"trajectory_id": tid, "profile_id": profile.id, "task_id": task, "event_type": "file_read",
                     "operation": None, "view_count": 1, "content_length": 100, "depth": 0, "file_type": "md"})
    return rows


def test_separability_sees_signal_only_where_the_task_activates_the_dimension():
    events = pl.DataFrame(_frame({"L": 6, "M": 2, "R": 0}, "T-11") + _frame({"L": 1, "M": 1, "R": 1}, "T-01"))
    table = separability(events).filter(pl.col("indicator") == "edits")
    active = table.filter(pl.col("tasks") == "active").row(0, named=True)
    inactive = table.filter(pl.col("tasks") == "inactive").row(0, named=True)
    assert (active["auc_adjacent_1"], active["auc_adjacent_2"], active["auc_extremes"]) == (1.0, 1.0, 1.0)
    assert (inactive["auc_adjacent_1"], inactive["auc_extremes"]) == (0.5, 0.5)
    assert active["mean_L"] == 6 and active["n"] == 20


def test_a_perturbation_moves_its_trajectory_to_the_shifted_tier():
    events = pl.DataFrame(_frame({"L": 6, "M": 2, "R": 0}, "T-11"))
    p1 = next(p for p in load_profiles().values() if p.tiers["D"].value == "L")
    shift = [{"trajectory_id": f"{p1.id}_T-11", "dimension": "D", "to_tier": "R"}]  # but it edited like an L
    shifted = separability(events, perturbations=shift).filter(pl.col("indicator") == "edits", pl.col("tasks") ==
                                                              "active").row(0, named=True)
    assert shifted["auc_adjacent_2"] < 1.0 and shifted["mean_R"] > 0


def test_every_dimension_has_an_indicator():
    assert {dim for dim, _ in INDICATORS.values()} == set("ABCDEF")
