"""Track 1, understanding: Attribute Recognition, Behavioral Fingerprint, Profile Reconstruction.

- Attribute Recognition (3-choice): from all of a user's sessions, the tier of a dimension (the
  three tier descriptions), a behavioural attribute of paper Table 8 (its three values), or the
  output language (the true one and two others).
- Behavioral Fingerprint (4-choice): one anonymous session, four six-part portraits: the user's
  and three neighbours that differ in 1-2 of the dimensions the session's task activates.
- Profile Reconstruction (free-form): per user and behavioural attribute, a description of that
  attribute; the reference is the attribute's value (a Likert judge compares them).
"""

from __future__ import annotations

import numpy as np

from ..schema import ATTRIBUTES, BEHAVIORAL_ATTRIBUTES, DIMENSION_CODES
from . import templates as tpl
from .drafts import TIER_LETTERS, Draft, neighbours, pick
from .facts import CorpusFacts

SEMANTIC_ATTRIBUTES = frozenset({"tone", "output_structure", "documentation", "naming", "language", "role"})
# attributes that are not a dimension's own name: asked about as attributes
ATTRIBUTE_ITEMS = tuple(a for a in BEHAVIORAL_ATTRIBUTES
                        if a not in ("reading_strategy", "output_detail", "directory_style", "edit_strategy",
                                     "cross_modal"))


def attribute_channel(name: str) -> str:
    return "semantic" if name in SEMANTIC_ATTRIBUTES else "procedural"


def attribute_recognition(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for pid, sessions in facts.sessions.items():
        inputs = tuple(sessions.values())
        tiers = facts.tiers(pid)
        for d in DIMENSION_CODES:
            options = [tpl.BEHAVIOUR[d][tiers[d]]] + [tpl.BEHAVIOUR[d][t] for t in TIER_LETTERS if t != tiers[d]]
            drafts.append(Draft("attribute_recognition", "dimension_tier", "procedural", pid, inputs,
                                tpl.QUESTIONS["dimension_tier"].format(aspect=tpl.ASPECT[d]), tuple(options),
                                metadata={"dimension": d, "tier": tiers[d]}))
        language = facts.personas[pid].language
        others = pick(rng, [x for x in tpl.LANGUAGES if x != language], 2)
        drafts.append(Draft("attribute_recognition", "language", "semantic", pid, inputs, tpl.QUESTIONS["language"],
                            (language, *others), metadata={"attribute": "language"}))
        for name in ATTRIBUTE_ITEMS:
            tier = facts.personas[pid].attributes[name].value
            values = [tpl.attribute_value(name, tier)] + [tpl.attribute_value(name, t) for t in TIER_LETTERS
                                                          if t != tier]
            question = tpl.QUESTIONS["attribute"].format(label=tpl.attribute_label(name),
                                                         description=tpl.attribute_hint(name))
            drafts.append(Draft("attribute_recognition", "attribute", attribute_channel(name), pid, inputs,
                                question, tuple(values), metadata={"attribute": name, "tier": tier}))
    return drafts


def behavioral_fingerprint(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for pid, sessions in facts.sessions.items():
        tiers = facts.tiers(pid)
        for task_id, tid in sessions.items():
            dims = facts.active(task_id)
            pool = neighbours(tiers, dims)
            if len(dims) < 2 or len(pool) < 3:
                continue  # one active dimension cannot tell four portraits apart
            for variant in range(2):  # a second draw with other distractors (the corpus has fewer sessions)
                distractors = pick(rng, pool, 3)
                question = tpl.QUESTIONS["fingerprint"].format(task=tpl.task_ref(facts.tasks[task_id]))
                drafts.append(Draft("behavioral_fingerprint", "portrait", "procedural", pid, (tid,), question,
                                    tuple(tpl.portrait(t) for t in [tiers, *distractors]),
                                    metadata={"task_id": task_id, "perturbed": tid in facts.shifts,
                                              "variant": variant, "dimensions": list(dims)}))
    return drafts


def profile_reconstruction(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for pid, sessions in facts.sessions.items():
        for name in BEHAVIORAL_ATTRIBUTES:
            tier = facts.personas[pid].attributes[name].value
            reference = f"{tpl.attribute_label(name)}: {tpl.attribute_value(name, tier)}"
            question = tpl.QUESTIONS["profile"].format(label=tpl.attribute_label(name),
                                                       description=tpl.attribute_hint(name))
            drafts.append(Draft("profile_reconstruction", "attribute", attribute_channel(name), pid,
                                tuple(sessions.values()), question, (), reference,
                                metadata={"attribute": name, "tier": tier,
                                          "dimensions": list(ATTRIBUTES[name].dimensions)}))
    return drafts
