"""Persona-clustered bootstrap CIs and paired differences (bench/bootstrap.py), on synthetic result frames."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from filegram_kit.bench.bootstrap import (
    STAT_COLUMNS,
    bootstrap_scores,
    ci_table,
    format_ci,
    format_diff,
    paired_differences,
)
from filegram_kit.bench.results import RESULT_SCHEMA
from filegram_kit.bench.score import CHANNEL_COLUMNS, SUB_TASKS, format_table3, table3

SCHEMA = {**RESULT_SCHEMA, "item_seed": pl.Int64, "profile_id": pl.String}


def make(question_id, profile_id, score, **fields) -> pl.DataFrame:
    """Result rows: per-row sequences or scalars (broadcast); the other RESULT_SCHEMA columns null."""
    base = {"method": "a", "params_hash": "h", "backend": "offline", "model": "offline-v1", "seed": 0,
            "sub_track": "attribute_recognition", "channel": "procedural", "item_seed": 0, **fields}
    frame = pl.DataFrame({"question_id": [str(q) for q in question_id], "profile_id": [str(p) for p in profile_id],
                          "score": np.asarray(score, dtype=float)}, nan_to_null=True)
    frame = frame.with_columns(pl.Series(k, list(v)) if isinstance(v, list | np.ndarray) else pl.lit(v).alias(k)
                               for k, v in base.items())
    frame = frame.with_columns(pl.lit(None).alias(c) for c in SCHEMA if c not in frame.columns)
    return frame.select(list(SCHEMA)).cast(SCHEMA)


def per_persona(correct: list[int], items: int, **fields) -> pl.DataFrame:
    """`items` MCQ rows per persona, the first correct[p] of persona p right."""
    persona = np.repeat(np.arange(len(correct)), items)
    score = (np.tile(np.arange(items), len(correct)) < np.repeat(correct, items)).astype(float)
    return make(np.arange(len(persona)), persona, score, **fields)


def cell(frame: pl.DataFrame, column: str, method: str = "a") -> dict:
    return frame.filter((pl.col("method") == method) & (pl.col("column") == column)).row(0, named=True)


def width(row: dict) -> float:
    return row["hi"] - row["lo"]


def random_results(rng: np.random.Generator, methods: dict[str, float], n: int = 600, personas: int = 12,
                   item_seed: int = 0) -> pl.DataFrame:
    """Every sub-task and channel, free-form Likert for ProfRec, some errors (null score); same items per method."""
    sub = rng.choice(list(SUB_TASKS), n)
    channel = rng.choice(list(CHANNEL_COLUMNS), n)
    persona = rng.integers(0, personas, n)
    frames = []
    for (method, phash), skill in methods.items():
        mcq = sub != "profile_reconstruction"
        score = np.where(mcq, rng.random(n) < skill, rng.integers(0, 5, n) * 25.0).astype(float)
        score[rng.random(n) < 0.05] = np.nan
        frames.append(make(np.arange(n), persona, score, method=method, params_hash=phash, sub_track=sub,
                           channel=channel, mcq=mcq, item_seed=item_seed))
    return pl.concat(frames)


def test_estimates_equal_table3_with_one_item_seed():
    rng = np.random.default_rng(1)
    frame = random_results(rng, {("filegramos", "aaaa"): 0.6, ("filegramos", "bbbb"): 0.5, ("mem0", "h"): 0.3})
    frame = frame.filter(~((pl.col("method") == "mem0") & (pl.col("sub_track") == "shift_analysis")))
    t4 = make(range(1000, 1010), [0] * 10, [1.0] * 10, method="mem0", sub_track="t4_multimodal_x", channel="semantic")
    frame = pl.concat([frame, t4])  # an unknown sub-track counts in its channel column only, as in table3
    ours = bootstrap_scores(frame, n_boot=50)
    theirs = table3(frame)
    assert ours.height == 3 * len(STAT_COLUMNS)
    for row in theirs.iter_rows(named=True):
        method, phash = row["method"], row["label"].rsplit("[", 1)[-1].rstrip("]") if "[" in row["label"] else "h"
        mine = ours.filter((pl.col("method") == method) & pl.col("params_hash").str.starts_with(phash))
        for column in STAT_COLUMNS:
            estimate = mine.filter(pl.col("column") == column)["estimate"].item()
            if row[column] is None:
                assert estimate is None
            else:  # table3 rounds to one decimal
                assert abs(estimate - row[column]) <= 0.05 + 1e-9, (method, phash, column)
    shift = cell(ours, "ShiftAna", "mem0")
    assert (shift["estimate"], shift["lo"], shift["hi"], shift["n_items"], shift["item_seeds"]) == (
        None, None, None, 0, [])
    sem = cell(ours, "Sem", "mem0")
    assert sem["n_items"] == frame.filter((pl.col("method") == "mem0") & (pl.col("channel") == "semantic")
                                          & (pl.col("sub_track") != "profile_reconstruction")).height


def test_estimate_over_two_item_seeds_is_the_mean_of_per_seed_scores():
    seed0 = make(range(10), range(10), [1.0] * 3 + [0.0] * 7, item_seed=0)  # AttrRec 30
    seed1 = make(range(40), np.arange(40) % 10, [1.0] * 30 + [0.0] * 10, item_seed=1)  # AttrRec 75
    fp1 = make(range(40, 50), range(10), [1.0] * 4 + [0.0] * 6, item_seed=1, sub_track="behavioral_fingerprint",
               channel="semantic")  # BehavFP 40, seed 1 only
    out = bootstrap_scores(pl.concat([seed0, seed1, fp1]), n_boot=200)
    attr, fp, avg = cell(out, "AttrRec"), cell(out, "BehavFP"), cell(out, "Avg")
    assert attr["estimate"] == pytest.approx((30 + 75) / 2)  # not the pooled 33 / 50 = 66
    assert (attr["item_seeds"], attr["n_items"]) == ([0, 1], 50)
    assert fp["estimate"] == pytest.approx(40) and fp["item_seeds"] == [1]  # seed 0 has no BehavFP: left out
    assert avg["estimate"] == pytest.approx((30 + (75 + 40) / 2) / 2)  # per-seed Avg, then the mean over seeds
    assert cell(out, "Proc")["estimate"] == pytest.approx((30 + 75) / 2)


def test_ci_contains_the_estimate_and_widens_when_personas_disagree():
    similar = bootstrap_scores(per_persona([9, 11] * 10, 20), n_boot=1000)  # personas at 45% / 55%
    spread = bootstrap_scores(per_persona([2, 18] * 10, 20), n_boot=1000)  # personas at 10% / 90%
    for out in (similar, spread):
        for column in ("AttrRec", "Proc", "Avg"):
            row = cell(out, column)
            assert row["estimate"] == pytest.approx(50) and row["lo"] <= row["estimate"] <= row["hi"]
            assert row["n_personas"] == 20 and not row["few_personas"]
    assert width(cell(spread, "AttrRec")) > 4 * width(cell(similar, "AttrRec")) > 0


def test_clustering_matters_where_an_item_bootstrap_would_not_see_it():
    # the same 400 items and 200 right answers; only who got them differs
    clustered = bootstrap_scores(per_persona([20] * 10 + [0] * 10, 20), n_boot=2000)  # a persona all right or wrong
    even = bootstrap_scores(per_persona([10] * 20, 20), n_boot=2000)  # every persona half right
    naive = 2 * 1.96 * np.sqrt(0.5 * 0.5 / 400) * 100  # an item bootstrap's width for both: ~9.8 points
    assert width(cell(clustered, "AttrRec")) > 3 * naive
    assert width(cell(even, "AttrRec")) < naive


def test_a_method_paired_with_itself_differs_by_exactly_zero():
    frame = random_results(np.random.default_rng(2), {("filegramos", "h"): 0.5})
    frame = pl.concat([frame, frame.with_columns(pl.lit("clone").alias("method"))])
    diffs = paired_differences(frame, n_boot=500)
    assert diffs["method"].unique().to_list() == ["clone"] and diffs.height == len(STAT_COLUMNS)
    assert (diffs["diff"] == 0).all() and (diffs["lo"] == 0).all() and (diffs["hi"] == 0).all()
    assert (diffs["p_boot"] == 1).all()


def test_a_planted_difference_is_found_and_independent_noise_is_not():
    rng = np.random.default_rng(3)
    correct = rng.integers(4, 33, 20)  # personas disagree a lot: 10% .. 80% right of 40
    a = per_persona(correct.tolist(), 40, method="filegramos")
    b = per_persona((correct + 4).tolist(), 40, method="better")  # +10 points on every persona
    uneven = per_persona((correct + rng.integers(2, 7, 20)).tolist(), 40, method="uneven")  # +5 .. +15
    noise = make(range(800), np.repeat(np.arange(20), 40), rng.random(800) < np.repeat(correct / 40, 40),
                 method="noise")  # independent outcomes at each persona's rate (fixed rng: a fixed draw)
    frame = pl.concat([a, b, uneven, noise])
    diffs = paired_differences(frame, n_boot=2000)
    better, noisy = cell(diffs, "AttrRec", "better"), cell(diffs, "AttrRec", "noise")
    assert better["diff"] == pytest.approx(10) and better["lo"] > 0 and better["p_boot"] < 0.01
    gain = cell(diffs, "AttrRec", "uneven")
    assert 0 < gain["lo"] < gain["diff"] < gain["hi"] and gain["p_boot"] < 0.01
    assert noisy["lo"] < 0 < noisy["hi"] and noisy["p_boot"] > 0.05
    scores = bootstrap_scores(frame, n_boot=2000)  # unpaired, the two methods' intervals overlap
    assert cell(scores, "AttrRec", "better")["lo"] < cell(scores, "AttrRec", "filegramos")["hi"]


def test_same_seed_gives_identical_output_and_another_seed_other_draws():
    frame = random_results(np.random.default_rng(4), {("filegramos", "h"): 0.5, ("zep", "h"): 0.4})
    assert bootstrap_scores(frame, seed=7, n_boot=300).equals(bootstrap_scores(frame, seed=7, n_boot=300))
    assert paired_differences(frame, seed=7, n_boot=300).equals(paired_differences(frame, seed=7, n_boot=300))
    assert not bootstrap_scores(frame, seed=8, n_boot=300).equals(bootstrap_scores(frame, seed=7, n_boot=300))


def test_items_answered_by_only_one_method_are_left_out_of_the_pair():
    persona = np.arange(40) % 8
    shared = (np.arange(40) % 3 == 0).astype(float)
    ref = make(range(30), persona[:30], np.r_[np.zeros(10), shared[10:30]], method="filegramos")
    other = make(range(10, 40), persona[10:40], np.r_[shared[10:30], np.ones(10)], method="b")
    elsewhere = make([10], [0], [1.0], method="b", item_seed=1)  # same question_id, another item seed
    runs = make([11], [persona[11]], [shared[11]], method="b", seed=1)  # a second run seed of a shared item
    diffs = paired_differences(pl.concat([ref, other, elsewhere, runs]), n_boot=200)
    row = cell(diffs, "AttrRec", "b")
    assert (row["diff"], row["lo"], row["hi"], row["n_items"]) == (0.0, 0.0, 0.0, 20)


@pytest.mark.parametrize("personas", [1, 2, 4])
def test_fewer_than_five_personas_give_no_bounds_and_the_tables_say_why(personas):
    """Items about 1-4 personas: the estimate stands, but a percentile interval over so few clusters is not
    one ("35.0 [35.0, 35.0]" from 2 personas reads as certainty), so lo/hi are null and cells say why."""
    correct = [7, 3, 12, 5][:personas]
    one = per_persona(correct, 20)
    row = cell(bootstrap_scores(one, n_boot=100), "AttrRec")
    assert row["few_personas"] and row["lo"] is None and row["hi"] is None
    assert row["estimate"] == pytest.approx(100 * sum(correct) / (20 * personas))
    pair = pl.concat([one.with_columns(pl.lit("filegramos").alias("method")), per_persona([12] * personas, 20)])
    diff = cell(paired_differences(pair, n_boot=100), "AttrRec")
    assert diff["few_personas"] and diff["lo"] is None and diff["hi"] is None
    assert ci_table(bootstrap_scores(one, n_boot=100))["AttrRec"].item().endswith("(CI needs ≥5 personas)")
    assert ci_table(paired_differences(pair, n_boot=100))["AttrRec"].item().endswith("(CI needs ≥5 personas)")


def test_five_personas_are_enough_for_an_interval():
    five = per_persona([7, 3, 12, 5, 9], 20)
    row = cell(bootstrap_scores(five, n_boot=200), "AttrRec")
    assert not row["few_personas"] and row["lo"] < row["estimate"] < row["hi"]
    assert "[" in ci_table(bootstrap_scores(five, n_boot=200))["AttrRec"].item()


def test_missing_reference_and_ambiguous_parameters():
    one = per_persona([7], 20)
    pair = pl.concat([one.with_columns(pl.lit("filegramos").alias("method")), per_persona([12], 20)])
    with pytest.raises(ValueError, match="reference method 'filegramos'"):
        paired_differences(one, n_boot=10)
    second = pair.filter(pl.col("method") == "filegramos").with_columns(pl.lit("g").alias("params_hash"))
    two = pl.concat([pair, second])
    with pytest.raises(ValueError, match="reference_params_hash"):
        paired_differences(two, n_boot=10)
    assert paired_differences(two, reference_params_hash="g", n_boot=10)["method"].unique().sort().to_list() == [
        "a", "filegramos"]
    with pytest.raises(ValueError, match="no profile_id"):
        bootstrap_scores(one.with_columns(pl.lit(None, dtype=pl.String).alias("profile_id")))


def test_formatting_and_the_wide_table():
    assert format_ci(52.8123, 49.06, 56.3) == "52.8 [49.1, 56.3]"
    assert format_diff(-3.21, -5.0, -1.08) == "-3.2 [-5.0, -1.1]"
    assert format_diff(1.44, 0.2, 2.6) == "+1.4 [0.2, 2.6]" and format_diff(-0.04, -1.0, 1.0) == "0.0 [-1.0, 1.0]"
    assert format_ci(None, None, None) == format_diff(float("nan"), None, None) == "–"
    assert format_ci(40.0, None, None) == "40.0"
    assert format_ci(40.0, None, None, few=True) == "40.0 (CI needs ≥5 personas)"
    assert format_diff(-2.0, None, None, few=True) == "-2.0 (CI needs ≥5 personas)"
    frame = pl.concat([per_persona([10, 12, 14, 8, 16], 20, method="filegramos"),
                       per_persona([9, 9, 9, 9, 9], 20, method="mem0")])
    scores = bootstrap_scores(frame, n_boot=200)
    wide = ci_table(scores)
    assert wide.columns == ["method", "params_hash", "label", "backend", *STAT_COLUMNS]
    assert wide["label"].to_list() == ["FileGramOS", "Mem0"] and wide["ShiftAna"].to_list() == ["–", "–"]
    fg = cell(scores, "AttrRec", "filegramos")
    assert wide["AttrRec"][0] == format_ci(fg["estimate"], fg["lo"], fg["hi"])
    assert wide["AttrRec"][0].startswith("60.0 [")
    text = format_table3(ci_table(paired_differences(frame, n_boot=200)))
    assert "| Mem0 | offline/offline-v1 | -15.0 [" in text
