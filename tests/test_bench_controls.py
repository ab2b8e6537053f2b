"""Control rows: the ground truth and the ideal observer score every key, the options alone score about chance,
and the oracle context says what the item asks in plain words (no option text, no letter)."""

from __future__ import annotations

import polars as pl
import pytest

from filegram_kit.bench.analysis import format_readout, readout, split_controls
from filegram_kit.bench.controls import control_rows, truth_context
from filegram_kit.bench.generate import items_from_facts
from filegram_kit.bench.results import RESULT_SCHEMA
from filegram_kit.bench.score import table3
from filegram_kit.bench.simulate import simulated_facts
from filegram_kit.llm import get_backend


@pytest.fixture(scope="module")
def facts():
    return simulated_facts(seed=3, n_personas=8)


@pytest.fixture(scope="module")
def items(facts):
    return items_from_facts(facts, seed=0)[0]


def test_observer_and_oracle_score_every_key_and_choices_only_stays_near_chance(items, facts):
    rows = pl.DataFrame(control_rows(items, facts, controls=["choices_only", "observer_engine", "oracle"]),
                        schema=RESULT_SCHEMA)
    assert rows["control"].all() and set(rows["backend"]) == {"control"}
    table = table3(rows)
    for method in ("observer_engine", "oracle"):
        assert table.filter(pl.col("method") == method)["Avg"][0] == 100.0
    mcq = [i for i in items if i.is_mcq]
    chance = 100 * sum(1 / len(i.choices) for i in mcq) / len(mcq)
    choices_only = rows.filter(pl.col("method") == "choices_only")["score"].mean() * 100
    assert choices_only < chance + 8


def test_the_oracle_context_names_the_truth_and_the_reader_answers_from_it(items, facts):
    impostor = next(i for i in items if i.sub_class == "impostor")
    text = truth_context(impostor, facts)
    label = impostor.metadata["labels"][impostor.metadata["answer_trajectory"]]
    assert f"{label} was done by someone else" in text
    assert not any(choice in text.splitlines() for choice in impostor.choices)
    rows = control_rows(items[:40], facts, controls=["oracle_context"], backend=get_backend("offline", embedder="lsa"))
    assert len(rows) == 40 and all(r["backend"] == "offline" and r["context_tokens"] > 0 for r in rows)


def test_unknown_controls_and_a_missing_reader_are_refused(items, facts):
    with pytest.raises(ValueError, match="unknown control"):
        control_rows(items, facts, controls=["psychic"])
    with pytest.raises(ValueError, match="pass a backend"):
        control_rows(items, facts, controls=["oracle_context"])


def test_the_readout_keeps_controls_apart_from_methods(items, facts):
    controls = pl.DataFrame(control_rows(items, facts, controls=["oracle"]), schema=RESULT_SCHEMA)
    method = controls.with_columns(pl.lit("no_context").alias("method"), pl.lit("x").alias("params_hash"),
                                   pl.lit(False).alias("control"), pl.lit(0.0).alias("score"))
    both = pl.concat([method, controls])
    methods, ctrl = split_controls(both)
    assert methods["method"].unique().to_list() == ["no_context"] and ctrl["method"].unique().to_list() == ["oracle"]
    text = format_readout(readout(both, n_boot=50))
    methods_part, controls_part = text.split("Controls (reference points")
    assert "No Context" in methods_part and "oracle" not in methods_part.lower().split("methods")[1]
    assert "| oracle | control/- | 100.0 [100.0, 100.0]" in controls_part
