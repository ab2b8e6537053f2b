"""Track 1, understanding: Attribute Recognition, Behavioral Fingerprint, Profile Reconstruction.

- Attribute Recognition (2-3 choices): from a user's sessions (the whole history, or a random
  subset of it), the tier of a dimension (its three descriptions), a behavioural attribute of paper
  Table 8 (its three values), or the output language (the languages the corpus' personas write).
  The option set is the whole value set, so keys are balanced per set at selection (generate.py).
- Behavioral Fingerprint (4 choices): one anonymous session and four portraits of what it shows on
  the task's active dimensions. The four form a 2 x 2 grid on two dimensions where the session shows
  its persona's tier: every portrait has two neighbours one step away and one two steps away, so no
  option is the centre; the second value on each grid dimension is drawn so every tier is the key as
  often as it appears (design.py).
- Profile Reconstruction (free-form): per user and behavioural attribute, a description of that
  attribute; the reference is the attribute's value, judged on the value it asserts.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np

from ..engine.policy import OWN_ATTRIBUTE
from ..traces.schema import ATTRIBUTES, BEHAVIORAL_ATTRIBUTES, DIMENSION_CODES
from . import evidence as ev
from . import templates as tpl
from .design import design_weights, partner
from .drafts import TIER_LETTERS, Draft, input_order, pick
from .ground_truth import CorpusFacts

SEMANTIC_ATTRIBUTES = frozenset({"tone", "output_structure", "documentation", "naming", "language", "role"})
# attributes that are not a dimension's own name: asked about as attributes
ATTRIBUTE_ITEMS = tuple(a for a in BEHAVIORAL_ATTRIBUTES if a not in OWN_ATTRIBUTE)
HISTORY_VARIANTS = 4  # input sets per persona: the whole history, then random subsets of it
SUBSET = 12  # sessions in a subset input set
FINGERPRINT_VARIANTS = 2  # grids per session


def attribute_channel(name: str) -> str:
    return "semantic" if name in SEMANTIC_ATTRIBUTES else "procedural"


def history_sets(facts: CorpusFacts, pid: str, rng: np.random.Generator) -> list[tuple[str, ...]]:
    """The input sets a persona's AttrRec items are asked over: all sessions, then random subsets."""
    sessions = list(facts.sessions[pid].values())
    sets = [input_order(sessions)]
    if len(sessions) > SUBSET:
        sets += [input_order(pick(rng, sessions, SUBSET)) for _ in range(HISTORY_VARIANTS - 1)]
    return list(dict.fromkeys(sets))


def _tier_items(facts: CorpusFacts, pid: str, inputs: tuple[str, ...], rank: int,
                rng: np.random.Generator) -> list[Draft]:
    out = []
    tiers = facts.tiers(pid)
    for d in DIMENSION_CODES:
        w = int(rng.integers(tpl.WORDINGS))
        order = [tiers[d]] + [t for t in TIER_LETTERS if t != tiers[d]]
        out.append(Draft("attribute_recognition", "dimension_tier", "procedural", pid, inputs,
                         tpl.QUESTIONS["dimension_tier"].format(aspect=tpl.ASPECT[d]),
                         tuple(tpl.BEHAVIOUR[d][t][w] for t in order),
                         metadata={"dimension": d, "tier": tiers[d], "wording": w},
                         option_facts=tuple({"dimension": d, "tier": t} for t in order),
                         signature=("dimension", d), key_fact=tiers[d], members=TIER_LETTERS, rank=rank))
    return out


def _attribute_items(facts: CorpusFacts, pid: str, inputs: tuple[str, ...], rank: int,
                     rng: np.random.Generator) -> list[Draft]:
    out = []
    for name in ATTRIBUTE_ITEMS:
        tier = facts.personas[pid].attributes[name].value
        w = int(rng.integers(tpl.WORDINGS))
        order = [tier] + [t for t in TIER_LETTERS if t != tier]
        question = tpl.QUESTIONS["attribute"].format(label=tpl.attribute_label(name),
                                                     description=tpl.attribute_hint(name))
        out.append(Draft("attribute_recognition", "attribute", attribute_channel(name), pid, inputs, question,
                         tuple(tpl.attribute_option(name, t, w) for t in order),
                         metadata={"attribute": name, "tier": tier, "wording": w},
                         option_facts=tuple({"attribute": name, "tier": t} for t in order),
                         signature=("attribute", name), key_fact=tier, members=TIER_LETTERS, rank=rank))
    return out


def _language_item(facts: CorpusFacts, pid: str, inputs: tuple[str, ...], rank: int) -> list[Draft]:
    languages = facts.languages
    if len(languages) < 2:
        return []  # one language in the corpus: nothing to tell apart
    language = facts.personas[pid].language
    order = [language] + [x for x in languages if x != language]
    return [Draft("attribute_recognition", "language", "semantic", pid, inputs, tpl.QUESTIONS["language"],
                  tuple(order), metadata={"attribute": "language"},
                  option_facts=tuple({"language": x} for x in order),
                  signature=("language",), key_fact=language, members=languages, rank=rank)]


