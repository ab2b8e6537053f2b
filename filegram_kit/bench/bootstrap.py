"""Uncertainty for every Table 3 number: persona-clustered bootstrap CIs and paired method differences.

    scores = bootstrap_scores(results)              # long: method row x column -> estimate, lo, hi
    diffs = paired_differences(results)             # long: method - filegramos on shared items -> diff, lo, hi
    print(format_table3(ci_table(scores)))          # Table 3's columns, cells like "52.8 [49.1, 56.3]"

Why clustered: items about one persona share that persona's traces, so their outcomes are correlated
(a method that misreads one persona fails many of its items). The sampling unit is the persona, not
the item; an item bootstrap would report intervals that are too narrow. Definitions:

- Points per row follow `score.row_points`: MCQ score x 100, free-form ProfRec Likert (0-100) as is,
  no score (an error) = 0. A method row is (method, params_hash, backend, model), as in `score.table3`.
- A column's score for one item seed (`item_seed`, the seed the items were generated with) is the mean
  points over that seed's rows of the column: sub-task columns by `sub_track`; channel columns
  Proc/Sem/Epi over the multiple-choice rows of that channel only; Avg = the unweighted mean of the
  sub-task columns that have items. Over several item seeds the column's score is the mean of the
  per-seed scores; a seed without items in a column is left out of that column's mean. With one item
  seed every estimate equals `score.table3`'s number (which rounds to one decimal).
- 95% CI (`level`): a replicate draws the personas (`profile_id`) with replacement, one draw shared by
  every seed, column and method row of that replicate; a row's weight is how often its persona was
  drawn, every column is recomputed as a weighted mean, and the interval is the percentile interval
  of the replicates. A seed (or Avg sub-task) whose personas were all left out of a replicate is left
  out of that replicate's mean, as in the estimate. Too few clusters: a column whose items are about
  fewer than 5 personas (`util.cluster_ci.MIN_CLUSTERS`) gets null lo/hi and `few_personas` = True
  (a few clusters give a handful of distinct replicates: "35.0 [35.0, 35.0]" from 2 personas would read
  as certainty); `ci_table` then shows the estimate with "CI needs ≥5 personas". A column without items
  gets null estimate/lo/hi and n_items = 0.
- Paired differences: every other method row with the reference's backend and model, minus the
  reference, on the items both answered (inner join on item_seed + question_id; an item's points are
  first averaged over run seeds, the results' `seed` column). The difference is a column score
  computed from per-item differences, so each replicate recomputes both methods on the same personas.
  `p_boot` is a bootstrap sign share, not an exact test: twice the fraction of (non-null) replicates
  whose difference does not have the estimate's sign (replicates at exactly 0 count against it),
  capped at 1; 1.0 when the difference is 0. Backend/model pairs without a reference row are absent.

Vectorised: per (method row, seed, column) the rows collapse to per-persona sums and counts; a
replicate's numerators and denominators are then one matrix product with the (n_boot, n_personas)
multinomial weight matrix, so the cost does not grow with the number of rows.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl

from ..util.cluster_ci import MIN_CLUSTERS, with_no_ci_note
from .score import CHANNEL_COLUMNS, METHOD_LABELS, SUB_TASKS, row_points  # row_points: the house per-row points rule

KEYS = ["method", "params_hash", "backend", "model"]
BASE_COLUMNS = [*SUB_TASKS.values(), *CHANNEL_COLUMNS.values()]  # columns computed from rows
STAT_COLUMNS = [*BASE_COLUMNS, "Avg"]  # Table 3's score columns, in its order
REQUIRED = (*KEYS, "question_id", "item_seed", "profile_id", "sub_track", "channel", "mcq", "score")
_N_SUB = len(SUB_TASKS)
_BLOCK = 2_000_000  # floats per (replicates x cells) block: bounds memory with many method rows


def _prepare(results: pl.DataFrame) -> pl.DataFrame:
    """Rows with `points`; a clear error when a column the bootstrap needs is missing or null."""
    missing = [c for c in REQUIRED if c not in results.columns]
    if missing:
        raise ValueError(f"results frame lacks column(s) {missing}: the bootstrap needs each row's persona "
                         "(profile_id) and item-generation seed (item_seed)")
    for col in ("item_seed", "profile_id"):
        bad = results.filter(pl.col(col).is_null())
        if bad.height:
            first = bad.row(0, named=True)
            raise ValueError(f"{bad.height} result row(s) have no {col} (first: method {first['method']!r}, "
                             f"question_id {first['question_id']!r}); every row must name it to be resampled")
    return row_points(results).with_columns(pl.col("item_seed").cast(pl.Int64), pl.col("profile_id").cast(pl.String))


def _membership(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per (result row, column it counts in): its sub-task column, and its channel column if MCQ."""
    base = [*KEYS, "item_seed", "profile_id", "points"]
    sub = pl.col("sub_track").replace_strict(SUB_TASKS, default=None, return_dtype=pl.String)
    chan = pl.col("channel").replace_strict(CHANNEL_COLUMNS, default=None, return_dtype=pl.String)
    return pl.concat([frame.select(*base, sub.alias("column")),
                      frame.filter(pl.col("mcq")).select(*base, chan.alias("column"))]).filter(
        pl.col("column").is_not_null())


