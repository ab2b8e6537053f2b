"""The observer of the traces: per-session readings from models fit on the other personas, never on the persona
under test, answering items with the ideal observer's rules."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from filegram_kit.bench.ground_truth import Expression
from filegram_kit.bench.simulate import simulated_facts
from filegram_kit.bench.trace_observer import TooFewPersonas, read_sessions, recovery
from filegram_kit.traces.schema import DIMENSION_CODES


@pytest.fixture(scope="module")
def facts():
    return simulated_facts(seed=2, n_personas=6)


def _features(facts, noise: float, seed: int = 0) -> pl.DataFrame:
    """Features a memory could compute, made to carry each session's shown tier on each dimension (plus noise)."""
    rng = np.random.default_rng(seed)
    ids = sorted(facts.expressed)
    cols = {f"f_{d}{x}": [float(facts.expressed[t].tiers[d] == x) + rng.normal(0, noise) for t in ids]
            for d in DIMENSION_CODES for x in "LMR"}
    return pl.DataFrame({"trajectory_id": ids, **cols})


def test_features_that_carry_the_tiers_are_read_back_and_noise_is_not(facts):
    clear = read_sessions(_features(facts, 0.05), facts)
    learnable = [(t, d) for t in facts.expressed for d in DIMENSION_CODES  # a tier other personas show too
                 if any(facts.expressed[o].tiers[d] == facts.expressed[t].tiers[d] for o in facts.expressed
                        if facts.persona_of[o] != facts.persona_of[t])]
    right = [clear[t].tiers[d] == facts.expressed[t].tiers[d] for t, d in learnable]
    assert len(learnable) > 0.8 * 6 * len(facts.expressed) and np.mean(right) > 0.97
    blank = pl.DataFrame({"trajectory_id": sorted(facts.expressed), "f": 0.0})
    flat = read_sessions(blank, facts)
    assert min(recovery(facts, replace(facts, expressed=flat)).values()) < 0.9  # nothing to read: the majority tier


def test_a_personas_own_labels_never_reach_its_readings(facts):
    features = _features(facts, 0.6, seed=1)
    before = read_sessions(features, facts)
    victim = next(iter(facts.sessions))
    mine = set(facts.sessions[victim].values())
    flipped = {t: (Expression({d: "R" if e.tiers[d] != "R" else "L" for d in e.tiers}, {}, e.source) if t in mine
                   else e) for t, e in facts.expressed.items()}
    after = read_sessions(features, replace(facts, expressed=flipped))
    assert all(after[t].tiers == before[t].tiers for t in mine)  # fit on the other personas only
    assert any(after[t].tiers != before[t].tiers for t in set(facts.expressed) - mine)


def test_one_persona_is_refused_by_name_not_by_an_empty_fit(facts):
    victim = next(iter(facts.sessions))
    mine = sorted(facts.sessions[victim].values())
    features = _features(facts, 0.05).filter(pl.col("trajectory_id").is_in(mine))
    with pytest.raises(TooFewPersonas, match="at least 2 personas"):
        read_sessions(features, facts)
