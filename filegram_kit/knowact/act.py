"""The Act test's runs: an acting agent does held-out tasks in fresh sandboxes, conditioned only on a context.

- **offline agent**: `infer_preferences(context)` gives a tier per dimension or unknown; the engine's
  offline agent then runs as a profile holding the user's identity (the task arrives in their language)
  with those tiers and no attributes. Its policy expresses a given tier with the engine's own
  probabilities, as the persona itself would (0.85 on a fully activating task). Where the context says
  nothing, the agent has no preference: each run draws that dimension's tier from the population's
  (`default_prior`: the other personas' tiers), as an agent serving an unknown user behaves like a
  typical one. So a zero-memory agent is not secretly the neutral-tier user, and a memory that conveys
  a neutral tier makes the agent act on it more consistently than no memory does.
- **LLM agent**: the engine's LLM agent with a system prompt that holds the context (`act_prompt`), never
  the persona's tiers.

Runs are keyed by what the agent was given: the offline agent's runs by the tiers it inferred
(`tiers_key`, so every context that reads the same way shares them: a memory that conveys nothing runs
exactly the zero-memory runs), the LLM agent's by the context's hash. Run `k` of a (persona, task) draws
from seed `ACT_SEED_OFFSET + ACT_SEED_STRIDE * seed + k` (never a corpus seed) under every key, so the
memory runs and the zero-memory runs are paired by common random numbers, their default tiers included,
and a rerun replays the same bytes. A run lands in `<key>/s<k>/signal/<persona>_<task>/` in the release
layout, and what the agent was given in `<key>/given.json`.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.corpus import generate_trajectory, trajectory_id
from ..engine.llm_agent import LLMAgent, model_error, model_errors
from ..engine.recorder import Recorder, SimClock
from ..engine.sandbox import sandboxed_run
from ..engine.tools import ToolBox
from ..memory.filegramos.calibration import Reading
from ..traces.schema import DIMENSION_CODES, Profile, Task, Tier
from ..util import atomic
from ..util.seeds import stable_seed  # seeded exactly as the engine seeds a run
from ..workspace import ensure_template

if TYPE_CHECKING:
    from ..llm.base import Backend

ACT_SEED_OFFSET = 7_000  # act runs never replay a corpus trajectory (corpus seeds are 0, 1, 2 ...)
ACT_SEED_STRIDE = 16  # seed indices per KnowAct seed: run k of seed s draws OFFSET + STRIDE * s + k
AGENTS = ("offline", "llm")
TIERS = ("L", "M", "R")
Prior = Mapping[str, Mapping[str, float]]  # dimension -> tier -> probability


def run_seed(seed: int, k: int) -> int:
    """The engine seed of act run `k` under KnowAct seed `seed`."""
    if not 0 <= k < ACT_SEED_STRIDE:
        raise ValueError(f"act run index {k} out of range: at most {ACT_SEED_STRIDE} runs per task and seed")
    return ACT_SEED_OFFSET + ACT_SEED_STRIDE * seed + k


def default_prior(tiers: Mapping[str, Mapping[str, str]], persona: str) -> dict[str, dict[str, float]]:
    """Per dimension, the share of each tier among the *other* personas (`tiers`: persona -> dimension -> tier),
    add-one smoothed so no tier is impossible: what an agent knows of a user it knows nothing about."""
    others = [t for p, t in tiers.items() if p != persona]
    return {d: {t: (1 + sum(o[d] == t for o in others)) / (len(TIERS) + len(others)) for t in TIERS}
            for d in DIMENSION_CODES}


def default_tiers(persona: Profile, task: Task, run: int, prior: Prior) -> dict[str, str]:
    """The tier each dimension falls back to in one run when the agent was given none: a draw from `prior`,
    seeded by the run alone, so every condition of that run shares it (common random numbers)."""
    rng = np.random.default_rng([run, stable_seed(persona.id), stable_seed(task.id), stable_seed("default-tiers")])
    draws = rng.random(len(DIMENSION_CODES))
    return {d: TIERS[min(int(np.searchsorted(np.cumsum([prior[d][t] for t in TIERS]), u, side="right")), 2)]
            for d, u in zip(DIMENSION_CODES, draws, strict=True)}


def acting_profile(persona: Profile, tiers: Mapping[str, str | None], defaults: Mapping[str, str]) -> Profile:
    """Who the offline agent acts as: the user's identity, the given tiers (`defaults` where unknown), no
    attributes. The persona's own tiers never reach it unless they are what `tiers` says."""
    given = {d: Tier.parse(tiers.get(d) or defaults[d]) for d in DIMENSION_CODES}
    return replace(persona, tiers=given, attributes={})


def tiers_key(tiers: Mapping[str, str | None]) -> str:
    """The folder name of the offline runs given these tiers: one letter per dimension, x where unknown."""
    return "".join(tiers.get(d) or "x" for d in DIMENSION_CODES)


def context_key(context: str) -> str:
    """The folder name of the LLM agent's runs given this context."""
    return "ctx-" + hashlib.sha256(context.encode()).hexdigest()[:16]


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

    def __init__(self, persona: Profile, task: Task, context: str, backend: Backend, tools: ToolBox,
                 recorder: Recorder, clock: SimClock):
        super().__init__(replace(persona, attributes={}), task, backend, tools, recorder, clock)
        self.messages[0] = {"role": "system", "content": act_prompt(persona, context)}