def _nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    """Mean over the non-NaN entries; NaN where there are none (without numpy's all-NaN warning)."""
    ok = ~np.isnan(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, x, 0.0).sum(axis) / ok.sum(axis)


def _column_scores(totals: np.ndarray, counts: np.ndarray, weights: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """(replicates, groups, STAT_COLUMNS) scores from per-cell persona sums/counts and persona weights."""
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0: no drawn persona has items in that cell
        per_seed = (weights @ totals.T) / (weights @ counts.T)
    per_seed = per_seed.reshape(len(weights), *shape, len(BASE_COLUMNS))
    avg = _nanmean(per_seed[..., :_N_SUB], axis=-1)
    return _nanmean(np.concatenate([per_seed, avg[..., None]], axis=-1), axis=2)


def _cells(member: pl.DataFrame, groups: pl.DataFrame, personas: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """Per (group, seed, column) x persona: summed points and row counts, as dense matrices."""
    seeds = member["item_seed"].unique().sort()
    coded = (member.join(groups, on=KEYS, nulls_equal=True)
             .join(pl.DataFrame({"item_seed": seeds}).with_row_index("s"), on="item_seed")
             .join(pl.DataFrame({"profile_id": personas}, schema={"profile_id": pl.String}).with_row_index("p"),
                   on="profile_id")
             .join(pl.DataFrame({"column": BASE_COLUMNS}).with_row_index("c"), on="column")
             .group_by("g", "s", "c", "p").agg(pl.col("points").sum().alias("total"), pl.len().alias("count")))
    n_seeds = max(len(seeds), 1)
    cell = ((coded["g"].cast(pl.Int64) * n_seeds + coded["s"]) * len(BASE_COLUMNS) + coded["c"]).to_numpy()
    totals = np.zeros((groups.height * n_seeds * len(BASE_COLUMNS), len(personas)))
    counts = np.zeros_like(totals)
    totals[cell, coded["p"].to_numpy()] = coded["total"].to_numpy()
    counts[cell, coded["p"].to_numpy()] = coded["count"].to_numpy()
    return totals, counts, n_seeds


def _counts(member: pl.DataFrame, groups: pl.DataFrame) -> pl.DataFrame:
    """n_items, n_personas and the item seeds used, per (group, column); Avg pools the sub-task rows."""
    aggs = [pl.len().alias("n_items"), pl.col("profile_id").n_unique().alias("n_personas"),
            pl.col("item_seed").unique().sort().alias("item_seeds")]
    coded = member.join(groups, on=KEYS, nulls_equal=True)
    avg = coded.filter(pl.col("column").is_in(list(SUB_TASKS.values()))).group_by("g").agg(aggs)
    return pl.concat([coded.group_by("g", "column").agg(aggs),
                      avg.with_columns(pl.lit("Avg").alias("column")).select("g", "column", *avg.columns[1:])])


def _bootstrap(member: pl.DataFrame, groups: pl.DataFrame, personas: list[str], *, n_boot: int, seed: int,
               level: float) -> tuple[pl.DataFrame, np.ndarray]:
    """Estimate, percentile CI and counts per (group, column), plus the (n_boot, groups, columns) replicates."""
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"need n_boot >= 1 and 0 < level < 1, got n_boot={n_boot}, level={level}")
    groups = groups.with_row_index("g")
    totals, counts, n_seeds = _cells(member, groups, personas)
    shape = (groups.height, n_seeds)
    estimate = _column_scores(totals, counts, np.ones((1, len(personas))), shape)[0]
    n_personas = len(personas)
    weights = np.random.default_rng(seed).multinomial(n_personas, np.full(n_personas, 1 / n_personas),
                                                       size=n_boot).astype(np.float64)
    block = max(1, _BLOCK // max(totals.shape[0], 1))
    reps = np.concatenate([_column_scores(totals, counts, weights[i:i + block], shape)
                           for i in range(0, n_boot, block)])
    with warnings.catch_warnings():  # columns without items: all replicates NaN -> NaN interval
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanpercentile(reps, [50 * (1 - level), 50 * (1 + level)], axis=0)
    out = pl.DataFrame({"g": np.repeat(np.arange(groups.height, dtype=np.uint32), len(STAT_COLUMNS)),
                        "column": STAT_COLUMNS * groups.height, "estimate": estimate.ravel(),
                        "lo": lo.ravel(), "hi": hi.ravel()}, nan_to_null=True)
    out = (out.join(_counts(member, groups), on=["g", "column"], how="left", maintain_order="left")
           .join(groups, on="g", maintain_order="left")
           .with_columns(pl.col("n_items", "n_personas").fill_null(0).cast(pl.Int64),
                         pl.col("item_seeds").fill_null(pl.lit([], dtype=pl.List(pl.Int64))))
           .with_columns((pl.col("n_personas") < MIN_CLUSTERS).alias("few_personas")))
    bound = pl.when(~pl.col("few_personas"))  # too few clusters: no interval worth reporting
    out = out.with_columns(bound.then(pl.col("lo")).alias("lo"), bound.then(pl.col("hi")).alias("hi"))
    return out, reps


def _personas(frame: pl.DataFrame) -> list[str]:
    return frame["profile_id"].unique().sort().to_list()


def bootstrap_scores(results: pl.DataFrame, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> pl.DataFrame:
    """Every Table 3 score with its persona-clustered bootstrap CI, one row per (method row, column).

    Columns: method, params_hash, backend, model, column, estimate, lo, hi, n_items, n_personas,
    few_personas (fewer than 5: lo and hi null), item_seeds (the seeds that have items in that column). See
    the module docstring.
    """
    schema = {**dict.fromkeys(KEYS, pl.String), "column": pl.String, "estimate": pl.Float64, "lo": pl.Float64,
              "hi": pl.Float64, "n_items": pl.Int64, "n_personas": pl.Int64, "few_personas": pl.Boolean,
              "item_seeds": pl.List(pl.Int64)}
    if results.is_empty():
        return pl.DataFrame(schema=schema)
    frame = _prepare(results)
    groups = frame.select(KEYS).unique(maintain_order=True)
    out, _ = _bootstrap(_membership(frame), groups, _personas(frame), n_boot=n_boot, seed=seed, level=level)
    return out.select(list(schema)).cast(schema)


def _reference(items: pl.DataFrame, reference: str, params_hash: str | None) -> pl.DataFrame:
    """The reference method's items; one parameter set per backend/model, else a clear error."""
    ref = items.filter(pl.col("method") == reference)
    if params_hash is not None:
        ref = ref.filter(pl.col("params_hash") == params_hash)
    if ref.is_empty():
        raise ValueError(f"no result rows for the reference method {reference!r}"
                         + (f" with params_hash {params_hash!r}" if params_hash else ""))
    several = ref.group_by("backend", "model").agg(pl.col("params_hash").unique().sort()).filter(
        pl.col("params_hash").list.len() > 1)
    if several.height:
        row = several.row(0, named=True)
        raise ValueError(f"reference {reference!r} has several parameter sets on {row['backend']}/{row['model']} "
                         f"({row['params_hash']}); pass reference_params_hash= to pick one")
    return ref


def paired_differences(results: pl.DataFrame, *, reference: str = "filegramos",
                       reference_params_hash: str | None = None, n_boot: int = 2000, seed: int = 0,
                       level: float = 0.95) -> pl.DataFrame:
    """Method minus reference per column, on shared items, with a paired persona-clustered bootstrap CI.

    Columns: method, params_hash, backend, model, column, diff, lo, hi, p_boot (a bootstrap sign share,
    not an exact test), n_items (shared items), n_personas, few_personas. Same `seed` as
    `bootstrap_scores` -> the same persona draws, so both tables come from one set of replicates.
    """
    schema = {**dict.fromkeys(KEYS, pl.String), "column": pl.String, "diff": pl.Float64, "lo": pl.Float64,
              "hi": pl.Float64, "p_boot": pl.Float64, "n_items": pl.Int64, "n_personas": pl.Int64,
              "few_personas": pl.Boolean}
    if results.is_empty():
        return pl.DataFrame(schema=schema)
    frame = _prepare(results)
    items = frame.group_by(*KEYS, "item_seed", "question_id", maintain_order=True).agg(
        pl.col("points").mean(), pl.col("profile_id", "sub_track", "channel", "mcq").first())
    ref = _reference(items, reference, reference_params_hash)
    on = ["backend", "model"]
    others = (items.join(ref.select(on).unique(), on=on, how="semi", nulls_equal=True)
              .join(ref.select(KEYS).unique(), on=KEYS, how="anti", nulls_equal=True))
    if others.is_empty():
        return pl.DataFrame(schema=schema)
    pairs = others.join(ref.select(*on, "item_seed", "question_id", pl.col("points").alias("ref_points")),
                        on=[*on, "item_seed", "question_id"], how="inner", nulls_equal=True)
    pairs = pairs.with_columns(pl.col("points") - pl.col("ref_points"))
    groups = others.select(KEYS).unique(maintain_order=True)
    out, reps = _bootstrap(_membership(pairs), groups, _personas(frame), n_boot=n_boot, seed=seed, level=level)
    return out.with_columns(pl.Series("p_boot", _sign_share(out["estimate"].to_numpy(), reps),
                                      nan_to_null=True)).rename({"estimate": "diff"}).select(list(schema)).cast(schema)


def _sign_share(estimate: np.ndarray, reps: np.ndarray) -> np.ndarray:
    """Twice the share of replicates not on the estimate's side of 0, capped at 1 (NaN estimate -> NaN)."""
    reps = reps.reshape(len(reps), -1)
    against = np.where(estimate > 0, reps <= 0, reps >= 0) & ~np.isnan(reps)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = against.sum(0) / (~np.isnan(reps)).sum(0)
    p = np.minimum(1.0, 2 * share)
    p[estimate == 0] = 1.0
    p[np.isnan(estimate)] = np.nan
    return p


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _one(x: float) -> float:
    return round(x, 1) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0


def format_ci(estimate: float | None, lo: float | None, hi: float | None, *, few: bool = False) -> str:
    """'52.8 [49.1, 56.3]'; '52.8' without an interval; '52.8 (CI needs ≥5 personas)' when `few`; '–' (as
    Table 3 prints it) without an estimate."""
    if _missing(estimate):
        return "–"
    text = f"{_one(estimate):.1f}"
    if few:
        return with_no_ci_note(text)
    return text if _missing(lo) or _missing(hi) else f"{text} [{_one(lo):.1f}, {_one(hi):.1f}]"


def format_diff(diff: float | None, lo: float | None, hi: float | None, *, few: bool = False) -> str:
    """'-3.2 [-5.0, -1.1]', '+1.4 [0.2, 2.6]': the sign always shown, so a diff table reads at a glance;
    '+1.4 (CI needs ≥5 personas)' when `few`."""
    if _missing(diff):
        return "–"
    value = _one(diff)
    text = f"{value:+.1f}" if value else "0.0"
    if few:
        return with_no_ci_note(text)
    return text if _missing(lo) or _missing(hi) else f"{text} [{_one(lo):.1f}, {_one(hi):.1f}]"


def ci_table(long: pl.DataFrame) -> pl.DataFrame:
    """A long frame of `bootstrap_scores` or `paired_differences` as a wide Table-3-like frame of strings.

    Columns: method, params_hash, label, backend ("backend/model"), then STAT_COLUMNS, each cell
    format_ci / format_diff; `score.format_table3` renders it as Markdown (it hides method, params_hash).
    """
    value, fmt = ("diff", format_diff) if "diff" in long.columns else ("estimate", format_ci)
    few = long["few_personas"] if "few_personas" in long.columns else pl.Series([False] * long.height)
    cells = [fmt(v, lo, hi, few=bool(f))  # too few personas: the estimate and why there is no interval
             for v, lo, hi, f in zip(long[value], long["lo"], long["hi"], few, strict=True)]  # one per cell
    wide = (long.select(*KEYS, "column").with_columns(pl.Series("cell", cells, dtype=pl.String))
            .pivot(on="column", index=KEYS, values="cell", maintain_order=True))
    wide = wide.with_columns(pl.lit("–").alias(c) for c in STAT_COLUMNS if c not in wide.columns)
    label = pl.col("method").replace_strict(METHOD_LABELS, default=pl.col("method"), return_dtype=pl.String)
    several = pl.col("params_hash").n_unique().over("method") > 1
    return wide.select(
        "method", "params_hash",
        pl.when(several).then(pl.format("{} [{}]", label, pl.col("params_hash").str.slice(0, 6)))
        .otherwise(label).alias("label"),
        pl.format("{}/{}", "backend", "model").alias("backend"),
        *[pl.col(c).fill_null("–") for c in STAT_COLUMNS])
