"""Track 3, detection: Anomaly Detection and Shift Analysis.

- Anomaly Detection: impostor (6-choice): five sessions of a user and one session of a similar
  user (1-2 dimensions apart, on a task none of the five covers, activating a dimension where the
  two differ); perturbation (5-choice): four normal sessions and one perturbed session of the same
  user. Options name the sessions by task.
- Shift Analysis, on five normal sessions plus one perturbed session of a user: which dimension
  shifted (6-choice), in which direction (3-choice), and the change in words (4-choice).
"""

from __future__ import annotations

import numpy as np

from ..schema import DIMENSION_CODES
from . import templates as tpl
from .drafts import TIER_LETTERS, Draft, distance, pick
from .facts import CorpusFacts

IMPOSTOR_CONTEXT, PERTURBATION_CONTEXT, SHIFT_CONTEXT = 5, 4, 5
VARIANTS = 3  # context draws per perturbed session


def _session_options(facts: CorpusFacts, correct: str, others: list[str]) -> tuple[str, ...]:
    task_of = {tid: task for sessions in facts.sessions.values() for task, tid in sessions.items()}
    return tuple(tpl.session_option(facts.tasks[task_of[t]]) for t in [correct, *others])


def _impostors(facts: CorpusFacts, pid: str) -> list[str]:
    """Personas 1-2 dimensions away; the nearest ones when no persona is that close."""
    tiers = facts.tiers(pid)
    by_distance = {q: distance(tiers, facts.tiers(q)) for q in facts.sessions if q != pid}
    close = [q for q, n in by_distance.items() if 1 <= n <= 2]
    nearest = min(by_distance.values(), default=0)
    return close or [q for q, n in by_distance.items() if n == nearest]


def impostor_items(facts: CorpusFacts, rng: np.random.Generator, per_persona: int) -> list[Draft]:
    drafts = []
    for pid, sessions in facts.sessions.items():
        candidates = _impostors(facts, pid)
        normal = facts.normal(pid)
        for _ in range(per_persona):
            if len(normal) < IMPOSTOR_CONTEXT or not candidates:
                break
            context = sorted(pick(rng, normal, IMPOSTOR_CONTEXT))
            used = {t for t, tid in sessions.items() if tid in context}
            other = candidates[int(rng.integers(len(candidates)))]
            differ = [d for d in DIMENSION_CODES if facts.tiers(pid)[d] != facts.tiers(other)[d]]
            tasks = [t for t, tid in facts.sessions[other].items() if t not in used and tid not in facts.shifts
                     and set(facts.active(t)) & set(differ)]
            if not tasks:
                continue
            intruder = facts.sessions[other][tasks[int(rng.integers(len(tasks)))]]
            drafts.append(Draft("anomaly_detection", "impostor", "episodic", pid, tuple(sorted([*context, intruder])),
                                tpl.QUESTIONS["impostor"].format(n=IMPOSTOR_CONTEXT + 1),
                                _session_options(facts, intruder, context),
                                metadata={"answer_trajectory": intruder, "impostor_profile": other}))
    return drafts


def perturbation_items(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for tid, shift in facts.shifts.items():
        pid = next((p for p, s in facts.sessions.items() if tid in s.values()), None)
        if pid is None or len(facts.normal(pid)) < PERTURBATION_CONTEXT:
            continue
        for _ in range(VARIANTS):
            context = sorted(pick(rng, facts.normal(pid), PERTURBATION_CONTEXT))
            drafts.append(Draft("anomaly_detection", "perturbation", "episodic", pid, tuple(sorted([*context, tid])),
                                tpl.QUESTIONS["perturbation"].format(n=PERTURBATION_CONTEXT + 1),
                                _session_options(facts, tid, context),
                                metadata={"answer_trajectory": tid, "dimension": shift.dimension}))
    return drafts


def anomaly_detection(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    return impostor_items(facts, rng, per_persona=30) + perturbation_items(facts, rng)


def _shift_drafts(facts: CorpusFacts, rng: np.random.Generator, pid: str, tid: str, task_id: str,
                  inputs: tuple[str, ...]) -> list[Draft]:
    s = facts.shifts[tid]
    task = tpl.task_ref(facts.tasks[task_id])
    meta = {"answer_trajectory": tid, "dimension": s.dimension, "from_tier": s.from_tier, "to_tier": s.to_tier}
    others = [d for d in DIMENSION_CODES if d != s.dimension]
    third = next(t for t in TIER_LETTERS if t not in (s.from_tier, s.to_tier))
    directions = (tpl.direction_text(s.dimension, s.from_tier, s.to_tier),
                  tpl.direction_text(s.dimension, s.to_tier, s.from_tier),
                  tpl.direction_text(s.dimension, s.from_tier, third))
    wrong_changes = []
    for d in pick(rng, others, 3):
        usual = facts.tiers(pid)[d]
        wrong_changes.append(tpl.shift_text(d, usual, str(rng.choice([t for t in TIER_LETTERS if t != usual]))))
    return [
        Draft("shift_analysis", "shifted_dimension", "episodic", pid, inputs,
              tpl.QUESTIONS["shifted_dimension"].format(n=len(inputs), task=task),
              tuple(f"How the user {tpl.ASPECT[d]}" for d in [s.dimension, *others]), metadata=meta),
        Draft("shift_analysis", "shift_direction", "episodic", pid, inputs,
              tpl.QUESTIONS["shift_direction"].format(task=task, aspect=tpl.ASPECT[s.dimension]),
              directions, metadata=meta),
        Draft("shift_analysis", "change_description", "episodic", pid, inputs,
              tpl.QUESTIONS["change_description"].format(task=task),
              (tpl.shift_text(s.dimension, s.from_tier, s.to_tier), *wrong_changes), metadata=meta),
    ]


def shift_analysis(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    drafts = []
    for pid, sessions in facts.sessions.items():
        for task_id, tid in sessions.items():
            if tid in facts.shifts and len(facts.normal(pid)) >= SHIFT_CONTEXT:
                inputs = tuple(sorted([*pick(rng, facts.normal(pid), SHIFT_CONTEXT), tid]))
                drafts += _shift_drafts(facts, rng, pid, tid, task_id, inputs)
    return drafts
