"""Know Acc, Act Acc, Utilization Rate and the failure-attribution shares, from the per-case table only.

    rates(cases)                              # per method: counts, the three rates, persona-clustered CIs
    rates(cases, by=["method", "evidence"])   # per method and evidence strength (or "dimension")
    attribution_shares(cases)                 # per method: retrieval / comprehension / application of KP-AF

Definitions (KnowAct, arXiv 2607.29433), one case = one (method, persona, dimension):
- Know Acc = N(know pass) / N;  Act Acc = N(act pass) / N;
- Utilization Rate = N(KP, AP) / (N(KP, AP) + N(KP, AF)): of what the memory knows, the share it acts on.
  Undefined (null) when nothing is known.
- Know observer = N(observer pass) / N: the calibrated reader on the mean fingerprint of the ingested
  sessions reads the user's tier (case.observer_tiers): what the traces show, whatever the memory does.
- Free-form Know = N(free-form pass) / N(asked): the memory describes the dimension's own attribute in its own
  words, judged by the value judge (know.free_know_items; dimension E has no own attribute and is not asked).
  No options to guess from, so its floor is near 0 where the 3-option Know's is 1/3.
- Act ceiling = N(oracle-preference pass) / N: how often the act runs *told* the true tier pass the same
  judge. It bounds Act Acc from above: what the instrument misses (the acting agent's expression noise,
  habits a few sessions rarely show, the reader's errors) even when the preference is handed over.
- Act strict = N(strict pass) / N: the memory runs read as the user's tier and the zero-memory runs do
  not (act.act_pass_strict), the variant that gives no credit where zero memory already reads right.
- Act unconveyed = N(act pass, tier not conveyed) / N(tier not conveyed): over the cases where no act
  task's context made the agent infer the user's tier, how often Act passes anyway. The instrument's
  false-pass rate: it should be near 0 (No Context is 0 by construction, its runs *are* the zero-memory runs).
Every rate comes with its counts, so a tiny denominator is visible, and a 95% CI from a persona
bootstrap: cases of one persona share that persona's memory, so the persona is the sampling unit and a
ratio's numerator and denominator are resampled together. From fewer than 5 personas the bounds are null
(`util.cluster_ci`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from ..util.cluster_ci import enough_clusters

CATEGORIES = ("retrieval", "comprehension", "application")
N_BOOT = 1000
OPTIONAL = {"act_ceiling": "oracle_preference_pass", "know_observer": "observer_pass",
            "act_strict": "act_pass_strict"}  # rate -> case column


def attribute(oracle_evidence_pass: bool, oracle_preference_pass: bool) -> str:
    """The failure category of one Know-pass / Act-fail case: exactly one of `CATEGORIES`.

    Passing with the oracle evidence means the memory held the habit but retrieval did not surface it;
    passing only when the preference is stated means the evidence was there but not understood; failing
    both means even a stated preference did not turn into the behaviour."""
    if oracle_evidence_pass:
        return "retrieval"
    if oracle_preference_pass:
        return "comprehension"
    return "application"


def _check(cases: pl.DataFrame, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in cases.columns]
    if missing:
        raise ValueError(f"cases table lacks column(s) {missing}; it is the table `run_knowact` writes")


def _cluster_ci(per_persona: np.ndarray, num: int, den: int, seed: int, n_boot: int) -> tuple[float | None, ...]:
    """(lo, hi) of sum(col num) / sum(col den) * 100 over persona resamples; (None, None) from fewer than
    `MIN_CLUSTERS` personas (a few clusters give a handful of distinct replicates, not an interval)."""
    n = per_persona.shape[0]
    if not enough_clusters(n):
        return None, None
    rng = np.random.default_rng(seed)
    weights = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(n_boot)])
    sums = weights @ per_persona
    ok = sums[:, den] > 0
    if not ok.any():
        return None, None
    ratio = 100.0 * sums[ok, num] / sums[ok, den]
    return float(np.percentile(ratio, 2.5)), float(np.percentile(ratio, 97.5))


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


def rates(cases: pl.DataFrame, by: Sequence[str] = ("method",), *, n_boot: int = N_BOOT, seed: int = 0) -> pl.DataFrame:
    """One row per group: n, Know/Act Acc, the KP-AP and KP-AF counts, Utilization Rate, the Act ceiling, the
    strict Act, the Know observer, free-form Know over the `n_free` cases asked and Act over the `n_unconveyed`
    cases whose tier no context conveyed (null without their case columns), each rate's CI."""
    by = list(by)
    _check(cases, [*by, "persona", "know_pass", "act_pass"])
    optional = {name: column in cases.columns for name, column in OPTIONAL.items()}
    free = "know_free_pass" in cases.columns
    told = {"inferred_tiers", "true_tier"} <= set(cases.columns)
    conveyed = pl.struct("inferred_tiers", "true_tier").map_elements(
        lambda r: any(t.rsplit(":", 1)[-1] == r["true_tier"] for t in (r["inferred_tiers"] or "").split()),
        return_dtype=pl.Boolean) if told else pl.lit(True)
    flags = cases.with_columns((pl.col("act_pass") & ~conveyed).cast(pl.Int64).alias("au"),
                               (~conveyed).cast(pl.Int64).alias("au_n"),
                               pl.col("know_pass").cast(pl.Int64).alias("kp"),
                               pl.col("act_pass").cast(pl.Int64).alias("ap"),
                               (pl.col("know_pass") & pl.col("act_pass")).cast(pl.Int64).alias("kp_ap"),
                               *[(pl.col(column) if optional[name] else pl.lit(None)).cast(pl.Int64).fill_null(0)
                                 .alias(name) for name, column in OPTIONAL.items()],
                               (pl.col("know_free_pass") if free else pl.lit(None)).cast(pl.Int64).fill_null(0)
                               .alias("kf"),
                               (pl.col("know_free_pass").is_not_null() if free else pl.lit(False)).cast(pl.Int64)
                               .alias("kf_n"))
    rows = []
    for key, group in flags.group_by(by, maintain_order=True):
        per = group.group_by("persona").agg(pl.len().alias("n"), pl.col("kp").sum(), pl.col("ap").sum(),
                                            pl.col("kp_ap").sum(), *[pl.col(c).sum() for c in OPTIONAL],
                                            pl.col("kf").sum(), pl.col("kf_n").sum(), pl.col("au").sum(),
                                            pl.col("au_n").sum()).sort("persona")
        m = per.select("n", "kp", "ap", "kp_ap", *OPTIONAL, "kf", "kf_n", "au", "au_n").to_numpy().astype(float)
        n, kp, ap, kp_ap, op, ob, st, kf, kf_n, au, au_n = (int(x) for x in m.sum(axis=0))
        row = dict(zip(by, key, strict=True))
        row.update(n=n, personas=per.height, know_acc=_pct(kp, n), act_acc=_pct(ap, n), n_kp_ap=kp_ap,
                   n_kp_af=kp - kp_ap, utilization=_pct(kp_ap, kp),
                   act_ceiling=_pct(op, n) if optional["act_ceiling"] else None,
                   know_observer=_pct(ob, n) if optional["know_observer"] else None,
                   act_strict=_pct(st, n) if optional["act_strict"] else None, n_free=kf_n,
                   know_free=_pct(kf, kf_n), n_unconveyed=au_n, act_unconveyed=_pct(au, au_n) if told else None)
        for name, (num, den) in {"know_acc": (1, 0), "act_acc": (2, 0), "utilization": (3, 1),
                                 "act_ceiling": (4, 0), "know_observer": (5, 0), "act_strict": (6, 0),
                                 "know_free": (7, 8), "act_unconveyed": (9, 10)}.items():
            ci = _cluster_ci(m, num, den, seed, n_boot) if row[name] is not None else (None, None)
            row[f"{name}_lo"], row[f"{name}_hi"] = ci
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def attribution_shares(cases: pl.DataFrame, by: Sequence[str] = ("method",), *, n_boot: int = N_BOOT,
                       seed: int = 0) -> pl.DataFrame:
    """Per group: the Know-pass / Act-fail cases, the share (%) of each failure category with a persona-bootstrap
    95% CI, and `instrument_miss`: the share whose runs *told* the true tier fail too (null without that column).
    Offline, a told agent applies the tier by construction, so those are the instrument's misses, booked as
    application failures by KnowAct's rule."""
    by = list(by)
    _check(cases, [*by, "persona", "know_pass", "act_pass", "attribution"])
    failed = cases.filter(pl.col("know_pass") & ~pl.col("act_pass"))
    bad = failed.filter(~pl.col("attribution").is_in(CATEGORIES) | pl.col("attribution").is_null())
    if bad.height:
        raise ValueError(f"{bad.height} Know-pass / Act-fail case(s) have no attribution in {CATEGORIES}")
    told = "oracle_preference_pass" in cases.columns
    flags = failed.with_columns(*[(pl.col("attribution") == c).cast(pl.Int64).alias(f"n_{c}") for c in CATEGORIES],
                                ((~pl.col("oracle_preference_pass")) if told else pl.lit(False)).cast(pl.Int64)
                                .alias("n_instrument_miss"))
    counted = [*[f"n_{c}" for c in CATEGORIES], "n_instrument_miss"]
    rows = []
    for key in cases.select(by).unique(maintain_order=True).iter_rows():
        group = flags.filter(*[pl.col(c) == v for c, v in zip(by, key, strict=True)])
        per = group.group_by("persona").agg(pl.len().alias("n_kp_af"), *[pl.col(c).sum() for c in counted])
        m = per.sort("persona").select("n_kp_af", *counted).to_numpy().astype(float).reshape(-1, 1 + len(counted))
        total = int(m[:, 0].sum())
        row = {**dict(zip(by, key, strict=True)), "n_kp_af": total}
        for i, name in enumerate([*CATEGORIES, "instrument_miss"], start=1):
            row[f"n_{name}"] = int(m[:, i].sum())
            row[name] = _pct(row[f"n_{name}"], total) if (told or name != "instrument_miss") else None
            lo, hi = _cluster_ci(m, i, 0, seed, n_boot) if total and row[name] is not None else (None, None)
            row[f"{name}_lo"], row[f"{name}_hi"] = lo, hi
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def paired_differences(cases: pl.DataFrame, reference: str = "filegramos", *, n_boot: int = N_BOOT,
                       seed: int = 0) -> pl.DataFrame:
    """Each method minus `reference` on the same (persona, dimension) cases: Know and Act in points, with a
    persona bootstrap CI of the paired difference (null when the reference is not in the table)."""
    _check(cases, ["method", "persona", "dimension", "know_pass", "act_pass"])
    if reference not in cases["method"]:
        return pl.DataFrame()
    keys = ["persona", "dimension"]
    ref = cases.filter(pl.col("method") == reference).select(*keys, pl.col("know_pass").alias("ref_know"),
                                                              pl.col("act_pass").alias("ref_act"))
    rows = []
    for method in [m for m in cases["method"].unique(maintain_order=True) if m != reference]:
        both = cases.filter(pl.col("method") == method).join(ref, on=keys, how="inner")
        per = both.group_by("persona").agg(pl.len().alias("n"),
                                           (pl.col("know_pass").cast(pl.Int64) - pl.col("ref_know").cast(pl.Int64))
                                           .sum().alias("dk"),
                                           (pl.col("act_pass").cast(pl.Int64) - pl.col("ref_act").cast(pl.Int64))
                                           .sum().alias("da")).sort("persona")
        m = per.select("n", "dk", "da").to_numpy().astype(float)
        row = {"method": method, "reference": reference, "n": int(m[:, 0].sum())}
        for name, col in (("know_diff", 1), ("act_diff", 2)):
            row[name] = 100.0 * m[:, col].sum() / m[:, 0].sum() if row["n"] else None
            row[f"{name}_lo"], row[f"{name}_hi"] = _cluster_ci(m, col, 0, seed, n_boot) if row["n"] else (None, None)
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)
