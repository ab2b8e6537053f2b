"""Track 3, detection: Anomaly Detection and Shift Analysis.

- Anomaly Detection: impostor (6 sessions): five sessions of a user and one session of a similar
  user (1-2 dimensions apart, the same output language where one exists), on six tasks drawn alike;
  perturbation (4 sessions): the perturbed session and three of the user's normal sessions on
  perturbation candidate tasks (the engine perturbs no other task, so a session on another task would
  be ruled out by its task; a persona has 8 candidates and 5 perturbed sessions, hence 3). The
  sessions reach the memory as "Session 1" .. "Session n" in a neutral order (drafts.input_order)
  and the options name them so, which leaves an option nothing to tell but its position.
- Shift Analysis, on five normal sessions plus one perturbed session of a user (named by its task in
  the question): which aspect shifted (4 of the 6 aspects), in which direction (3 of the 4 one-step
  directions), and the change in words (4 of the 24 one-step changes); each option set drawn by
  conditional Poisson design weights, so every member is the key equally often (design.py).
Contexts prefer sessions whose task fully activates the shifted dimension, where the user's usual
tier shows; the generator keeps only items the ideal observer answers clearly (generate.py).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..traces.profiles import PERTURBATION_CANDIDATES
from ..traces.schema import DIMENSION_CODES
from . import templates as tpl
from .design import design_weights, exchangeable_set
from .drafts import Draft, distance, input_order, pick
from .ground_truth import CorpusFacts

IMPOSTOR_CONTEXT, PERTURBATION_CONTEXT, SHIFT_CONTEXT = 5, 3, 5
MIN_IMPOSTOR_SESSIONS = 4  # a small corpus (few tasks) gets impostor items of 4-5 sessions
IMPOSTOR_TRIES = 100  # impostor drafts per persona, before the evidence check (and duplicates)
PERTURBATION_VARIANTS, SHIFT_VARIANTS = 4, 3  # context draws per perturbed session
SHIFTED_OPTIONS, DIRECTION_OPTIONS, CHANGE_OPTIONS = 4, 3, 4
DIRECTIONS = (("L", "M"), ("M", "L"), ("M", "R"), ("R", "M"))  # the one-step shifts
CHANGES = tuple((d, a, b) for d in DIMENSION_CODES for a, b in DIRECTIONS)


def session_draft(sub_class: str, facts: CorpusFacts, pid: str, sessions: list[str], answer: str,
                  metadata: dict, position: int | None = None) -> Draft:
    """An item whose options are the input sessions, by label, in the memory's (neutral) order; with
    `position`, the answer is moved there (the others keep their neutral order)."""
    inputs = input_order(sessions)
    if position is not None:
        rest = [t for t in inputs if t != answer]
        inputs = (*rest[:position], answer, *rest[position:])
    labels = {tid: tpl.option_label(k + 1) for k, tid in enumerate(inputs)}
    question = tpl.QUESTIONS[sub_class].format(n=len(inputs))
    return Draft("anomaly_detection", sub_class, "episodic", pid, inputs, question,
                 tuple(labels[t] for t in inputs),
                 metadata={**metadata, "answer_trajectory": answer, "labels": labels},
                 option_facts=tuple({"trajectory": t} for t in inputs), key_index=inputs.index(answer))


def _similar(facts: CorpusFacts, pid: str) -> list[str]:
    """Personas 1-2 dimensions away (the nearest when none is that close), writing pid's language if any do."""
    tiers = facts.tiers(pid)
    by_distance = {q: distance(tiers, facts.tiers(q)) for q in facts.sessions if q != pid}
    close = [q for q, n in by_distance.items() if 1 <= n <= 2] or \
        [q for q, n in by_distance.items() if n == min(by_distance.values(), default=0)]
    same = [q for q in close if facts.personas[q].language == facts.personas[pid].language]
    return same or close


