"""Build a corpus: every persona on every task, in parallel, resumable and byte-deterministic.

    out/
      corpus.json          seed, engine version, style pack, personas, tasks, trajectory count
      profiles.json        the personas (tiers, attributes), readable by `load_profiles(path)`: ground truth
      perturbations.json   which trajectories had one dimension shifted one tier (ground truth)
      expressed.json       per trajectory, the tier each dimension expressed and the attributes that fired
                           (ground truth: what the trace shows; merged from truth/<trajectory>.json)
      signal/<profile>_<task>/{events.json, summary.json, media/}   the release layout
      workspaces/<seed>/<task>/                                     task templates, built once

Each trajectory runs in a fresh copy of its task's workspace template, in a temporary sandbox, and
lands in `signal/` by one atomic rename: an interrupted build leaves only hidden temp folders,
which the next run removes and redoes; finished trajectories are skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..llm.base import Backend, get_backend
from ..traces.profiles import Perturbation, get_profile, load_profiles, perturbation_schedule, profiles_document
from ..traces.schema import Profile, Task
from ..traces.tasks import get_task, load_tasks
from ..util import atomic
from ..util.progress import progress_bar
from ..util.seeds import stable_seed
from ..workspace import ensure_template
from .agent import OfflineAgent
from .llm_agent import LLMAgent, model_error, model_errors
from .policy import effective_tiers, make_policy
from .recorder import Recorder
from .sandbox import START_MS, sandboxed_run  # noqa: F401 (START_MS: public)
from .style_packs import get_pack
from .tools import ToolBox

ENGINE_VERSION = 1
AGENTS = ("offline", "llm")
# what a trajectory's bytes depend on: the engine, the workspace builder and the persona/task/event data
FINGERPRINT_SOURCES = ("engine/*.py", "workspace/*.py", "traces/documents.py", "traces/media.py",
                       "traces/schema.py", "traces/profiles.py", "traces/tasks.py", "traces/datafiles.py",
                       "util/cjk.py", "data/*.json")
FINGERPRINT_EXCLUDED = ("data/calibration.json",  # fit on the engine's output (FileGramOS), not an input to it
                        "engine/event_counts.py", "engine/realism.py")  # they read corpora, never write one
TRUTH_DIR = "truth"  # per-trajectory expression records, merged into expressed.json


class CorpusError(RuntimeError):
    """The output folder holds something this build must not overwrite or mix with."""


@cache
def engine_fingerprint() -> str:
    """sha256 over the code and data that decide a trajectory's bytes (code by what it does: a docstring edit
    keeps it, `code_closure.digest`); a corpus never mixes two of them."""
    from ..util.code_closure import PACKAGE, digest

    paths = {p for pattern in FINGERPRINT_SOURCES for p in PACKAGE.glob(pattern)}
    return digest([p for p in paths if p.relative_to(PACKAGE).as_posix() not in FINGERPRINT_EXCLUDED])


def trajectory_id(profile: Profile | str, task: Task | str) -> str:
    pid = profile.id if isinstance(profile, Profile) else profile
    tid = task.id if isinstance(task, Task) else task
    return f"{pid}_{tid}"


def expression_record(tid: str, profile: Profile, task: Task, expression: dict[str, dict[str, str]],
                      source: str) -> dict[str, Any]:
    """One row of expressed.json: what a trajectory showed (see `Policy.expression`)."""
    return {"trajectory_id": tid, "profile_id": profile.id, "task_id": task.id, "source": source, **expression}


def _instructed(profile: Profile, perturbation: Perturbation | None) -> dict[str, dict[str, str]]:
    """The LLM agent's record: the tiers and attributes it was told to follow (no policy to read from)."""
    tiers = {d: t.value for d, t in effective_tiers(profile, perturbation).items()}
    return {"tiers": tiers, "attributes": {a: t.value for a, t in sorted(profile.attributes.items())}}


