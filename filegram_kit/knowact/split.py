"""Which of a persona's 32 tasks a memory ingests, and which held-out task tests each dimension's Act.

Per persona, seeded by (seed, persona id):

1. **Act tasks.** Every dimension gets `ACT_TASKS` held-out tasks that fully activate it (paper Table 10),
   so the acting agent has room to show the habit, and one session's chance of not showing it averages
   out. Scarcest dimension first (C and D are fully activated by 9 and 11 tasks; A, B and F by 26), a
   dimension takes the already held-out tasks that fully activate it before drawing new ones, so the six
   dimensions share tasks (usually 6-9 held out in all). Each act task is run with several seeds, so every
   dimension is read over `ACT_RUNS` runs (`Split.runs`): more seeds per task where a corpus has fewer
   fully activating tasks. The act tasks are never ingested, and their prompts never name a dimension.
2. **Evidence design.** KnowAct varies how explicitly a preference is expressed (explicit / incidental /
   inferential). The analogue here is how visible a dimension was in the ingested sessions: C, D and E
   each get a target level, drawn uniformly from full / partial / none, and the ingest set keeps only
   the remaining tasks whose activation of that dimension is at most the target. When the targets
   leave fewer than `MIN_INGEST` sessions or cannot be met (D is partially activated by one task
   only), the scarcest target is relaxed to "full" and the draw is redone, so the design is always
   feasible; where a corpus has so few tasks that the act tasks took every fully activating one, the
   target becomes what the ingest set holds. A, B and F are fully activated by 26 of 32 tasks: starving
   them would leave a handful of sessions, so they are not designed and nearly always read "full".
3. **Evidence label.** Whatever the design aimed at, each (persona, dimension) is labelled by what the
   ingest set actually holds: the strongest Table 10 activation among its tasks, with the count of
   fully activating sessions beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..traces.schema import DIMENSION_CODES, Task
from ..util.seeds import stable_seed

ACT_TASKS = 3  # held-out tasks per dimension
ACT_RUNS = 9  # act runs per dimension and condition (tasks x seeds): what the Act reader reads together
LEVELS = ("full", "partial", "none")  # strongest first
RANK = {level: i for i, level in enumerate(reversed(LEVELS))}  # none 0, partial 1, full 2
DESIGNED = ("C", "D", "E")  # the dimensions with enough partial / non-activating tasks to starve
MIN_INGEST = 8


@dataclass(frozen=True)
class Split:
    """One persona's split: ingest tasks, the act task of each dimension, the design and the labels."""

    persona: str
    ingest: tuple[str, ...]  # task ids, sorted
    act: Mapping[str, tuple[str, ...]]  # dimension -> held-out task ids that fully activate it
    target: Mapping[str, str]  # designed dimension -> the evidence level aimed at
    evidence: Mapping[str, str]  # dimension -> strongest activation among the ingested tasks
    evidence_sessions: Mapping[str, int]  # dimension -> ingested tasks that fully activate it

    @property
    def act_tasks(self) -> tuple[str, ...]:
        return tuple(sorted({t for tasks in self.act.values() for t in tasks}))

    def runs(self, dimension: str, total: int = ACT_RUNS) -> tuple[tuple[str, int], ...]:
        """(task, seed index) of the act runs that read `dimension`: its tasks, each with the same number of
        seeds, at least `total` runs in all."""
        tasks = self.act[dimension]
        return tuple((t, k) for t in tasks for k in range(math.ceil(total / len(tasks))))

    def as_dict(self) -> dict:
        return {"persona": self.persona, "ingest": list(self.ingest), "act": {d: list(t) for d, t in self.act.items()},
                "target": dict(self.target), "evidence": dict(self.evidence),
                "evidence_sessions": dict(self.evidence_sessions)}


def _act_tasks(persona: str, tasks: Sequence[Task], rng: np.random.Generator,
               per_dimension: int = ACT_TASKS) -> dict[str, tuple[str, ...]]:
    full = {d: [t.id for t in tasks if t.activation(d) == "full"] for d in DIMENSION_CODES}
    empty = [d for d, ids in full.items() if not ids]
    if empty:
        raise ValueError(f"{persona}: none of its {len(tasks)} tasks fully activates dimension(s) {', '.join(empty)} "
                         "(paper Table 10), so no Act test is possible; build the corpus with more tasks")
    chosen: list[str] = []
    act = {}
    for d in sorted(DIMENSION_CODES, key=lambda d: (len(full[d]), d)):
        held = [t for t in chosen if t in full[d]]
        fresh = [t for t in full[d] if t not in chosen]
        pick = [held[i] for i in rng.permutation(len(held))] + [fresh[i] for i in rng.permutation(len(fresh))]
        act[d] = tuple(sorted(pick[:per_dimension]))
        chosen += [t for t in act[d] if t not in chosen]
    return {d: act[d] for d in DIMENSION_CODES}


def _evidence(tasks: Mapping[str, Task], ingest: Sequence[str]) -> tuple[dict[str, str], dict[str, int]]:
    levels = {d: max((tasks[t].activation(d) for t in ingest), key=RANK.__getitem__, default="none")
              for d in DIMENSION_CODES}
    return levels, {d: sum(tasks[t].activation(d) == "full" for t in ingest) for d in DIMENSION_CODES}


def _meets(levels: Mapping[str, str], target: Mapping[str, str]) -> bool:
    return all(levels[d] == level for d, level in target.items())


def plan_split(persona: str, tasks: Sequence[Task], *, seed: int = 0) -> Split:
    """The split of one persona (see the module docstring); same seed and persona, same split."""
    by_id = {t.id: t for t in tasks}
    rng = np.random.default_rng([seed, stable_seed("knowact-split", persona)])
    act = _act_tasks(persona, tasks, rng)
    held_out = {t for ids in act.values() for t in ids}
    rest = [t.id for t in tasks if t.id not in held_out]
    target = {d: LEVELS[int(rng.integers(len(LEVELS)))] for d in DESIGNED}
    while True:
        ingest = [t for t in rest if all(RANK[by_id[t].activation(d)] <= RANK[lv] for d, lv in target.items())]
        levels, counts = _evidence(by_id, ingest)
        if len(ingest) >= MIN_INGEST and _meets(levels, target):
            break
        starved = [d for d in target if target[d] != "full"]
        if not starved and len(ingest) >= MIN_INGEST:  # every fully activating task of a dimension is held out
            target = {d: levels[d] for d in target}  # the design is what the ingest set holds
            break
        if not starved:
            raise ValueError(f"{persona}: only {len(ingest)} of its tasks are left to ingest beside the act tasks "
                             f"(KnowAct needs {MIN_INGEST}); build the corpus with more tasks")
        scarcest = min(starved, key=lambda d: (sum(by_id[t].activation(d) == target[d] for t in rest), d))
        target[scarcest] = "full"
    return Split(persona, tuple(sorted(ingest)), act, target, levels, counts)


def plan_splits(personas: Sequence[str], tasks: Sequence[Task], *, seed: int = 0) -> dict[str, Split]:
    return {p: plan_split(p, tasks, seed=seed) for p in personas}