def impostor_items(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    """Six sessions on six tasks drawn alike (each activates an aspect in which the two users differ, and
    both users have a normal session on it); the intruder's task is any of the six, so a session's task
    says nothing about whether it is the intruder."""
    drafts = []
    for pid in facts.sessions:
        candidates = _similar(facts, pid)
        if not candidates:
            continue
        for _ in range(IMPOSTOR_TRIES):
            other = candidates[int(rng.integers(len(candidates)))]
            differ = {d for d in DIMENSION_CODES if facts.tiers(pid)[d] != facts.tiers(other)[d]}
            mine = {facts.task_of[t]: t for t in facts.normal(pid)}
            theirs = {facts.task_of[t]: t for t in facts.normal(other)}
            tasks = sorted(t for t in mine if t in theirs and differ & set(facts.active(t)))
            if len(tasks) < MIN_IMPOSTOR_SESSIONS:
                continue
            chosen = pick(rng, tasks, IMPOSTOR_CONTEXT + 1)  # fewer sessions in a small corpus
            odd = chosen[int(rng.integers(len(chosen)))]
            intruder = theirs[odd]
            context = [mine[t] for t in chosen if t != odd]
            drafts.append(session_draft("impostor", facts, pid, [*context, intruder], intruder,
                                        {"impostor_profile": other}))
    return drafts


def _contexts(facts: CorpusFacts, pid: str, dim: str, n: int, rng: np.random.Generator,
              first: list[str] = ()) -> list[str]:
    """n normal sessions of pid: `first`, then sessions whose task fully activates `dim`, then any."""
    normal = facts.normal(pid)
    showing = [t for t in normal if t not in first and facts.level(facts.task_of[t], dim) == "full"]
    rest = [t for t in normal if t not in first and t not in showing]
    chosen = list(first)[:n]
    chosen += pick(rng, showing, n - len(chosen))
    return chosen + pick(rng, rest, n - len(chosen))


def perturbation_items(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    """The perturbed session among the user's normal sessions on perturbation candidate tasks only: the
    engine perturbs no other task, so a session on one would be a giveaway by its task."""
    drafts = []
    for tid, shift in sorted(facts.shifts.items()):
        pid = facts.persona_of.get(tid)
        if pid is None:
            continue
        candidates = [t for t in facts.normal(pid) if facts.task_of[t] in PERTURBATION_CANDIDATES]
        if len(candidates) < PERTURBATION_CONTEXT:
            continue
        for _ in range(PERTURBATION_VARIANTS):
            context = pick(rng, candidates, PERTURBATION_CONTEXT)
            drafts.append(session_draft("perturbation", facts, pid, [*context, tid], tid,
                                        {"dimension": shift.dimension}))
    return drafts


def place_perturbation_keys(drafts: list[Draft], facts: CorpusFacts) -> list[Draft]:
    """The kept perturbation items with their key cycling over the positions, in schedule order.

    Few perturbed sessions show their shift, so a hash-spread position would leave one position the
    key's by chance (18 of 55 items once). Cycling over the items that survived the evidence check is
    exact; it follows the schedule, not the item seed, so every seed orders a set alike and shares its ingest.
    """
    chosen = sorted((d for d in drafts if d.sub_class == "perturbation"),
                    key=lambda d: (d.metadata["answer_trajectory"], d.inputs))
    moved = {id(d): session_draft(d.sub_class, facts, d.profile_id, list(d.inputs), d.metadata["answer_trajectory"],
                                  d.metadata, position=k % len(d.inputs)) for k, d in enumerate(chosen)}
    return [moved.get(id(d), d) for d in drafts]


def anomaly_detection(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    return impostor_items(facts, rng) + perturbation_items(facts, rng)


def _shift_design(facts: CorpusFacts) -> dict[str, object]:
    """Design weights from how often each aspect, direction and change is a perturbation's."""
    shifts = list(facts.shifts.values())
    dims = Counter(s.dimension for s in shifts)
    directions = {d: Counter((s.from_tier, s.to_tier) for s in shifts if s.dimension == d) for d in DIMENSION_CODES}
    overall = Counter((s.from_tier, s.to_tier) for s in shifts)
    changes = Counter((s.dimension, s.from_tier, s.to_tier) for s in shifts)
    return {"dims": design_weights(dims, DIMENSION_CODES, SHIFTED_OPTIONS),
            "directions": {d: design_weights(directions[d] + overall, DIRECTIONS, DIRECTION_OPTIONS)
                           for d in DIMENSION_CODES},
            "changes": design_weights(changes, CHANGES, CHANGE_OPTIONS)}


def _shift_drafts(facts: CorpusFacts, design: dict, rng: np.random.Generator, pid: str, tid: str,
                  inputs: tuple[str, ...]) -> list[Draft]:
    s = facts.shifts[tid]
    task = tpl.task_ref(facts.tasks[facts.task_of[tid]])
    meta = {"answer_trajectory": tid, "dimension": s.dimension, "from_tier": s.from_tier, "to_tier": s.to_tier}
    dims = exchangeable_set(rng, s.dimension, DIMENSION_CODES, design["dims"], SHIFTED_OPTIONS)
    directions = exchangeable_set(rng, (s.from_tier, s.to_tier), DIRECTIONS, design["directions"][s.dimension],
                                  DIRECTION_OPTIONS)
    changes = exchangeable_set(rng, (s.dimension, s.from_tier, s.to_tier), CHANGES, design["changes"],
                               CHANGE_OPTIONS)
    w = [int(rng.integers(tpl.WORDINGS)) for _ in range(3)]
    return [
        Draft("shift_analysis", "shifted_dimension", "episodic", pid, inputs,
              tpl.QUESTIONS["shifted_dimension"].format(n=len(inputs), task=task),
              tuple(tpl.ASPECT_NOUN[d][w[0]] for d in dims), metadata={**meta, "wording": w[0]},
              option_facts=tuple({"dimension": d} for d in dims)),
        Draft("shift_analysis", "shift_direction", "episodic", pid, inputs,
              tpl.QUESTIONS["shift_direction"].format(task=task, aspect=tpl.ASPECT[s.dimension]),
              tuple(tpl.direction_text(s.dimension, a, b, w[1]) for a, b in directions),
              metadata={**meta, "wording": w[1]},
              option_facts=tuple({"dimension": s.dimension, "from": a, "to": b} for a, b in directions)),
        Draft("shift_analysis", "change_description", "episodic", pid, inputs,
              tpl.QUESTIONS["change_description"].format(task=task),
              tuple(tpl.shift_text(d, a, b, w[2]) for d, a, b in changes), metadata={**meta, "wording": w[2]},
              option_facts=tuple({"dimension": d, "from": a, "to": b} for d, a, b in changes)),
    ]


def shift_analysis(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    design = _shift_design(facts)
    drafts = []
    for pid, sessions in facts.sessions.items():
        for tid in sessions.values():
            if tid not in facts.shifts or len(facts.normal(pid)) < SHIFT_CONTEXT:
                continue
            for _ in range(SHIFT_VARIANTS):
                context = _contexts(facts, pid, facts.shifts[tid].dimension, SHIFT_CONTEXT, rng)
                drafts += _shift_drafts(facts, design, rng, pid, tid, input_order([*context, tid]))
    return drafts