def generate_trajectory(profile: Profile, task: Task, signal_dir: str | Path, *, seed: int = 0,
                        perturbation: Perturbation | None = None, workspace_cache: str | Path,
                        agent: str = "offline", backend: Backend | None = None,
                        truth_dir: str | Path | None = None, style_pack: str = "A") -> Path:
    """Run one persona on one task; returns `signal_dir/<profile>_<task>`.

    agent="offline" is the policy agent; agent="llm" lets `backend` (default: the offline backend's
    explorer) drive the same tools through its agent_step task. With `truth_dir`, what the run
    expressed is written to `truth_dir/<id>.json` (ground truth, never inside the trajectory).
    `style_pack` is the offline agent's wording ("A", or "B": same behaviour, other words; style_packs.py).
    """
    pack = _check_pack(style_pack, agent)
    tid = trajectory_id(profile, task)
    rng = np.random.default_rng([seed, stable_seed(profile.id), stable_seed(task.id)])
    template = ensure_template(task, workspace_cache, seed=seed)
    with sandboxed_run(tid, template, Path(signal_dir), rng) as run:
        model = (backend or get_backend("offline")) if agent == "llm" else None
        recorder = Recorder(root=run.sandbox, trajectory_id=tid, profile_id=profile.id, clock=run.clock, rng=rng,
                            media=run.media,
                            **({"model_provider": model.name, "model_name": model.model} if model else {}))
        tools = ToolBox(run.sandbox, recorder, run.clock, rng)
        if model is None:
            policy = make_policy(profile, task, perturbation=perturbation, rng=rng)
            summary = OfflineAgent(profile, task, policy, tools, recorder, run.clock, rng, pack=pack).run()
            expressed = expression_record(tid, profile, task, policy.expression(), "policy")
        else:
            summary = LLMAgent(profile, task, model, tools, recorder, run.clock, perturbation=perturbation).run()
            expressed = expression_record(tid, profile, task, _instructed(profile, perturbation), "instructed")
        run.write(recorder.events, summary)
        if truth_dir is not None:  # before the trajectory lands: a landed trajectory always has its record
            atomic.write_json(Path(truth_dir) / f"{tid}.json", expressed)
    return Path(signal_dir) / tid


@dataclass(frozen=True)
class Job:
    profile: Profile
    task: Task
    perturbation: Perturbation | None

    @property
    def id(self) -> str:
        return trajectory_id(self.profile, self.task)


def plan_jobs(profiles: Sequence[Profile], tasks: Sequence[Task], *, seed: int = 0) -> list[Job]:
    """Every persona x task, with the perturbation schedule (5 of 8 candidate tasks per persona) applied."""
    shifts = {p.trajectory_id: p for p in perturbation_schedule(profiles, seed=seed)}
    return [Job(p, t, shifts.get(trajectory_id(p, t))) for p in profiles for t in tasks]


@cache
def _worker_backend(name: str, params_json: str) -> Backend:
    """One backend per worker process (the offline one fits its LSA model once); API answers are cached."""
    return get_backend(name, **json.loads(params_json))  # paid backends answer through the default cache


def _check_pack(style_pack: str, agent: str):
    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(AGENTS)}")
    pack = get_pack(style_pack)
    if agent == "llm" and pack.name != "A":
        raise ValueError(f"style pack {style_pack!r} words the offline agent's outputs; the llm agent writes its own")
    return pack


def _run_job(job: Job, signal_dir: str, seed: int, cache_dir: str, agent: str = "offline",
             backend: str = "offline", backend_params: str = "{}", style_pack: str = "A") -> str:
    model = _worker_backend(backend, backend_params) if agent == "llm" else None
    generate_trajectory(job.profile, job.task, signal_dir, seed=seed, perturbation=job.perturbation,
                        workspace_cache=cache_dir, agent=agent, backend=model,
                        truth_dir=Path(signal_dir).parent / TRUTH_DIR, style_pack=style_pack)
    return job.id


def _merge_manifest(out: Path, manifest: dict) -> dict:
    """The folder's manifest after this build: refuses to mix seeds, engines or style packs, keeps earlier
    personas/tasks."""
    path = out / "corpus.json"
    if not path.exists():
        if any((out / "signal").glob("*/events.json")):
            raise CorpusError(f"{out}/signal holds trajectories but no corpus.json: not a folder build_corpus made "
                              "(or made by an older version); use another --out folder")
        return manifest
    old = json.loads(path.read_text(encoding="utf-8"))
    absent = {"agent": "offline", "style_pack": "A"}  # what manifests written before the key existed mean
    for key, why in (("seed", ""), ("engine_version", ""), ("agent", ""), ("style_pack", ""),
                     ("engine", " (the engine's code or data changed since)")):
        if old.get(key, absent.get(key)) != manifest[key]:
            raise CorpusError(f"{out} holds a corpus built with {key}={old.get(key)!r}, not {manifest[key]!r}{why}; "
                              "its trajectories would mix with these: use another --out folder or delete this one")
    union = {k: list(dict.fromkeys(old.get(k, []) + manifest[k])) for k in ("profiles", "tasks")}
    return {**manifest, **union}


