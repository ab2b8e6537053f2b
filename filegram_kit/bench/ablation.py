"""FileGramOS ablations (paper Tables 13 and 14): one ingest, many retrieval settings, paired read-outs.

    variants = channel_ablation()                       # full, then each channel removed in turn
    rows = evaluate(items, corpus, as_methods(variants), out=Path("runs/ablation"))
    table = ablation_table(rows, variants)              # absolute rows, then changes vs full with CIs

Every knob here is a `filegramos.Knobs` field, read at retrieval, so the harness ingests each input
set once and every variant adopts that memory (`harness.SharedIngests`): a variant costs answers,
not ingests. A change is paired: the variant minus its reference on the same items, with the
persona-clustered bootstrap of `bootstrap.py` (a replicate draws personas, both rows recomputed).

Table 14's reference rule follows the paper: the retriever rows (chunk/narrative display length)
are read against the 300-character default; the context rows (previews, files per task, edit
chains) change one knob on top of the 800-character display and are read against that row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ..memory import get_memory
from ..util.natural_order import natural_key
from .bootstrap import STAT_COLUMNS, bootstrap_scores, format_ci, format_diff, paired_differences
from .groups import short_hash
from .schema import SUB_TRACKS
from .score import SUB_TASKS

METHOD = "filegramos"
TRACK_COLUMNS = {"T1": "T1_understanding", "T2": "T2_reasoning", "T3": "T3_detection"}


@dataclass(frozen=True)
class Variant:
    """One FileGramOS setting: its label, knobs (beyond the defaults) and the label it is read against."""

    label: str
    knobs: Mapping[str, Any] = field(default_factory=dict)
    reference: str | None = None  # None: a reference row itself
    group: str = ""

    @property
    def params_hash(self) -> str:
        return short_hash(get_memory(METHOD, **dict(self.knobs)).params())


def channel_ablation(channels: tuple[str, ...] | None = None) -> list[Variant]:
    """Table 13: the full model, then each channel removed in turn (all three, or the ones named)."""
    from ..memory.filegramos.retrieve import CHANNELS

    full = Variant("FileGramOS (full)", {}, None, "full")
    removed = [Variant(f"- {name}", {"channels": tuple(c for c in CHANNELS if c != name)}, full.label, "removed")
               for name in (channels or CHANNELS)]
    return [full, *removed]


# Table 14's rows: (label, knobs, reference label, group). Values are the paper's.
RETRIEVER_DISPLAY = (300, 500, 800, 1000)
CONTEXT_BASE = {"display_chars": 800}
CONTEXT_ROWS = (("Preview 200 -> 400 chars", {"preview_chars": 400}), ("Files/task 3 -> 5", {"files_per_task": 5}),
                ("Files/task 3 -> 2", {"files_per_task": 2}), ("+ Edit chain diffs", {"edit_chains": True}),
                ("- Content previews", {"content_previews": False}))


def sensitivity(display: tuple[int, ...] = RETRIEVER_DISPLAY,
                context: tuple[tuple[str, Mapping[str, Any]], ...] = CONTEXT_ROWS) -> list[Variant]:
    """Table 14: retriever display lengths (read against the first, the default), then the context rows
    (each on top of the 800-character display, read against it)."""
    default = Variant(f"Retriever display {display[0]} chars (default)", {"display_chars": display[0]}, None,
                      "retriever")
    rows = [default] + [Variant(f"Retriever display {n} chars", {"display_chars": n}, default.label, "retriever")
                        for n in display[1:]]
    base = next((r for r in rows if dict(r.knobs) == CONTEXT_BASE), None)
    if base is None:
        base = Variant(f"Retriever display {CONTEXT_BASE['display_chars']} chars", CONTEXT_BASE, None, "retriever")
        rows.append(base)
    rows += [Variant(f"Context: {label}", {**CONTEXT_BASE, **knobs}, base.label, "context") for label, knobs in context]
    return rows


def as_methods(variants: list[Variant]) -> list[tuple[str, dict[str, Any]]]:
    """The (name, params) pairs `harness.evaluate` runs: one per variant (equal settings once)."""
    seen, out = set(), []
    for v in variants:
        if v.params_hash not in seen:
            seen.add(v.params_hash)
            out.append((METHOD, dict(v.knobs)))
    return out


def _rows_of(results: pl.DataFrame, variant: Variant) -> pl.DataFrame:
    return results.filter((pl.col("method") == METHOD) & (pl.col("params_hash") == variant.params_hash))


def variant_scores(results: pl.DataFrame, variants: list[Variant], *, n_boot: int = 1000,
                   seed: int = 0) -> pl.DataFrame:
    """Long: variant x column -> estimate, lo, hi (persona-clustered CI), with T1-T3 track means added."""
    out = []
    for v in variants:
        long = bootstrap_scores(_rows_of(results, v), n_boot=n_boot, seed=seed)
        if long.is_empty():
            raise ValueError(f"no result rows for variant {v.label!r} (params_hash {v.params_hash})")
        out.append(long.select(pl.lit(v.label).alias("variant"), "column", "estimate", "lo", "hi", "n_items",
                               "n_personas", "few_personas"))
    return pl.concat(out)


def variant_changes(results: pl.DataFrame, variants: list[Variant], *, n_boot: int = 1000,
                    seed: int = 0) -> pl.DataFrame:
    """Long: each variant with a reference, minus that reference, paired on shared items, with CIs."""
    by_label = {v.label: v for v in variants}
    out = []
    for v in variants:
        if v.reference is None:
            continue
        ref = by_label[v.reference]
        pair = pl.concat([_rows_of(results, ref), _rows_of(results, v).with_columns(pl.lit("variant").alias("method"))])
        diffs = paired_differences(pair, reference=METHOD, reference_params_hash=ref.params_hash, n_boot=n_boot,
                                   seed=seed)
        out.append(diffs.select(pl.lit(v.label).alias("variant"), pl.lit(ref.label).alias("reference"), "column",
                                "diff", "lo", "hi", "p_boot", "n_items", "few_personas"))
    return pl.concat(out) if out else pl.DataFrame()


def _wide(long: pl.DataFrame, value: str, fmt, index: list[str]) -> pl.DataFrame:
    cells = [fmt(x, lo, hi, few=few)
             for x, lo, hi, few in zip(long[value], long["lo"], long["hi"], long["few_personas"], strict=True)]
    return (long.select(*index, "column").with_columns(pl.Series("cell", cells, dtype=pl.String))
            .pivot(on="column", index=index, values="cell", maintain_order=True))


def ablation_table(results: pl.DataFrame, variants: list[Variant], *, n_boot: int = 1000) -> pl.DataFrame:
    """Table 13: one absolute row per variant, then one change row per removed channel (vs full), every
    cell 'estimate [95% CI]' over Table 3's columns."""
    scores = _wide(variant_scores(results, variants, n_boot=n_boot), "estimate", format_ci, ["variant"])
    changes = variant_changes(results, variants, n_boot=n_boot)
    rows = [scores.select(pl.col("variant").alias("configuration"), pl.lit("score").alias("row"), *STAT_COLUMNS)]
    if changes.height:
        wide = _wide(changes, "diff", format_diff, ["variant", "reference"])
        rows.append(wide.select(pl.col("variant").alias("configuration"),
                                pl.format("change vs {}", "reference").alias("row"), *STAT_COLUMNS))
    return pl.concat(rows)


