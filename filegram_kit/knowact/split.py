"""Which of a persona's 32 tasks a memory ingests, and which held-out task tests each dimension's Act.

Per persona, seeded by (seed, persona id):

1. **Act tasks.** Every dimension gets one held-out task that fully activates it (paper Table 10), so
   the acting agent has room to show the habit. Tasks are drawn until every dimension is covered,
   scarcest dimension first (C and D are fully activated by 9 and 11 tasks; A, B and F by 26), so a few
   tasks (usually 2-4) cover all six; each dimension then takes one of those that fully activate it.
   The act tasks are never ingested, and their prompts never name a dimension (the task's own words).
2. **Evidence design.** KnowAct varies how explicitly a preference is expressed (explicit / incidental /
   inferential). The analogue here is how visible a dimension was in the ingested sessions: C, D and E
   each get a target level, drawn uniformly from full / partial / none, and the ingest set keeps only
   the remaining tasks whose activation of that dimension is at most the target. When the targets
   leave fewer than `MIN_INGEST` sessions or cannot be met (D is partially activated by one task
   only), the scarcest target is relaxed to "full" and the draw is redone, so the design is always
   feasible. A, B and F are fully activated by 26 of 32 tasks: starving them would leave five
   sessions, so they are not designed and nearly always read "full".
3. **Evidence label.** Whatever the design aimed at, each (persona, dimension) is labelled by what the
   ingest set actually holds: the strongest Table 10 activation among its tasks, with the count of
   fully activating sessions beside it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..schema import DIMENSION_CODES, Task

LEVELS = ("full", "partial", "none")  # strongest first
RANK = {level: i for i, level in enumerate(reversed(LEVELS))}  # none 0, partial 1, full 2
DESIGNED = ("C", "D", "E")  # the dimensions with enough partial / non-activating tasks to starve
MIN_INGEST = 8


def _stable(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


@dataclass(frozen=True)
class Split:
    """One persona's split: ingest tasks, the act task of each dimension, the design and the labels."""

    persona: str
    ingest: tuple[str, ...]  # task ids, sorted
    act: Mapping[str, str]  # dimension -> held-out task id that fully activates it
    target: Mapping[str, str]  # designed dimension -> the evidence level aimed at
    evidence: Mapping[str, str]  # dimension -> strongest activation among the ingested tasks
    evidence_sessions: Mapping[str, int]  # dimension -> ingested tasks that fully activate it

    @property
    def act_tasks(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.act.values())))

    def as_dict(self) -> dict:
        return {"persona": self.persona, "ingest": list(self.ingest), "act": dict(self.act),
                "target": dict(self.target), "evidence": dict(self.evidence),
                "evidence_sessions": dict(self.evidence_sessions)}


def _act_tasks(persona: str, tasks: Sequence[Task], rng: np.random.Generator) -> dict[str, str]:
    full = {d: [t.id for t in tasks if t.activation(d) == "full"] for d in DIMENSION_CODES}
    empty = [d for d, ids in full.items() if not ids]
    if empty:
        raise ValueError(f"{persona}: none of its {len(tasks)} tasks fully activates dimension(s) {', '.join(empty)} "
                         "(paper Table 10), so no Act test is possible; build the corpus with more tasks")
    chosen: list[str] = []
    for d in sorted(DIMENSION_CODES, key=lambda d: (len(full[d]), d)):
        if not any(t in chosen for t in full[d]):
            chosen.append(full[d][int(rng.integers(len(full[d])))])
    return {d: (pool := [t for t in chosen if t in full[d]])[int(rng.integers(len(pool)))] for d in DIMENSION_CODES}


def _evidence(tasks: Mapping[str, Task], ingest: Sequence[str]) -> tuple[dict[str, str], dict[str, int]]:
    levels = {d: max((tasks[t].activation(d) for t in ingest), key=RANK.__getitem__, default="none")
              for d in DIMENSION_CODES}
    return levels, {d: sum(tasks[t].activation(d) == "full" for t in ingest) for d in DIMENSION_CODES}


def _meets(levels: Mapping[str, str], target: Mapping[str, str]) -> bool:
    return all(levels[d] == level for d, level in target.items())


def plan_split(persona: str, tasks: Sequence[Task], *, seed: int = 0) -> Split:
    """The split of one persona (see the module docstring); same seed and persona, same split."""
    by_id = {t.id: t for t in tasks}
    rng = np.random.default_rng([seed, _stable("knowact-split", persona)])
    act = _act_tasks(persona, tasks, rng)
    rest = [t.id for t in tasks if t.id not in set(act.values())]
    target = {d: LEVELS[int(rng.integers(len(LEVELS)))] for d in DESIGNED}
    while True:
        ingest = [t for t in rest if all(RANK[by_id[t].activation(d)] <= RANK[lv] for d, lv in target.items())]
        levels, counts = _evidence(by_id, ingest)
        if len(ingest) >= MIN_INGEST and _meets(levels, target):
            break
        starved = [d for d in target if target[d] != "full"]
        if not starved:
            raise ValueError(f"{persona}: only {len(ingest)} of its tasks are left to ingest beside the act tasks "
                             f"(KnowAct needs {MIN_INGEST}); build the corpus with more tasks")
        scarcest = min(starved, key=lambda d: (sum(by_id[t].activation(d) == target[d] for t in rest), d))
        target[scarcest] = "full"
    return Split(persona, tuple(sorted(ingest)), act, target, levels, counts)


def plan_splits(personas: Sequence[str], tasks: Sequence[Task], *, seed: int = 0) -> dict[str, Split]:
    return {p: plan_split(p, tasks, seed=seed) for p in personas}