@dataclass(frozen=True)
class BuildReport:
    out: Path
    built: int
    skipped: int
    model_errors: dict[str, int] = field(default_factory=dict)  # LLM runs that ended on a model error, by type

    def __str__(self) -> str:
        text = f"{self.out}: built {self.built} trajectories, {self.skipped} already there"
        if self.model_errors:
            kinds = ", ".join(f"{kind} {n}" for kind, n in self.model_errors.items())
            text += (f"; {sum(self.model_errors.values())} ended unfinished on a model error ({kinds}; each "
                     "summary.json holds its error, and the next run of this command runs them again)")
        return text


def build_corpus(out: str | Path, *, seed: int = 0, profiles: Iterable[Profile | str] | None = None,
                 tasks: Iterable[Task | str] | None = None, workers: int | None = None,
                 progress: bool | None = None, agent: str = "offline", backend: str = "offline",
                 backend_params: dict[str, Any] | None = None, style_pack: str = "A",
                 store: bool = True, executor: str = "process", address: str | None = None) -> BuildReport:
    """Build (or finish building) the corpus in `out`; returns how many trajectories were run.

    agent="llm" runs the LLM agent with `backend` (a registered name, e.g. "gemini") built in each
    worker with `backend_params`; its answers go through the response cache, so a rerun is free.
    `style_pack` words the offline agent's outputs (see `generate_trajectory`); one pack per folder.
    `store`: convert what landed into the corpus' columnar event store (`filegram_kit.store`), which every
    reader then uses where it is current; a resumed build converts only the new trajectories.
    `executor`: where the trajectories are generated, "process" (default), "thread", "serial" or "ray" (at
    `address`, a local Ray when None; filegram_kit.util.executors); each lands atomically, so a re-run unit is harmless.
    """
    _check_pack(style_pack, agent)
    params_json = json.dumps(backend_params or {}, sort_keys=True)
    out = Path(out)
    chosen_p = [p if isinstance(p, Profile) else get_profile(p) for p in (profiles or load_profiles().values())]
    chosen_t = [t if isinstance(t, Task) else get_task(t) for t in (tasks or load_tasks().values())]
    jobs = plan_jobs(chosen_p, chosen_t, seed=seed)
    manifest = _merge_manifest(out, {"engine_version": ENGINE_VERSION, "engine": engine_fingerprint()[:16],
                                     "agent": agent if agent == "offline" else f"llm/{backend}",
                                     "seed": seed, "style_pack": style_pack, "profiles": [p.id for p in chosen_p],
                                     "tasks": [t.id for t in chosen_t]})
    signal = out / "signal"
    signal.mkdir(parents=True, exist_ok=True)
    atomic.write_json(out / "corpus.json", manifest)  # first, so an interrupted build can be resumed
    for leftover in signal.glob(".*"):  # half-written trajectories of an interrupted run
        shutil.rmtree(leftover, ignore_errors=True)
    cache = out / "workspaces"
    disable = None if progress is None else not progress
    _in_parallel(_build_template, [(t, str(cache), seed) for t in chosen_t], workers, "workspaces", disable)
    todo = [j for j in jobs if not (signal / j.id / "events.json").exists()
            or (agent == "llm" and model_error(signal / j.id / "summary.json"))]  # a failed model call: again
    _in_parallel(_run_job, [(j, str(signal), seed, str(cache), agent, backend, params_json, style_pack) for j in todo],
                 workers, "trajectories", disable, executor, address)
    _write_ground_truth(out, jobs, seed)
    manifest["trajectories"] = sum(1 for _ in signal.glob("*/events.json"))
    atomic.write_json(out / "corpus.json", manifest)
    if store:
        from ..store import update_store

        update_store(out, workers=workers, progress=progress, executor=executor, address=address)
    errors = model_errors(signal / j.id / "summary.json" for j in jobs) if agent == "llm" else {}
    return BuildReport(out, len(todo), len(jobs) - len(todo), errors)


