"""The Know test: a direct question about one habit, answered from the memory's own retrieval.

Per persona, one question per dimension (its three tier descriptions) and one per behavioural attribute
under it (paper Table 8's three values, the dimension's own attribute left out: it is the dimension).
Each question is the retrieval query, and the shared reader answers it from that context alone, as in
the bench. The options are the whole value set (no structural tell, design.py): one wording per
question and a seeded order, so no phrase or position marks the key. A choices-only reader is at
chance (1/3); the `no_context` method measures that floor on these very questions.

Free-form Know (`free_know_items`) asks the same habit without options: per dimension, its own attribute
(paper Table 8: reading strategy for A, output detail for B, ...; E has none and is not asked), "describe
this user's ...", answered in the memory's own words by the shared reader and scored by the value judge of
Profile Reconstruction (a pass: 4 or 5 of 5). Nothing to pick from, so a memory with nothing on the user
scores near 0, not 1/3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..bench import templates as tpl
from ..bench.reader import answer
from ..bench.schema import Item
from ..bench.understanding import ATTRIBUTE_ITEMS
from ..engine.policy import OWN_ATTRIBUTE
from ..llm.tasks import LETTERS
from ..traces.schema import ATTRIBUTES, DIMENSION_CODES, Profile
from ..util.seeds import stable_seed

if TYPE_CHECKING:
    from ..llm.base import Backend

TIERS = ("L", "M", "R")
KNOW_QUESTION = "From what you remember about this user, which description best fits how the user {aspect}?"


def attributes_of(dimension: str) -> tuple[str, ...]:
    """The behavioural attributes asked under a dimension (version_strategy sits under C and D)."""
    return tuple(a for a in ATTRIBUTE_ITEMS if dimension in ATTRIBUTES[a].dimensions)


def _item(qid: str, persona: Profile, question: str, options: dict[str, str], key: str,
          metadata: dict[str, Any], rng: np.random.Generator) -> Item:
    order = [TIERS[int(i)] for i in rng.permutation(len(TIERS))]
    return Item(qid, "knowact", "know", metadata.get("attribute", "dimension"), "procedural", persona.id, (),
                question, tuple(options[t] for t in order), LETTERS[order.index(key)], metadata)


def know_items(persona: Profile, *, seed: int = 0) -> list[Item]:
    """The persona's Know questions: six dimension questions, then the attributes under each."""
    rng = np.random.default_rng([seed, stable_seed("knowact-know", persona.id)])
    items = []
    for d in DIMENSION_CODES:
        w = int(rng.integers(tpl.WORDINGS))
        options = {t: tpl.BEHAVIOUR[d][t][w] for t in TIERS}
        items.append(_item(f"know-{persona.id}-{d}", persona, KNOW_QUESTION.format(aspect=tpl.ASPECT[d]), options,
                           persona.tiers[d].value, {"dimension": d, "tier": persona.tiers[d].value}, rng))
        for name in (a for a in attributes_of(d) if a in persona.attributes):
            w = int(rng.integers(tpl.WORDINGS))
            tier = persona.attributes[name].value
            question = tpl.QUESTIONS["attribute"].format(label=tpl.attribute_label(name),
                                                         description=tpl.attribute_hint(name))
            items.append(_item(f"know-{persona.id}-{d}-{name}", persona, question,
                               {t: tpl.attribute_option(name, t, w) for t in TIERS}, tier,
                               {"dimension": d, "attribute": name, "tier": tier}, rng))
    return items


OWN_OF = {d: a for a, d in OWN_ATTRIBUTE.items()}  # dimension -> its own attribute (E has none)


def free_know_items(persona: Profile) -> list[Item]:
    """The persona's free-form Know questions: per dimension with an own attribute, describe it (no options;
    the reference is the attribute's Table 8 value for the persona's tier of the dimension)."""
    items = []
    for d in DIMENSION_CODES:
        name = OWN_OF.get(d)
        if name is None:
            continue
        tier = persona.tiers[d].value
        question = tpl.QUESTIONS["profile"].format(label=tpl.attribute_label(name),
                                                   description=tpl.attribute_hint(name))
        items.append(Item(f"know-free-{persona.id}-{d}", "knowact", "know", "free-form", "procedural", persona.id,
                          (), question, (), f"{tpl.attribute_label(name)}: {tpl.attribute_value(name, tier)}",
                          {"dimension": d, "attribute": name, "tier": tier, "free_form": True}))
    return items


def know_test(memory: Any, items: list[Item], *, backend: Backend) -> list[dict[str, Any]]:
    """One outcome per item: retrieve with the question, answer with the shared reader (a free-form answer
    passes at 4 or 5 of 5 from the value judge; `likert` keeps its score)."""
    out = []
    for item in items:
        context = memory.retrieve(item.question, backend=backend)
        got = answer(item, context, backend=backend)
        out.append({"question_id": item.question_id, "dimension": item.metadata["dimension"],
                    "attribute": item.metadata.get("attribute"), "free_form": not item.is_mcq,
                    "is_correct": got.is_correct and got.error is None, "likert": got.likert, "answer": got.answer,
                    "error": got.error, "context_tokens": context.tokens})
    return out
