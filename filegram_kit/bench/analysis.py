"""Table 3 as it should be read: every score with its persona-clustered 95% CI, each method's paired
difference from FileGramOS and from No Context, and the controls apart.

    parts = readout(load_results("runs/a"))      # {"methods", "differences", "vs_no_context", "controls"}
    print(format_readout(parts))

Controls are reference points, never ranked: a method is read against chance and choices_only (what the
options alone give), observer_traces (what the traces carry) and oracle_paraphrased(_b) (the shared reader
with a perfect memory written in other words). Rows of several item seeds
are pooled as the mean of per-seed scores (bootstrap.py).
"""

from __future__ import annotations

import polars as pl

from .bootstrap import bootstrap_scores, ci_table, paired_differences
from .score import FREE_FORM, SUB_TASKS, format_table3

REFERENCE = "filegramos"
FLOOR = "no_context"  # every method is also compared with the memory that holds nothing
MCQ_COLUMNS = [col for sub, col in SUB_TASKS.items() if sub not in FREE_FORM]
READER_LIMIT_SCHEMA = {"column": pl.String, "chance": pl.Float64, "observer_traces": pl.Float64,
                       "oracle_context": pl.Float64, "oracle_paraphrased": pl.Float64,
                       "oracle_paraphrased_b": pl.Float64, "needed": pl.Float64, "reader_limited": pl.Boolean,
                       "wording_gap": pl.Float64, "wording_bound": pl.Boolean}
WORDING_GAP_POINTS = 10.0  # the two paraphrase sets further apart than this: the reader has learnt a wording


def split_controls(results: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(method rows, control rows); rows written before the `control` column existed are method rows."""
    is_control = pl.col("control").fill_null(False) if "control" in results.columns else pl.lit(False)
    return results.filter(~is_control), results.filter(is_control)


def readout(results: pl.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> dict[str, pl.DataFrame]:
    """Wide string tables of the parts: methods, differences from FileGramOS, differences from No Context (does
    any memory beat holding nothing?), controls (a part without rows is an empty frame)."""
    methods, controls = split_controls(results)
    parts = {"methods": pl.DataFrame(), "differences": pl.DataFrame(), "vs_no_context": pl.DataFrame(),
             "controls": pl.DataFrame()}
    if methods.height:
        parts["methods"] = ci_table(bootstrap_scores(methods, n_boot=n_boot, seed=seed))
        for part, reference in (("differences", REFERENCE), ("vs_no_context", FLOOR)):
            if (methods["method"] == reference).any() and methods["method"].n_unique() > 1:
                parts[part] = ci_table(paired_differences(methods, reference=reference, n_boot=n_boot, seed=seed))
    if controls.height:
        parts["controls"] = ci_table(bootstrap_scores(controls, n_boot=n_boot, seed=seed))
    return parts


def reader_limits(control_table: pl.DataFrame) -> pl.DataFrame:
    """One row per multiple-choice column of a Table 3 frame of the controls (`score.table3`): its chance, what the
    traces carry (`observer_traces`, the evidence ceiling), its reading ceilings (`oracle_paraphrased`, the
    wording the reader is tuned on, and `oracle_paraphrased_b`, one it never is) and whether it is reader-limited:
    the lower ceiling below chance + READER_LIMIT_POINTS (the shared reader cannot read the truth in other words,
    so no ordering of methods on it means anything). `wording_bound` marks ceilings more than WORDING_GAP_POINTS
    apart: a reader that reads one wording and not the other. Columns without chance and oracle_paraphrased
    are left out; without oracle_paraphrased_b (rows of an older run) the first ceiling decides alone."""
    from .controls import READER_LIMIT_POINTS

    rows = {m: r for m, r in zip(control_table["method"], control_table.iter_rows(named=True), strict=True)}
    if "chance" not in rows or "oracle_paraphrased" not in rows:
        return pl.DataFrame(schema=READER_LIMIT_SCHEMA)
    out = []
    for column in MCQ_COLUMNS:
        chance, ceiling = rows["chance"].get(column), rows["oracle_paraphrased"].get(column)
        if chance is None or ceiling is None:
            continue
        worded = rows.get("oracle_context", {}).get(column)
        traces = rows.get("observer_traces", {}).get(column)
        second = rows.get("oracle_paraphrased_b", {}).get(column)
        gap = None if second is None else round(abs(ceiling - second), 1)
        lower = ceiling if second is None else min(ceiling, second)
        out.append({"column": column, "chance": chance, "observer_traces": traces, "oracle_context": worded,
                    "oracle_paraphrased": ceiling, "oracle_paraphrased_b": second,
                    "needed": round(chance + READER_LIMIT_POINTS, 1),
                    "reader_limited": lower < chance + READER_LIMIT_POINTS,
                    "wording_gap": gap, "wording_bound": gap is not None and gap > WORDING_GAP_POINTS})
    return pl.DataFrame(out, schema=READER_LIMIT_SCHEMA)


def pack_differences(a: pl.DataFrame, b: pl.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> pl.DataFrame:
    """Per method, its score on corpus B minus its score on corpus A, per Table 3 column, on the items both
    answered (the same items: a style pack changes the wording, not the facts items are built from), with a
    paired persona-clustered bootstrap CI. Long, like `paired_differences`, with `method` the A method."""
    a_methods, b_methods = split_controls(a)[0], split_controls(b)[0]
    out = []
    for method in a_methods["method"].unique(maintain_order=True).to_list():
        b_rows = b_methods.filter(pl.col("method") == method)
        if b_rows.is_empty():
            continue
        pair = pl.concat([a_methods.filter(pl.col("method") == method),
                          b_rows.with_columns(pl.lit(f"{method}@B").alias("method"))], how="diagonal_relaxed")
        diffs = paired_differences(pair, reference=method, n_boot=n_boot, seed=seed)
        out.append(diffs.with_columns(pl.lit(method).alias("method")))
    return pl.concat(out) if out else pl.DataFrame()


def format_readout(parts: dict[str, pl.DataFrame], *, seeds: list[int] | None = None) -> str:
    """Markdown of the three parts, each under a heading that says how to read it."""
    pooled = f" over item seeds {', '.join(map(str, seeds))}" if seeds and len(seeds) > 1 else ""
    out = []
    if parts["methods"].height:
        out += [f"Methods: score [95% CI, personas resampled]{pooled}", "", format_table3(parts["methods"])]
    if parts["differences"].height:
        out += [f"Paired difference from FileGramOS on the same items [95% CI]{pooled}", "",
                format_table3(parts["differences"])]
    if parts.get("vs_no_context", pl.DataFrame()).height:
        out += [f"Paired difference from No Context on the same items [95% CI]{pooled}", "",
                format_table3(parts["vs_no_context"])]
    if parts["controls"].height:
        out += ["Controls (reference points, never ranked): chance = 1 / options; choices_only = options alone; "
                "observer_traces = the ideal observer of the traces alone (what a perfect memory could reach); "
                "observer_engine = the ideal observer of the engine's record (100 by construction); oracle = the "
                "ground truth; oracle_context = the shared reader given the truth in the options' words; "
                "oracle_paraphrased = the truth in other words, oracle_paraphrased_b = in a wording the reader "
                "was never tuned on (the reading ceiling: a column below chance + 25 on either is reader-limited)",
                "", format_table3(parts["controls"])]
    return "\n".join(out)