def _write_expressed(out: Path, jobs: list[Job]) -> None:
    """expressed.json: the per-trajectory records of truth/, merged with what earlier builds wrote."""
    path = out / "expressed.json"
    rows = {r["trajectory_id"]: r for r in (json.loads(path.read_text(encoding="utf-8")) if path.is_file() else [])}
    missing = []
    for job in jobs:
        record = out / TRUTH_DIR / f"{job.id}.json"
        if record.is_file():
            rows[job.id] = json.loads(record.read_text(encoding="utf-8"))
        elif job.id not in rows:
            missing.append(job.id)
    if missing:
        raise CorpusError(f"{out}: no expression record for {len(missing)} trajectories (e.g. {missing[0]}); they were "
                          f"built by an older engine: build into a new --out folder")
    atomic.write_json(path, [rows[k] for k in sorted(rows)])


def _write_ground_truth(out: Path, jobs: list[Job], seed: int) -> None:
    """perturbations.json, expressed.json and profiles.json, merged with what earlier builds into this folder
    wrote."""
    _write_expressed(out, jobs)
    path = out / "perturbations.json"
    shifts = {r["trajectory_id"]: r for r in (json.loads(path.read_text(encoding="utf-8")) if path.is_file() else [])}
    shifts.update({j.id: {"trajectory_id": j.id, "profile_id": j.profile.id, "task_id": j.task.id,
                          "dimension": j.perturbation.dimension, "from_tier": j.perturbation.from_tier.value,
                          "to_tier": j.perturbation.to_tier.value} for j in jobs if j.perturbation is not None})
    atomic.write_json(path, list(shifts.values()))
    known = load_profiles(out / "profiles.json") if (out / "profiles.json").is_file() else {}
    personas = {**known, **{j.profile.id: j.profile for j in jobs}}
    atomic.write_json(out / "profiles.json", profiles_document(personas.values(),
                                                               source=f"the personas of this corpus (seed {seed})"))


def _build_template(task: Task, cache: str, seed: int) -> str:
    return str(ensure_template(task, cache, seed=seed))


def _in_parallel(fn, calls: list[tuple], workers: int | None, desc: str, disable: bool | None,
                 executor: str = "process", address: str | None = None) -> None:
    """fn(*args) for each args tuple on `executor` (filegram_kit.util.executors; serially with workers=1, easier to
    debug)."""
    from ..util.executors import get_executor

    workers = max(1, min(workers or os.cpu_count() or 1, len(calls) or 1))
    runner = get_executor("serial" if workers == 1 and executor != "ray" else executor, workers=workers,
                          address=address)
    with progress_bar(total=len(calls), desc=desc, unit="task" if desc == "workspaces" else "traj",
                      disable=disable) as bar:
        for _ in runner.imap(fn, calls):
            bar.update()


def dry_run_corpus(*, backend: str, seed: int = 0, profiles: Iterable[Profile | str] | None = None,
                   tasks: Iterable[Task | str] | None = None, progress: bool | None = None) -> Backend:
    """Run the LLM agent with offline answers to count what `backend` would be sent; nothing is kept.

    Returns the dry-run backend: `.report()` prints calls, tokens and cost per phase.
    """
    model = get_backend("dryrun", target=backend)
    chosen_p = [p if isinstance(p, Profile) else get_profile(p) for p in (profiles or load_profiles().values())]
    chosen_t = [t if isinstance(t, Task) else get_task(t) for t in (tasks or load_tasks().values())]
    with tempfile.TemporaryDirectory(prefix="filegram-dryrun-") as tmp:
        for job in progress_bar(plan_jobs(chosen_p, chosen_t, seed=seed), desc="dry run", unit="traj",
                                disable=None if progress is None else not progress):
            generate_trajectory(job.profile, job.task, Path(tmp) / "signal", seed=seed, perturbation=job.perturbation,
                                workspace_cache=Path(tmp) / "ws", agent="llm", backend=model)
    return model