def track_scores(results: pl.DataFrame) -> dict[str, float]:
    """T1/T2/T3: the mean of that track's sub-task scores (each sub-task as in Table 3)."""
    long = bootstrap_scores(results, n_boot=2)
    est = dict(zip(long["column"], long["estimate"], strict=True))
    out = {}
    for short, track in TRACK_COLUMNS.items():
        values = [est.get(SUB_TASKS[s]) for s, (t, *_) in SUB_TRACKS.items() if t == track]
        values = [x for x in values if x is not None]
        out[short] = round(sum(values) / len(values), 1) if values else None
    return out


def sensitivity_table(results: pl.DataFrame, variants: list[Variant], *, n_boot: int = 1000) -> pl.DataFrame:
    """Table 14: per configuration T1, T2, T3 (track means), Avg with its CI, and the paired change of Avg
    from its reference with its CI (empty for a reference row)."""
    scores = variant_scores(results, variants, n_boot=n_boot).filter(pl.col("column") == "Avg")
    changes = variant_changes(results, variants, n_boot=n_boot)
    changes = changes.filter(pl.col("column") == "Avg") if changes.height else changes
    rows = []
    for v in variants:
        tracks = track_scores(_rows_of(results, v))
        avg = scores.filter(pl.col("variant") == v.label).row(0, named=True)
        change = changes.filter(pl.col("variant") == v.label) if changes.height else changes
        ch = change.row(0, named=True) if change.height else None
        rows.append({"configuration": v.label, "group": v.group, "knobs": _knob_text(v.knobs), **tracks,
                     "Avg": format_ci(avg["estimate"], avg["lo"], avg["hi"], few=avg["few_personas"]),
                     "change": format_diff(ch["diff"], ch["lo"], ch["hi"], few=ch["few_personas"]) if ch else "–",
                     "read against": v.reference or "(reference)", "n": avg["n_items"]})
    return pl.DataFrame(rows)


