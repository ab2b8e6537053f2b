"""The LLM agent: a model does the task through the same recording tools as the offline agent.

Each iteration asks the backend's `agent_step` task for the next turn given the conversation so far
(system prompt = the persona, from its tiers and any perturbation; user prompt = the task in the
persona's language) and the tool specs; the tool calls it returns run on the sandbox through
`ToolBox.call`, their outputs go back into the conversation, until the model answers without a tool
call or the iteration cap is reached. The recorder sees exactly what it sees for the offline agent,
so the trajectory layout is the same. With `get_backend("offline")` the model is a small explorer, which
makes the loop testable without a key.

A model call that fails for good (a prompt the window cannot hold even cut, a timeout, a reply that does not
parse) ends that run unfinished with the error in its summary.json (`model_errors` counts them), never the
whole corpus build or KnowAct run; a resumed build or KnowAct run runs it again (errors are never cached).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..llm.base import Backend
from ..llm.retry import ProviderError
from ..llm.tasks import ParseError
from ..traces.profiles import Perturbation
from ..traces.schema import DIMENSIONS, Profile, Task
from .recorder import Recorder, SimClock
from .tools import TOOL_SPECS, ToolBox

MAX_ITERATIONS = 40
KEEP_MESSAGES = 12  # after a compaction: the system and task prompts plus the latest turns
OUTPUT_CHARS = 6000  # a tool output longer than this is cut in the conversation (the event keeps it all)


def persona_prompt(profile: Profile, perturbation: Perturbation | None = None) -> str:
    """The system prompt: who the persona is and how they work, tier by tier (paper Table 2)."""
    lines = [f"You are {profile.name}, a {profile.role}. You work in a folder of files through the tools "
             "you are given. Work the way this person works:"]
    lines += [f"- {dim.name}: {dim.describe(profile.tiers[code])}" for code, dim in DIMENSIONS.items()]
    if profile.lang == "zh":
        lines.append("- Write every document in Chinese.")
    if perturbation is not None:
        dim = DIMENSIONS[perturbation.dimension]
        lines += ["", "BEHAVIORAL ADJUSTMENT (follow this temporary change for this task only):",
                  f"- {dim.name}: today, {dim.describe(perturbation.to_tier).lower()} instead of "
                  f"{dim.describe(perturbation.from_tier).lower()}."]
    return "\n".join(lines)


class LLMAgent:
    """Runs one persona on one task with a model; `run()` returns summary.json's content."""

    def __init__(self, profile: Profile, task: Task, backend: Backend, tools: ToolBox, recorder: Recorder,
                 clock: SimClock, *, perturbation: Perturbation | None = None, max_iterations: int | None = None,
                 context_budget: int = 60_000):
        self.profile, self.task, self.backend = profile, task, backend
        self.tools, self.recorder, self.clock = tools, recorder, clock
        self.max_iterations, self.context_budget = max_iterations or MAX_ITERATIONS, context_budget
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": persona_prompt(profile, perturbation)},
            {"role": "user", "content": task.prompt_for(profile)}]

    def run(self) -> dict[str, Any]:
        self.recorder.session_start()
        done = False
        try:
            for _ in range(self.max_iterations):
                done = self._iteration()
                if done:
                    break
        except (ProviderError, ParseError) as exc:  # raised by agent_step, inside an iteration
            self.recorder.iteration_end()
            return {**self.recorder.session_end(completed=False), "error": f"{type(exc).__name__}: {exc}"[:500]}
        return self.recorder.session_end(completed=done)

    def _iteration(self) -> bool:
        self.recorder.iteration_start()
        self._maybe_compact()
        before = (self.backend.usage.total("input_tokens"), self.backend.usage.total("output_tokens"))
        started = time.perf_counter()
        with self.backend.phase("generate"):
            step = self.backend.agent_step(self.messages, TOOL_SPECS)
        tokens_in = self.backend.usage.total("input_tokens") - before[0] or self._estimate_context()
        tokens_out = self.backend.usage.total("output_tokens") - before[1] or max(1, len(step.text) // 4)
        # real latency for remote models; offline (and cached) answers take a token-based simulated time
        measured = (time.perf_counter() - started) * 1000
        latency = measured if self.backend.name != "offline" and measured > 50 else 700 + 14 * tokens_out
        self.clock.advance(latency)
        self.recorder.llm_response(latency, tokens_in, tokens_out, has_reasoning=bool(step.text),
                                   stop_reason="end_turn" if step.done else "tool_use")
        calls = [{"name": c.name, "arguments": c.arguments, "id": c.id or f"call_{i}"}
                 for i, c in enumerate(step.tool_calls)]
        self.messages.append({"role": "assistant", "content": step.text, "tool_calls": calls})
        for call in calls:
            result = self.tools.call(call["name"], **call["arguments"])
            output = result.output if result.ok else f"ERROR ({result.error_type}): {result.output}"
            self.messages.append({"role": "tool", "tool_call_id": call["id"], "name": call["name"],
                                  "content": output[:OUTPUT_CHARS]})
        self.recorder.iteration_end()
        return step.done

    def _estimate_context(self) -> int:
        return sum(len(str(m.get("content", ""))) for m in self.messages) // 4

    def _maybe_compact(self) -> None:
        """Drop the oldest turns once the conversation outgrows the budget (as agent harnesses do)."""
        tokens = self._estimate_context()
        if tokens <= self.context_budget or len(self.messages) <= KEEP_MESSAGES + 2:
            return
        head, tail = self.messages[:2], self.messages[-KEEP_MESSAGES:]
        while tail and tail[0]["role"] == "tool":  # never start with answers to calls that were dropped
            tail = tail[1:]
        before = len(self.messages)
        self.messages = head + tail
        self.recorder.compaction(before, len(self.messages), tokens - self._estimate_context())


def model_error(summary: Path) -> str | None:
    """The model error a run's summary.json records (None for a finished run, or one not run yet)."""
    try:
        return json.loads(summary.read_text(encoding="utf-8")).get("error")
    except FileNotFoundError:
        return None


def model_errors(summaries: Iterable[Path]) -> dict[str, int]:
    """Runs that ended on a model error (their summary.json files), by error type."""
    counts: dict[str, int] = {}
    for path in sorted(summaries):
        if error := model_error(path):
            kind = error.split(":", 1)[0]
            counts[kind] = counts.get(kind, 0) + 1
    return counts
