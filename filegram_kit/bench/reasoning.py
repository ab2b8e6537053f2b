"""Track 2, reasoning: Behavioral Inference and Trace Disentanglement.

- Behavioral Inference (4-choice): a user's sessions on all tasks but one; predict how they would
  work on the held-out task. Options describe the dimensions that task activates: the user's own
  tiers, and three neighbours differing in 1-2 of those dimensions.
- Trace Disentanglement (2-4 choices): two users' sessions on the same task, their events
  interleaved into one stream. The pair differs in exactly one of the dimensions the task
  activates (a fine-grained pair, so "the primary difference" has one answer). Two questions per
  stream: the difference in words (distractors claim differences on the task's other active
  dimensions, where the two users agree) and the aspect that differs.
"""

from __future__ import annotations

import itertools

import numpy as np

from . import templates as tpl
from .drafts import TIER_LETTERS, Draft, neighbours, pick
from .facts import CorpusFacts


def behavioral_inference(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for pid, sessions in facts.sessions.items():
        tiers = facts.tiers(pid)
        for held_out in sessions:
            dims = facts.active(held_out)
            pool = neighbours(tiers, dims)
            if len(pool) < 3 or len(sessions) < 4:
                continue
            inputs = tuple(tid for task, tid in sessions.items() if task != held_out)
            task = tpl.task_ref(facts.tasks[held_out])
            options = [tpl.prediction(t, dims) for t in [tiers, *pick(rng, pool, 3)]]
            drafts.append(Draft("behavioral_inference", "held_out_task", "procedural", pid, inputs,
                                tpl.QUESTIONS["inference"].format(task=task), tuple(options),
                                metadata={"held_out_task": held_out, "dimensions": list(dims)}))
    return drafts


def trace_disentanglement(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for a, b in itertools.combinations(facts.sessions, 2):
        ta, tb = facts.tiers(a), facts.tiers(b)
        for task_id in facts.sessions[a]:
            if task_id not in facts.sessions[b]:
                continue
            dims = facts.active(task_id)
            differ = [d for d in dims if ta[d] != tb[d]]
            if len(differ) != 1:
                continue
            d = differ[0]
            same = [x for x in dims if x != d]
            wrong = [tpl.contrast(x, ta[x], str(rng.choice([t for t in TIER_LETTERS if t != ta[x]])))
                     for x in pick(rng, same, 3)]
            first, second = (a, b) if rng.random() < 0.5 else (b, a)  # which user the stream lists first
            trajs = (facts.sessions[first][task_id], facts.sessions[second][task_id])
            question = tpl.QUESTIONS["disentangle"].format(task=tpl.task_ref(facts.tasks[task_id]))
            meta = {"task_id": task_id, "interleave": list(trajs), "other_profile": b, "dimension": d,
                    "tiers": [ta[d], tb[d]]}
            drafts.append(Draft("trace_disentanglement", "primary_difference", "procedural", a, trajs, question,
                                (tpl.contrast(d, ta[d], tb[d]), *wrong), metadata=meta))
            aspects = tuple(f"How they {tpl.ASPECT[x]}" for x in [d, *pick(rng, same, 3)])
            drafts.append(Draft("trace_disentanglement", "differing_aspect", "procedural", a, trajs,
                                tpl.QUESTIONS["differing_aspect"].format(task=tpl.task_ref(facts.tasks[task_id])),
                                aspects, metadata=meta))
    return drafts
