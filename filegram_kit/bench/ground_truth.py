"""What the item generators know about a corpus: its personas' true tiers, tasks, trajectories,
perturbations, and what each trajectory actually showed (the ground truth that items are keyed on
and memories never see).

`expressed.json` (written by the engine) records per trajectory the tier each dimension expressed
and the attributes whose behaviour fired. Items are keyed on that evidence, not on the persona's
tiers alone: a persona's tier shows in a session with probability 0.85 / 0.5 / 0.12 only. A corpus
without the file (built by an older engine, or the official release) falls back to the persona's
tiers with the perturbation applied, marked `source="assumed"`, and a warning says so.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ..traces.load import find_trajectory_dirs
from ..traces.profiles import load_profiles
from ..traces.schema import DIMENSION_CODES, Profile
from ..traces.tasks import Task, load_tasks


@dataclass(frozen=True)
class Shift:
    dimension: str
    from_tier: str
    to_tier: str


@dataclass(frozen=True)
class Expression:
    """What one trajectory showed: dimension -> tier, attribute -> tier (only attributes that fired)."""

    tiers: dict[str, str]
    attributes: dict[str, str]
    source: str  # "policy" (recorded by the offline engine) | "instructed" (LLM agent) | "assumed" (no record)

    @property
    def certain(self) -> bool:
        """Whether the shown tiers are exactly the instructed ones (no expression noise to model)."""
        return self.source != "policy"


@dataclass(frozen=True)
class CorpusFacts:
    personas: dict[str, Profile]
    tasks: dict[str, Task]
    sessions: dict[str, dict[str, str]]  # profile id -> task id -> trajectory id (sorted by task)
    shifts: dict[str, Shift]  # trajectory id -> its perturbation
    expressed: dict[str, Expression]  # trajectory id -> what it showed

    def tiers(self, pid: str) -> dict[str, str]:
        return {d: self.personas[pid].tiers[d].value for d in DIMENSION_CODES}

    def effective(self, tid: str) -> dict[str, str]:
        """The tiers a trajectory was run with: its persona's, with its perturbation applied."""
        tiers = self.tiers(self.persona_of[tid])
        shift = self.shifts.get(tid)
        return {**tiers, shift.dimension: shift.to_tier} if shift else tiers

    def normal(self, pid: str) -> list[str]:
        """The persona's unperturbed trajectory ids, in task order."""
        return [tid for tid in self.sessions[pid].values() if tid not in self.shifts]

    def active(self, task_id: str) -> tuple[str, ...]:
        """Dimensions the task activates (paper Table 10, full and partial), in A-F order."""
        task = self.tasks[task_id]
        return tuple(d for d in DIMENSION_CODES if d in task.dims_full + task.dims_partial)

    def level(self, task_id: str, dim: str) -> str:
        """How the task activates a dimension: "full", "partial" or "none" (the engine's expression levels)."""
        return self.tasks[task_id].activation(dim)

    @cached_property
    def task_of(self) -> dict[str, str]:
        return {tid: task for by_task in self.sessions.values() for task, tid in by_task.items()}

    @cached_property
    def persona_of(self) -> dict[str, str]:
        return {tid: pid for pid, by_task in self.sessions.items() for tid in by_task.values()}

    @property
    def languages(self) -> tuple[str, ...]:
        """The output languages the corpus' personas write in, sorted."""
        return tuple(sorted({p.language for p in self.personas.values()}))

    @property
    def n_trajectories(self) -> int:
        return sum(len(s) for s in self.sessions.values())

    def __hash__(self) -> int:  # facts are built once per corpus; identity is enough for memoising
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


def _split(name: str, personas: dict[str, Profile]) -> tuple[str, str]:
    """('p1_methodical', 'T-05') from 'p1_methodical_T-05'."""
    pid, _, task = name.rpartition("_")
    if pid not in personas or not task:
        raise ValueError(f"trajectory folder {name!r} does not name a persona of the corpus's profiles.json")
    return pid, task


def _expressed(corpus: Path, sessions: dict[str, dict[str, str]], personas: dict[str, Profile],
               shifts: dict[str, Shift]) -> dict[str, Expression]:
    path = corpus / "expressed.json"
    rows = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    found = {}
    for i, row in enumerate(rows):
        try:
            tiers = {d: str(row["tiers"][d]) for d in DIMENSION_CODES}
            found[row["trajectory_id"]] = Expression(tiers, dict(row.get("attributes", {})), str(row["source"]))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}: record {i}: missing or malformed field {exc}") from None
    out, assumed = {}, 0
    for pid, by_task in sessions.items():
        for tid in by_task.values():
            if tid in found:
                out[tid] = found[tid]
                continue
            assumed += 1
            tiers = {d: personas[pid].tiers[d].value for d in DIMENSION_CODES}
            if tid in shifts:
                tiers[shifts[tid].dimension] = shifts[tid].to_tier
            out[tid] = Expression(tiers, {a: t.value for a, t in personas[pid].attributes.items()}, "assumed")
    if assumed:
        warnings.warn(f"{corpus}: no expression record for {assumed} trajectories (no expressed.json: an older "
                      "engine, or another source); their keys assume every session shows its persona's tiers",
                      stacklevel=3)
    return out


CORPUS_FILES = ("corpus.json", "profiles.json", "perturbations.json", "expressed.json", "signal")


def corpus_version(corpus: str | Path) -> tuple:
    """The corpus folder and the size and mtime of the files its ground truth is read from (and of signal/,
    which changes when a trajectory is added or removed): what an in-process memo of its items keys on."""
    root = Path(corpus).resolve()
    stats = [(name, (root / name).stat()) for name in CORPUS_FILES if (root / name).exists()]
    return str(root), tuple((name, st.st_mtime_ns, st.st_size) for name, st in stats)


def corpus_facts(corpus: str | Path) -> CorpusFacts:
    """Ground truth of a corpus built by `filegram corpus` (profiles.json, perturbations.json,
    expressed.json, signal/)."""
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
    return CorpusFacts({pid: personas[pid] for pid in sessions}, tasks, sessions, shifts,
                       _expressed(corpus, sessions, personas, shifts))
