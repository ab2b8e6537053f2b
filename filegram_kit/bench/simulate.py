"""Corpus facts without a corpus: what the generators would see, with shown tiers drawn from the
engine's expression model. For testing and sizing item generators in seconds (no trajectories are
built, so nothing here can be answered by a memory)."""

from __future__ import annotations

import numpy as np

from ..engine.policy import EXPRESSION, NEUTRAL
from ..traces.profiles import load_profiles, perturbation_schedule
from ..traces.schema import DIMENSION_CODES
from ..traces.tasks import load_tasks
from .ground_truth import CorpusFacts, Expression, Shift


def simulated_facts(seed: int = 0, n_personas: int | None = None, *, schedule_seed: int = 0) -> CorpusFacts:
    """The 20 paper personas (or the first `n_personas`) x 32 tasks with the perturbation schedule of
    `schedule_seed`; each session shows its persona's tier with the engine's probability for the task's
    activation (0.85 / 0.5 / 0.12), its neutral tier otherwise; a perturbed dimension shows its shift."""
    personas, tasks = load_profiles(), load_tasks()
    if n_personas:
        personas = dict(list(personas.items())[:n_personas])
    sessions = {pid: {t: f"{pid}_{t}" for t in sorted(tasks)} for pid in personas}
    shifts = {p.trajectory_id: Shift(p.dimension, p.from_tier.value, p.to_tier.value)
              for p in perturbation_schedule(seed=schedule_seed) if p.profile_id in personas}
    rng = np.random.default_rng(seed)
    expressed = {}
    for pid, by_task in sessions.items():
        for task_id, tid in by_task.items():
            task, shown = tasks[task_id], {}
            for d in DIMENSION_CODES:
                shown[d] = (personas[pid].tiers[d].value if rng.random() < EXPRESSION[task.activation(d)]
                            else NEUTRAL[d].value)
            if tid in shifts:
                shown[shifts[tid].dimension] = shifts[tid].to_tier
            attributes = {a: t.value for a, t in personas[pid].attributes.items()}
            expressed[tid] = Expression(shown, attributes, "policy")
    return CorpusFacts(personas, tasks, sessions, shifts, expressed)