def attribute_recognition(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for pid in facts.sessions:
        for rank, inputs in enumerate(history_sets(facts, pid, rng)):
            drafts += _tier_items(facts, pid, inputs, rank, rng)
            drafts += _language_item(facts, pid, inputs, rank)
            drafts += _attribute_items(facts, pid, inputs, rank, rng)
    return drafts


def _grid_dims(facts: CorpusFacts, tid: str) -> tuple[tuple[str, ...], list[str]]:
    """(the task's active dimensions, those on which the session shows its persona's effective tier)."""
    dims = facts.active(facts.task_of[tid])
    shown, truth = facts.expressed[tid].tiers, facts.effective(tid)
    return dims, [d for d in dims if shown[d] == truth[d]]


def grid_weights(facts: CorpusFacts, tids: list[str]) -> dict[str, np.ndarray]:
    """Per dimension, design weights for a grid's second tier from how often each tier is the key there."""
    seen: dict[str, Counter] = {d: Counter() for d in DIMENSION_CODES}
    for tid in tids:
        _, eligible = _grid_dims(facts, tid)
        for d in eligible:
            seen[d][facts.expressed[tid].tiers[d]] += 1
    return {d: design_weights(seen[d], TIER_LETTERS, 2) for d in DIMENSION_CODES}


def grid_options(key: dict[str, str], grid: tuple[str, str], weights: dict[str, np.ndarray],
                 rng: np.random.Generator) -> list[dict[str, str]]:
    """The 2 x 2 grid of tier vectors around `key` on the two `grid` dimensions; key first."""
    d1, d2 = grid
    o1 = partner(rng, key[d1], TIER_LETTERS, weights[d1])
    o2 = partner(rng, key[d2], TIER_LETTERS, weights[d2])
    corners = [(key[d1], key[d2]), (o1, key[d2]), (key[d1], o2), (o1, o2)]
    return [{**key, d1: a, d2: b} for a, b in corners]


def _grid_pairs(eligible: list[str], rng: np.random.Generator) -> list[tuple[str, str]]:
    pairs = list(itertools.combinations(eligible, 2))
    return [pairs[int(i)] for i in rng.permutation(len(pairs))[:FINGERPRINT_VARIANTS]]


def behavioral_fingerprint(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    tids = [tid for sessions in facts.sessions.values() for tid in sessions.values()]
    weights = grid_weights(facts, tids)
    drafts = []
    for pid, sessions in facts.sessions.items():
        for task_id, tid in sessions.items():
            dims, eligible = _grid_dims(facts, tid)
            if len(dims) < 2 or len(eligible) < 2:
                continue  # the session shows too little of its persona to tell four portraits apart
            shown = {d: facts.expressed[tid].tiers[d] for d in dims}
            for grid in _grid_pairs(eligible, rng):
                w = int(rng.integers(tpl.WORDINGS))
                options = grid_options(shown, grid, weights, rng)
                question = tpl.QUESTIONS["fingerprint"].format(task=tpl.task_ref(facts.tasks[task_id]))
                drafts.append(Draft("behavioral_fingerprint", "portrait", "procedural", pid, (tid,), question,
                                    tuple(tpl.portrait(o, w) for o in options),
                                    metadata={"task_id": task_id, "perturbed": tid in facts.shifts,
                                              "dimensions": list(dims), "grid": list(grid), "wording": w},
                                    option_facts=tuple({"tiers": o} for o in options)))
    return drafts


def attribute_support(facts: CorpusFacts, pid: str, name: str, inputs: tuple[str, ...]) -> bool:
    """Whether the sessions show the persona's value of the attribute (its behaviour fired, with that value
    most often; a dimension's own attribute: the sessions support the persona's tier of the dimension)."""
    tier = facts.personas[pid].attributes[name].value
    if name in OWN_ATTRIBUTE:
        best, margin = ev.usual_tier(facts, inputs, OWN_ATTRIBUTE[name])
        return best == tier and margin > 0
    seen = Counter(facts.expressed[t].attributes.get(name) for t in inputs)
    seen.pop(None, None)
    return bool(seen) and seen[tier] == max(seen.values()) and list(seen.values()).count(seen[tier]) == 1


def profile_reconstruction(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for pid, sessions in facts.sessions.items():
        inputs = input_order(list(sessions.values()))
        for name in BEHAVIORAL_ATTRIBUTES:
            tier = facts.personas[pid].attributes[name].value
            reference = f"{tpl.attribute_label(name)}: {tpl.attribute_value(name, tier)}"
            question = tpl.QUESTIONS["profile"].format(label=tpl.attribute_label(name),
                                                       description=tpl.attribute_hint(name))
            drafts.append(Draft("profile_reconstruction", "attribute", attribute_channel(name), pid, inputs,
                                question, (), reference,
                                metadata={"attribute": name, "tier": tier,
                                          "dimensions": list(ATTRIBUTES[name].dimensions),
                                          "supported": attribute_support(facts, pid, name, inputs)}))
    return drafts
