"""What the item generators know about a corpus: its personas' true tiers, tasks, trajectories and
perturbations (the ground truth that items are scored against and memories never see)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..profiles import load_profiles
from ..schema import DIMENSION_CODES, Profile
from ..tasks import Task, load_tasks
from ..traces import find_trajectory_dirs


@dataclass(frozen=True)
class Shift:
    dimension: str
    from_tier: str
    to_tier: str


@dataclass(frozen=True)
class CorpusFacts:
    personas: dict[str, Profile]
    tasks: dict[str, Task]
    sessions: dict[str, dict[str, str]]  # profile id -> task id -> trajectory id (sorted by task)
    shifts: dict[str, Shift]  # trajectory id -> its perturbation

    def tiers(self, pid: str) -> dict[str, str]:
        return {d: self.personas[pid].tiers[d].value for d in DIMENSION_CODES}

    def normal(self, pid: str) -> list[str]:
        """The persona's unperturbed trajectory ids, in task order."""
        return [tid for tid in self.sessions[pid].values() if tid not in self.shifts]

    def active(self, task_id: str) -> tuple[str, ...]:
        """Dimensions the task activates (paper Table 10, full and partial), in A-F order."""
        task = self.tasks[task_id]
        return tuple(d for d in DIMENSION_CODES if d in task.dims_full + task.dims_partial)

    @property
    def n_trajectories(self) -> int:
        return sum(len(s) for s in self.sessions.values())


def _split(name: str, personas: dict[str, Profile]) -> tuple[str, str]:
    """('p1_methodical', 'T-05') from 'p1_methodical_T-05'."""
    pid, _, task = name.rpartition("_")
    if pid not in personas or not task:
        raise ValueError(f"trajectory folder {name!r} does not name a persona of the corpus's profiles.json")
    return pid, task


def corpus_facts(corpus: str | Path) -> CorpusFacts:
    """Ground truth of a corpus built by `filegram corpus` (profiles.json, perturbations.json, signal/)."""
    corpus = Path(corpus)
    profiles_path = corpus / "profiles.json"
    personas = load_profiles(profiles_path) if profiles_path.is_file() else load_profiles()
    tasks = load_tasks()
    sessions: dict[str, dict[str, str]] = {}
    for directory in find_trajectory_dirs(corpus):
        pid, task = _split(directory.name, personas)
        if task not in tasks:
            raise ValueError(f"{directory}: task {task!r} is not one of the 32 tasks")
        sessions.setdefault(pid, {})[task] = directory.name
    if not sessions:
        raise ValueError(f"{corpus}: no trajectories found")
    sessions = {pid: dict(sorted(by_task.items())) for pid, by_task in sorted(sessions.items())}
    manifest = corpus / "perturbations.json"
    rows = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else []
    shifts = {r["trajectory_id"]: Shift(r["dimension"], r["from_tier"], r["to_tier"]) for r in rows}
    return CorpusFacts({pid: personas[pid] for pid in sessions}, tasks, sessions, shifts)
