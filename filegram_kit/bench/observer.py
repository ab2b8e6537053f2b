"""Two reference readers that never see a memory: the ideal observer and the oracle.

- The **observer** perceives every input trajectory's expressed tiers perfectly (the corpus'
  `expressed.json`) and knows the engine's expression model (evidence.py), nothing else: not the
  persona's tiers, not the perturbation schedule. It scores each option by how well the evidence
  supports it. An item whose key is not the observer's clear choice asks for something the traces
  do not show, so the generator redraws it, and the audit counts how often the two disagree.
- The **oracle** knows the truth: the persona's tiers and attributes and the perturbation schedule.
  It is the ceiling every method is measured against.

Both read the options through `metadata["option_facts"]` (one descriptor per option, in option
order), which the generators write: {"dimension", "tier"}, {"attribute", "tier"}, {"language"},
{"tiers": {dim: tier}}, {"dimension", "tiers": [a, b]}, {"trajectory"}, {"dimension", "from", "to"}.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..util.float_ties import ranked, snap
from . import evidence as ev
from .ground_truth import CorpusFacts
from .schema import Item

# minimum evidence margins for an item to count as supported (the generator's redraw rule)
MIN_LOG_ODDS = float(np.log(4.0))  # the key at least 4x as likely as the runner-up
MIN_COUNT_MARGIN = 1.0  # count-based scores: the key at least one observation ahead
MIN_ATTRIBUTE_SESSIONS = 2.0  # an attribute's value seen in at least two sessions (and no other value)


@dataclass(frozen=True)
class Judgement:
    index: int  # the option chosen (-1: no basis to choose)
    margin: float  # best score minus the runner-up's
    scores: tuple[float, ...]

    def supports(self, key: int, min_margin: float) -> bool:
        return self.index == key and self.margin >= min_margin


def _judge(scores: list[float]) -> Judgement:
    if not scores:
        return Judgement(-1, 0.0, ())
    arr = snap(scores)
    order = ranked(arr)
    margin = float(arr[order[0]] - arr[order[1]]) if len(arr) > 1 else float("inf")
    return Judgement(int(order[0]) if margin > 0 else -1, margin, tuple(float(s) for s in arr))


def _pair(item: Item) -> tuple[str, str]:
    pair = item.metadata.get("interleave") or item.input_trajectories
    return pair[0], pair[1]


# -- the observer: evidence only ---------------------------------------------------------------------------------


def _observe_dimension(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    ll = ev.tier_loglik(facts, item.input_trajectories, opts[0]["dimension"])
    return [ll[o["tier"]] for o in opts]


def _observe_attribute(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    name = opts[0]["attribute"]
    seen = Counter(facts.expressed[t].attributes.get(name) for t in item.input_trajectories)
    return [float(seen.get(o["tier"], 0)) for o in opts]


def _observe_language(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    """The language of the prose the sessions wrote (a session that composed text shows its writer's language)."""
    writers = Counter(facts.personas[facts.persona_of[t]].language for t in item.input_trajectories
                      if "tone" in facts.expressed[t].attributes)
    return [float(writers.get(o["language"], 0)) for o in opts]


def _observe_portrait(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    shown = facts.expressed[item.input_trajectories[0]].tiers
    return [float(sum(shown[d] == t for d, t in o["tiers"].items())) for o in opts]


def _observe_prediction(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    dims = sorted({d for o in opts for d in o["tiers"]})
    ll = {d: ev.tier_loglik(facts, item.input_trajectories, d) for d in dims}
    return [sum(ll[d][t] for d, t in o["tiers"].items()) for o in opts]


def _observe_contrast(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    a, b = (facts.expressed[t].tiers for t in _pair(item))
    return [float(a[o["dimension"]] != b[o["dimension"]])
            + float(sorted((a[o["dimension"]], b[o["dimension"]])) == sorted(o["tiers"])) for o in opts]


def _observe_aspect(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    a, b = (facts.expressed[t].tiers for t in _pair(item))
    return [float(a[o["dimension"]] != b[o["dimension"]]) for o in opts]


def _observe_session(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    inputs = list(item.input_trajectories)
    return [ev.surprise(facts, inputs, o["trajectory"]) for o in opts]


def _named(item: Item) -> tuple[str, list[str]]:
    named = item.metadata["answer_trajectory"]
    return named, [t for t in item.input_trajectories if t != named]


def _observe_shifted(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    named, others = _named(item)
    per_dim = ev.dimension_surprise(facts, others, named)
    return [per_dim[o["dimension"]] for o in opts]


def _observe_change(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    """A change from a to b on d fits when the user usually shows a on d and the named session shows b."""
    named, others = _named(item)
    out = []
    for o in opts:
        d = o["dimension"]
        shown = facts.expressed[named].tiers[d]
        usual = ev.tier_loglik(facts, others, d)
        out.append(usual[o["from"]] - max(usual.values()) + (0.0 if shown == o["to"] else -10.0)
                   + (0.0 if shown != o["from"] else -10.0))
    return out


OBSERVERS: dict[str, Callable[[Item, CorpusFacts, list[dict]], list[float]]] = {
    "dimension_tier": _observe_dimension, "attribute": _observe_attribute, "language": _observe_language,
    "portrait": _observe_portrait, "held_out_task": _observe_prediction, "primary_difference": _observe_contrast,
    "differing_aspect": _observe_aspect, "impostor": _observe_session, "perturbation": _observe_session,
    "shifted_dimension": _observe_shifted, "shift_direction": _observe_change, "change_description": _observe_change,
}
# count-based observers need a count margin; the rest compare log-likelihoods
COUNT_BASED = frozenset({"attribute", "language", "portrait", "primary_difference", "differing_aspect"})


def observe(item: Item, facts: CorpusFacts) -> Judgement:
    """The ideal observer's choice for a multiple-choice item (index -1 when its evidence ties)."""
    opts = item.metadata.get("option_facts")
    if not item.is_mcq or not opts or item.sub_class not in OBSERVERS:
        return Judgement(-1, 0.0, ())
    return _judge(OBSERVERS[item.sub_class](item, facts, opts))


def min_margin(sub_class: str) -> float:
    if sub_class == "attribute":
        return MIN_ATTRIBUTE_SESSIONS
    return MIN_COUNT_MARGIN if sub_class in COUNT_BASED else MIN_LOG_ODDS


def supported(item: Item, key: int, facts: CorpusFacts) -> bool:
    """Whether the evidence picks option `key` clearly (the generator keeps only such items)."""
    return observe(item, facts).supports(key, min_margin(item.sub_class))


# -- the oracle: the truth -----------------------------------------------------------------------------------------


def _truth_scores(item: Item, facts: CorpusFacts, opts: list[dict]) -> list[float]:
    pid = item.profile_id
    kind = item.sub_class
    if kind == "dimension_tier":
        return [float(facts.tiers(pid)[o["dimension"]] == o["tier"]) for o in opts]
    if kind == "attribute":
        return [float(facts.personas[pid].attributes[o["attribute"]].value == o["tier"]) for o in opts]
    if kind == "language":
        return [float(facts.personas[pid].language == o["language"]) for o in opts]
    if kind in ("portrait", "held_out_task"):
        truth = facts.effective(item.input_trajectories[0]) if kind == "portrait" else facts.tiers(pid)
        return [float(sum(truth[d] == t for d, t in o["tiers"].items())) for o in opts]
    if kind in ("primary_difference", "differing_aspect"):
        a, b = (facts.effective(t) for t in _pair(item))
        return [float(a[o["dimension"]] != b[o["dimension"]])
                + float("tiers" in o and sorted((a[o["dimension"]], b[o["dimension"]])) == sorted(o["tiers"]))
                for o in opts]
    if kind in ("impostor", "perturbation"):
        return [float(facts.persona_of[o["trajectory"]] != pid or o["trajectory"] in facts.shifts) for o in opts]
    shift = facts.shifts.get(item.metadata.get("answer_trajectory", ""))
    if shift is None:
        return [0.0 for _ in opts]
    return [float(o["dimension"] == shift.dimension) + float(o.get("from") == shift.from_tier)
            + float(o.get("to") == shift.to_tier) for o in opts]


def oracle(item: Item, facts: CorpusFacts) -> Judgement:
    """The oracle's choice: the option that matches the persona's true tiers and the perturbation schedule."""
    opts = item.metadata.get("option_facts")
    if not item.is_mcq or not opts:
        return Judgement(-1, 0.0, ())
    return _judge(_truth_scores(item, facts, opts))
