"""The Act test's runs: an acting agent does a held-out task in a fresh sandbox, conditioned only on a context.

- **offline agent**: `infer_preferences(context)` gives a tier per dimension or unknown; the engine's
  offline agent then runs as a profile holding the user's identity (the task arrives in their language)
  with those tiers, the engine's neutral default (`policy.NEUTRAL`) where unknown, and no attributes.
  Its policy expresses a tier with the engine's own probabilities, as the persona itself would
  (0.85 on a fully activating task): an instructed LLM may follow more reliably.
- **LLM agent**: the engine's LLM agent with a system prompt that holds the context (`act_prompt`), never
  the persona's tiers.

Every run of one (persona, task) draws from the same seed (`ACT_SEED_OFFSET + seed`, never a corpus
seed), so the memory run and the zero-memory run are paired by common random numbers and a rerun replays
the same bytes. A run lands in `<condition>/signal/<persona>_<task>/` in the release layout, and what
the agent was given (tiers or the context's hash and size) in `<condition>/given/<persona>_<task>.json`.
The trajectory is then read on one dimension by FileGramOS's calibrated reader (`read_dimension`).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .. import atomic
from ..cleaning import clean
from ..engine.corpus import START_MS, generate_trajectory, trajectory_id
from ..engine.corpus import _stable as stable_seed  # seeded exactly as the engine seeds a run
from ..engine.llm_agent import LLMAgent
from ..engine.policy import NEUTRAL
from ..engine.recorder import Recorder, SimClock
from ..engine.tools import ToolBox
from ..fingerprint import fingerprints
from ..media import MediaStore
from ..memory.filegramos.calibration import Calibration, Reading
from ..schema import DIMENSION_CODES, Profile, Task, Tier
from ..traces import load_trajectories
from ..workspace import ensure_template

ACT_SEED_OFFSET = 7_000  # act runs never replay a corpus trajectory (corpus seeds are 0, 1, 2 ...)
AGENTS = ("offline", "llm")
TIER_INDEX = {"L": 0, "M": 1, "R": 2}


def acting_profile(persona: Profile, tiers: Mapping[str, str | None]) -> Profile:
    """Who the offline agent acts as: the user's identity, the given tiers (neutral where unknown), no
    attributes. The persona's own tiers never reach it unless they are what `tiers` says."""
    given = {d: Tier.parse(tiers[d]) if tiers.get(d) else NEUTRAL[d] for d in DIMENSION_CODES}
    return replace(persona, tiers=given, attributes={})


def act_prompt(persona: Profile, context: str) -> str:
    """The LLM agent's system prompt: a file assistant for this user, with what its memory recalled."""
    lines = [f"You are a file assistant working for {persona.name}, a {persona.role}, in a folder of files through "
             "the tools you are given. Do the task the way this user would want it done."]
    if context.strip():
        lines += ["", "What your memory recalls about this user:", context.strip()]
    if persona.lang == "zh":
        lines.append("Write every document in Chinese.")
    return "\n".join(lines)


class ActingLLMAgent(LLMAgent):
    """The engine's LLM agent, prompted with a memory context instead of a persona description."""

    def __init__(self, persona: Profile, task: Task, context: str, backend: Any, tools: ToolBox,
                 recorder: Recorder, clock: SimClock):
        super().__init__(acting_profile(persona, {}), task, backend, tools, recorder, clock)
        self.messages[0] = {"role": "system", "content": act_prompt(persona, context)}


def _llm_run(persona: Profile, task: Task, context: str, signal_dir: Path, *, seed: int, workspaces: Path,
             backend: Any) -> Path:
    """One LLM act run in a fresh sandbox copy of the task's workspace, landed atomically."""
    tid = trajectory_id(persona, task)
    rng = np.random.default_rng([seed, stable_seed(persona.id), stable_seed(task.id)])
    template = ensure_template(task, workspaces, seed=seed)
    signal_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{tid}.", dir=signal_dir))
    parent = Path(tempfile.mkdtemp(prefix="filegram-act-"))
    try:
        sandbox = parent / tid
        shutil.copytree(template, sandbox, ignore=shutil.ignore_patterns(".complete"))
        clock = SimClock(START_MS + float(rng.integers(0, 60 * 86_400_000)))
        media = MediaStore(staging / "media", clock=clock.now)
        recorder = Recorder(root=sandbox, trajectory_id=tid, profile_id=persona.id, clock=clock, rng=rng,
                            media=media, model_provider=backend.name, model_name=backend.model)
        summary = ActingLLMAgent(persona, task, context, backend, ToolBox(sandbox, recorder, clock, rng),
                                 recorder, clock).run()
        if media.entries:
            media.flush()
        atomic.write_json(staging / "summary.json", summary)
        atomic.write_json(staging / "events.json", recorder.events)
        final = signal_dir / tid
        if final.exists():
            shutil.rmtree(final)
        staging.rename(final)
        return final
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def act(persona: Profile, task: Task, condition: Path, *, seed: int, workspaces: Path, agent: str = "offline",
        tiers: Mapping[str, str | None] | None = None, context: str = "", backend: Any = None) -> Path:
    """Run (or find, when it already landed) one act run; returns its trajectory folder.

    agent="offline" needs `tiers` (from `infer_preferences`); agent="llm" needs `context` and a `backend`."""
    if agent not in AGENTS:
        raise ValueError(f"unknown acting agent {agent!r}; agents: {', '.join(AGENTS)}")
    final = condition / "signal" / trajectory_id(persona, task)
    if (final / "events.json").is_file():
        return final
    act_seed = ACT_SEED_OFFSET + seed
    if agent == "offline":
        given: dict[str, Any] = {"tiers": {d: (tiers or {}).get(d) for d in DIMENSION_CODES}}
        generate_trajectory(acting_profile(persona, given["tiers"]), task, condition / "signal", seed=act_seed,
                            workspace_cache=workspaces)
    else:
        given = {"context_sha256": hashlib.sha256(context.encode()).hexdigest(), "context_chars": len(context)}
        _llm_run(persona, task, context, condition / "signal", seed=act_seed, workspaces=workspaces, backend=backend)
    atomic.write_json(condition / "given" / f"{final.name}.json", {"agent": agent, **given})
    return final


def read_dimension(trajectory: Path, dimension: str, calibration: Calibration) -> Reading:
    """The calibrated L/M/R reading of one act run on one dimension (its fingerprint as a one-session mean)."""
    traj = clean(load_trajectories(trajectory, progress=False)).trajectories[0]
    row = fingerprints([traj]).row(0, named=True)
    return next(r for r in calibration.read(row) if r.dimension == dimension)


def distance(reading: Reading, tier: str) -> float:
    """Expected tier steps between the reading and `tier` under the reader's probabilities (0 = certain hit)."""
    return sum(p * abs(TIER_INDEX[t] - TIER_INDEX[tier]) for t, p in reading.probabilities.items())


def act_pass(run: Reading, zero: Reading, tier: str) -> bool:
    """KnowAct's paired judge on traces: the run reads as the user's tier and lands strictly closer to it than
    the zero-memory run."""
    return run.tier == tier and distance(run, tier) < distance(zero, tier)