def act_errors(root: Path) -> dict[str, int]:
    """LLM act runs under `root` (a KnowAct output folder) that ended on a model error, by error type (such a run
    ends unfinished, `LLMAgent.run`, instead of ending the whole KnowAct run)."""
    return model_errors(root.glob("act/llm/*/s*/signal/*/summary.json"))


def _llm_run(persona: Profile, task: Task, context: str, signal_dir: Path, *, seed: int, workspaces: Path,
             backend: Backend) -> Path:
    """One LLM act run in a fresh sandbox copy of the task's workspace, landed atomically (as a corpus run)."""
    tid = trajectory_id(persona, task)
    rng = np.random.default_rng([seed, stable_seed(persona.id), stable_seed(task.id)])
    template = ensure_template(task, workspaces, seed=seed)
    with sandboxed_run(tid, template, signal_dir, rng, prefix="filegram-act-") as run:
        recorder = Recorder(root=run.sandbox, trajectory_id=tid, profile_id=persona.id, clock=run.clock, rng=rng,
                            media=run.media, model_provider=backend.name, model_name=backend.model)
        summary = ActingLLMAgent(persona, task, context, backend, ToolBox(run.sandbox, recorder, run.clock, rng),
                                 recorder, run.clock).run()
        run.write(recorder.events, summary)
    return signal_dir / tid


def llm_run_line(final: Path, key: str, k: int, seconds: float) -> str:
    """One log line per landed LLM act run. Each takes minutes on a local model, and KnowAct's own progress
    counts personas, so without it a log says nothing for hours."""
    summary = json.loads((final / "summary.json").read_text(encoding="utf-8"))
    calls = summary.get("total_tool_calls", 0)
    failed = round(calls * (1 - summary.get("tool_success_rate", 1.0)))
    ending = f"model error: {summary['error']}" if summary.get("error") else (
        "completed" if summary.get("completed") else f"stopped at {summary.get('total_iterations', 0)} iterations")
    return (f"knowact: act run {final.name} s{k} under {key} in {seconds:,.0f} s: {calls} tool calls, {failed} "
            f"failed, {ending}")


def act(persona: Profile, task: Task, root: Path, k: int, *, seed: int, workspaces: Path, agent: str = "offline",
        tiers: Mapping[str, str | None] | None = None, prior: Prior | None = None, context: str = "",
        backend: Backend | None = None) -> Path:
    """Run (or find, when it already landed) act run `k` of `task` under `root` (the given tiers' or context's
    folder); returns its trajectory folder. agent="offline" needs `tiers` (from `infer_preferences`) and the
    `prior` of unknown dimensions; agent="llm" needs `context` and a `backend`."""
    if agent not in AGENTS:
        raise ValueError(f"unknown acting agent {agent!r}; agents: {', '.join(AGENTS)}")
    final = root / f"s{k}" / "signal" / trajectory_id(persona, task)
    if (final / "events.json").is_file() and not model_error(final / "summary.json"):  # one that failed runs again
        return final
    engine_seed = run_seed(seed, k)
    if agent == "offline":
        if prior is None:
            raise ValueError("the offline acting agent needs the prior its unknown dimensions are drawn from")
        given: dict[str, Any] = {"tiers": {d: (tiers or {}).get(d) for d in DIMENSION_CODES}}
        profile = acting_profile(persona, given["tiers"], default_tiers(persona, task, engine_seed, prior))
        generate_trajectory(profile, task, final.parent, seed=engine_seed, workspace_cache=workspaces)
    else:
        given = {"context_sha256": hashlib.sha256(context.encode()).hexdigest(), "context_chars": len(context)}
        started = time.monotonic()
        _llm_run(persona, task, context, final.parent, seed=engine_seed, workspaces=workspaces, backend=backend)
        print(llm_run_line(final, root.name, k, time.monotonic() - started), file=sys.stderr, flush=True)
    if not (root / "given.json").is_file():
        atomic.write_json(root / "given.json", {"agent": agent, **given})
    return final


@dataclass(frozen=True)
class Observed:
    """A condition's act runs on one dimension, as the Act reader sees them (act_reader.py): read together, and
    the share of them that read as the user's tier one by one."""

    reading: Reading
    share: float


def act_pass(run: Observed, zero: Observed, tier: str) -> bool:
    """KnowAct's paired judge on traces: the runs read together as the user's tier, and more of them read so one
    by one than of the zero-memory runs of the same tasks and seeds. A neutral-tier user can pass: the
    zero-memory agent does not know the neutral tier is wanted (its unknown dimensions follow the population),
    a told one does."""
    return run.reading.tier == tier and run.share > zero.share


def act_pass_strict(run: Observed, zero: Observed, tier: str) -> bool:
    """The stricter variant: the runs read as the user's tier and the zero-memory runs do not, so memory
    changed the reading itself (no credit where the zero-memory runs already read as the user)."""
    return run.reading.tier == tier and zero.reading.tier != tier
