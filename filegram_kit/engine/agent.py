"""The offline agent: think-act-observe iterations over the recording tools.

Each iteration is what a tool-using LLM run looks like from outside: iteration_start, an
llm_response (tokens in = the context so far, tokens out = the tool call it writes; response time
grows with the output), one or a few tool calls that really act on the sandbox, iteration_end.
The context grows with every observation; past a per-run budget it is compacted. Now and then a
call goes wrong for real (a mistyped path, an edit whose old text is stale); the error is observed
and the next call recovers. *What* the agent does comes from `work.py`, steered by the `Policy`;
the words it writes and names things with come from its `StylePack` (same behaviour, other surface).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..traces.schema import Profile, Task
from . import work
from .compose import Fact
from .policy import Policy
from .recorder import Recorder, SimClock
from .style_packs import PACK_A, StylePack, folder_spelling
from .tools import ToolBox, ToolResult

SYSTEM_TOKENS = 6000  # tool schemas + instructions + persona description
MAX_OBSERVATION_TOKENS = 6000


class OfflineAgent:
    """Runs one persona on one task in one sandbox; `run()` returns summary.json's content."""

    def __init__(self, profile: Profile, task: Task, policy: Policy, tools: ToolBox, recorder: Recorder,
                 clock: SimClock, rng: np.random.Generator, pack: StylePack = PACK_A):
        self.profile, self.task, self.policy, self.pack = profile, task, policy, pack
        self.tools, self.recorder, self.clock, self.rng = tools, recorder, clock, rng
        self.context_tokens = SYSTEM_TOKENS + len(task.prompt_for(profile)) // 3
        self.messages = 2
        self.facts: dict[str, Fact] = {}
        self.inputs: list[str] = []  # the workspace's files when the agent arrived
        self.outputs: list[str] = []  # files this agent created, in order
        self.scratch: list[str] = []  # temporary files it means to clean up (or not)
        self.pending_browses = 0  # directory listings the policy still wants after exploring
        self.spelling = folder_spelling(pack)  # names in this pack -> in pack A (file_name adds its names)

    def canonical(self, path: str) -> str:
        """`path` as pack A would have spelt it: what the agent sorts by, so every pack decides alike."""
        return "/".join(self.spelling.get(part, part) for part in path.split("/")) if self.spelling else path

    # -- the loop ------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        self.recorder.session_start()
        work.perform(self)
        self.finish()
        return self.recorder.session_end()

    def _think(self, output_tokens: int, stop_reason: str = "tool_use") -> None:
        self.recorder.iteration_start()
        if self.context_tokens > self.policy["context_budget"]:
            kept = int(SYSTEM_TOKENS + self.rng.integers(2500, 6000))
            self.recorder.compaction(self.messages, 4, self.context_tokens - kept)
            self.context_tokens, self.messages = kept, 4
        response_ms = (700 + 14 * output_tokens) * self.policy["think_scale"] * self.rng.lognormal(0.0, 0.35)
        self.clock.advance(response_ms)
        self.recorder.llm_response(response_ms, self.context_tokens, output_tokens,
                                   has_reasoning=bool(self.rng.random() < 0.35), stop_reason=stop_reason)
        self.context_tokens += output_tokens
        self.messages += 1

    def _observe(self, result: ToolResult) -> None:
        self.context_tokens += min(MAX_OBSERVATION_TOKENS, 20 + len(result.output) // 3)
        self.messages += 1

    def act(self, name: str, **params: Any) -> ToolResult:
        """One iteration with one tool call (sometimes preceded by a failed attempt)."""
        faulty = self._faulty(name, params)
        retry = 0
        if faulty is not None:
            self._iteration([(name, faulty)])
            retry = 1
        return self._iteration([(name, params)], retry=retry)[0]

    def act_batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[ToolResult]:
        """One iteration issuing several independent tool calls (parallel tool use)."""
        return self._iteration(calls) if calls else []

    def _iteration(self, calls: list[tuple[str, dict[str, Any]]], retry: int = 0) -> list[ToolResult]:
        out_tokens = sum(30 + len(json.dumps(p, ensure_ascii=False, default=str)) // 4 for _, p in calls)
        self._think(int(out_tokens * self.rng.uniform(0.9, 1.3)))
        results = []
        for name, params in calls:
            result = self.tools.call(name, retry_count=retry, **params)
            self._observe(result)
            results.append(result)
        self.recorder.iteration_end()
        return results

    def _faulty(self, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """A plausible wrong version of a call, at this run's error rate."""
        if self.rng.random() >= self.policy["error_rate"]:
            return None
        key = {"read": "file_path", "ls": "path"}.get(name)
        if key and params.get(key, ".") != ".":  # a mistyped path: one character dropped
            path = params[key]
            cut = int(self.rng.integers(0, max(1, len(path) - 3)))
            return {**params, key: path[:cut] + path[cut + 1:]}
        if name == "edit":
            return {**params, "old_string": params["old_string"].rstrip("\n") + " \n"}
        return None

    def finish(self) -> None:
        """The closing iteration: the agent answers with a short report and no tool call."""
        self._think(60 + int(self.rng.integers(0, 180)), stop_reason="end_turn")
        self.recorder.iteration_end()
