"""Readable KnowAct tables from the per-case table: rates with CIs and counts, attribution shares, a worked case.

    print(format_report(cases))          # what `filegram knowact` prints
    summary_table(cases)                 # one row per method: Know / Act / Utilization cells + attribution
    worked_case(pick_worked_case(cases), out)   # trees before/after of one case's act runs
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from ..knowact.metrics import CATEGORIES, attribution_shares, paired_differences, rates
from ..util.cluster_ci import with_no_ci_note


def _cell(estimate: float | None, lo: float | None, hi: float | None) -> str:
    """'52.8 [49.1, 56.3]'; a rate without bounds has them from too few personas (`knowact.metrics`)."""
    if estimate is None:
        return "n/a"
    text = f"{estimate:.1f}"
    return f"{text} [{lo:.1f}, {hi:.1f}]" if lo is not None and hi is not None else with_no_ci_note(text)


def _cells(column: str, label: str, show=_cell) -> pl.Expr:
    """`column` with its `_lo` / `_hi` bounds as one display cell named `label`."""
    return pl.struct(column, f"{column}_lo", f"{column}_hi").map_elements(
        lambda r: show(r[column], r[f"{column}_lo"], r[f"{column}_hi"]), return_dtype=pl.String).alias(label)


def rate_cells(frame: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """`rates` as display cells: 'estimate [lo, hi]' with the counts beside each rate."""
    return frame.select(
        *by, "n", "personas", _cells("know_acc", "Know"), _cells("act_acc", "Act"),
        _cells("utilization", "Utilization"),
        pl.format("{} / {}", "n_kp_ap", pl.col("n_kp_ap") + pl.col("n_kp_af")).alias("KP-AP / KP"),
        *[_cells(c, label) for c, label in (("know_free", "Know free-form"), ("know_observer", "Know observer"),
                                            ("act_strict", "Act strict"), ("act_ceiling", "Act ceiling"),
                                            ("act_unconveyed", "Act, tier not conveyed"))])


def _diff(estimate: float | None, lo: float | None, hi: float | None) -> str:
    if estimate is None:
        return ""
    text = f"{estimate:+.1f}"
    return f"{text} [{lo:+.1f}, {hi:+.1f}]" if lo is not None and hi is not None else with_no_ci_note(text)


def summary_table(cases: pl.DataFrame, *, n_boot: int = 1000, reference: str = "filegramos") -> pl.DataFrame:
    """Per method: Know, Act, Utilization (95% persona CIs), counts, Act minus `reference` on the same cases
    (paired), and the KP-AF attribution shares with CIs, beside the share whose told runs fail too (the
    instrument's misses)."""
    cells = rate_cells(rates(cases, n_boot=n_boot), ["method"])
    paired = paired_differences(cases, reference, n_boot=n_boot)
    if paired.height:
        diffs = paired.select("method", _cells("act_diff", f"Act - {reference}", _diff))
        cells = cells.join(diffs, on="method", how="left", maintain_order="left")
    shares = attribution_shares(cases, n_boot=n_boot).select(
        "method", pl.col("n_kp_af").alias("KP-AF"),
        *[_cells(c, f"{label} %") for c, label in [*((c, c) for c in CATEGORIES),
                                                    ("instrument_miss", "told runs fail too")]])
    return cells.join(shares, on="method", how="left", maintain_order="left")


def instrument_table(cases: pl.DataFrame, *, n_boot: int = 1000) -> pl.DataFrame:
    """Per dimension, and over all: what the Act instrument can see, whatever the memory. The Act ceiling and its
    strict variant (the runs told the true tier; one row per (persona, dimension): the first method's), the
    mean share of runs read as the user's tier one by one for zero memory and for the told runs, and Act over
    the cases whose tier no context conveyed, pooled over the methods (false passes)."""
    first = cases.filter(pl.col("method") == cases["method"][0])
    pooled = cases.with_columns(pl.lit("all").alias("method"))
    keys = ["dimension"]
    parts = []
    for told, everyone in ((first, pooled), (first.with_columns(pl.lit("all").alias("dimension")),
                                             pooled.with_columns(pl.lit("all").alias("dimension")))):
        ceiling = rate_cells(rates(told, by=keys, n_boot=n_boot), keys).select("dimension", "n", "Act ceiling")
        strict = told.group_by(keys).agg(
            (100 * pl.col("oracle_preference_strict").mean()).round(1).alias("Act ceiling, strict"),
            pl.col("zero_share").mean().round(3).alias("zero-memory runs read as the user"),
            pl.col("oracle_preference_share").mean().round(3).alias("told runs read as the user"))
        false = rates(everyone, by=keys, n_boot=n_boot).select(
            "dimension", pl.col("n_unconveyed").alias("cases, tier not conveyed"),
            _cells("act_unconveyed", "Act, tier not conveyed"))
        parts.append(ceiling.join(strict, on=keys).join(false, on=keys).sort("dimension"))
    return pl.concat(parts)


def _text(frame: pl.DataFrame) -> str:
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, tbl_hide_dataframe_shape=True,
                   tbl_hide_column_data_types=True, fmt_str_lengths=40):
        return str(frame)


def format_report(cases: pl.DataFrame) -> str:
    """The run's numbers as text: per method, per evidence strength, and the attribution shares."""
    parts = ["Know / Act / Utilization per method (%, 95% persona-clustered CI; KP-AF = Know-pass/Act-fail cases "
             "and the share of each failure):", _text(summary_table(cases)), "",
             "By evidence strength (how visible the dimension was in the ingested sessions):",
             _text(rate_cells(rates(cases, by=["method", "evidence"]), ["method", "evidence"])), "",
             "Cases whose true tier is the engine's neutral default (a zero-memory agent does not know it is "
             "wanted, so they can pass):",
             _text(rate_cells(rates(cases, by=["method", "true_is_neutral"]), ["method", "true_is_neutral"])), "",
             "The instrument per dimension (the runs told the true tier, and false passes):",
             _text(instrument_table(cases))]
    return "\n".join(parts) + "\n"


def pick_worked_case(cases: pl.DataFrame, method: str = "filegramos", dimension: str = "C") -> dict[str, Any]:
    """A case to show: `method`'s first Know-pass/Act-pass case on `dimension` whose true tier is not the
    neutral default and whose zero-memory run reads otherwise (the act visibly differs), relaxing those
    conditions in turn, else its first Act-pass case, else its first case."""
    mine = cases.filter(pl.col("method") == method) if method in cases["method"] else cases
    shown = pl.col("act_pass") & pl.col("know_pass") & ~pl.col("true_is_neutral")
    for rule in (shown & (pl.col("dimension") == dimension) & (pl.col("zero_tier") != pl.col("true_tier")),
                 shown & (pl.col("dimension") == dimension), shown, pl.col("act_pass"), pl.lit(True)):
        found = mine.filter(rule)
        if found.height:
            return found.row(0, named=True)
    raise ValueError("no cases to pick from")


def worked_case(case: dict[str, Any], out: str | Path) -> dict[str, Any]:
    """The case's act trajectories as trees before / after (from their fs snapshots) and their readings."""
    from ..traces.load import load_trajectories
    from .trace_views import snapshot_listing, tree_text

    out = Path(out)
    shown: dict[str, Any] = {"case": case}
    for run in ("memory", "zero"):
        traj = load_trajectories(out / case[f"{run}_trajectory"], progress=False, check_media=False)[0]
        before, after = snapshot_listing(traj, 0), snapshot_listing(traj, -1)
        shown[f"{run}_tree"] = tree_text(after, before=before)
    return shown