def _knob_text(knobs: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={'+'.join(v) if isinstance(v, tuple) else v}" for k, v in knobs.items()) or "(defaults)"


# Table 14's knobs and the values the paper tries (the first of each is Knobs' default)
TABLE14_SWEEPS: dict[str, tuple[Any, ...]] = {"display_chars": RETRIEVER_DISPLAY, "preview_chars": (200, 400),
                                              "files_per_task": (3, 2, 5), "edit_chains": (False, True),
                                              "content_previews": (True, False)}


def sweep(base: Mapping[str, Any] | None = None,
          sweeps: Mapping[str, tuple[Any, ...]] = TABLE14_SWEEPS) -> list[Variant]:
    """One knob at a time over its values, the others held at `base` (default: Knobs' defaults); each value
    is read against the base setting of that knob. Variants are grouped (and labelled) by knob."""
    from ..memory.filegramos.retrieve import Knobs

    base = dict(base or {})
    defaults = {name: getattr(Knobs(), name) for name in Knobs.names()}
    out = []
    for knob, values in sweeps.items():
        start = base.get(knob, defaults[knob])
        reference = f"{knob}={start}"
        for value in dict.fromkeys((start, *values)):
            label = f"{knob}={value}"
            out.append(Variant(label, {**base, knob: value}, None if value == start else reference, knob))
    return out


def sweep_frame(results: pl.DataFrame, variants: list[Variant], *, column: str = "Avg",
                n_boot: int = 1000) -> pl.DataFrame:
    """Per knob value (knobs in sweep order, values in natural order): the score of `column` with its CI, and
    the paired change from the knob's base value."""
    scores = variant_scores(results, variants, n_boot=n_boot).filter(pl.col("column") == column)
    changes = variant_changes(results, variants, n_boot=n_boot)
    changes = (changes.filter(pl.col("column") == column).select("variant", pl.col("diff").alias("change"),
                                                                  pl.col("lo").alias("change_lo"),
                                                                  pl.col("hi").alias("change_hi"))
               if changes.height else pl.DataFrame(schema={"variant": pl.String, "change": pl.Float64,
                                                            "change_lo": pl.Float64, "change_hi": pl.Float64}))
    knobs = list(dict.fromkeys(v.group for v in variants))
    meta = pl.DataFrame(sorted(({"variant": v.label, "knob": v.group, "value": str(v.label.split("=", 1)[-1]),
                                 "is_base": v.reference is None} for v in variants),
                               key=lambda r: (knobs.index(r["knob"]), natural_key(r["value"]))))  # 300 before 1000
    return (meta.join(scores.select("variant", "estimate", "lo", "hi", "n_items"), on="variant", how="left")
            .join(changes, on="variant", how="left"))
