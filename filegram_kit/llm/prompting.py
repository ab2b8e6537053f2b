"""Backends that answer typed tasks by prompting a model: render the template, call, parse.

A provider module (gemini, openai_compat, ...) subclasses `PromptBackend` and implements three
small methods: `_complete(prompt, json_mode)` for text tasks, `_embed(texts, input_type)` for
embeddings and `_chat(messages, tools)` for agent steps. Everything else (templates, tolerant
parsing, what each task's cached value looks like) lives here once.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from .base import Backend, Computed
from .memory_tasks import MEMORY_TASKS
from .memory_tasks import decode as decode_memory
from .tasks import (
    TASKS,
    ToolCall,
    parse_anomaly,
    parse_boundaries,
    parse_choice,
    parse_facts,
    parse_json,
    parse_likert,
    parse_narrative,
)
from .template_fields import template_fields


@dataclass(frozen=True)
class Completion:
    """A model reply with the provider's own usage fields."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: tuple[ToolCall, ...] = ()


class PromptBackend(Backend):
    def _complete(self, prompt: str, *, json_mode: bool) -> Completion:
        raise NotImplementedError(f"{type(self).__name__} has no text model")

    def _embed(self, texts: list[str], *, input_type: str) -> tuple[list[list[float]], int]:
        raise NotImplementedError(f"{type(self).__name__} has no embedding model")

    def _chat(self, messages: list[dict[str, Any]], tools: dict[str, Any]) -> Completion:
        raise NotImplementedError(f"{type(self).__name__} cannot call tools")

    def _embed_images(self, images: list[bytes]) -> tuple[list[list[float]], int]:
        raise NotImplementedError(f"{type(self).__name__} cannot embed images (cohere embed v3 can)")

    def _compute(self, task: str, inputs: dict[str, Any], params: dict[str, Any]) -> Computed:
        if task == "embed":
            vectors, tokens = self._embed(inputs["texts"], input_type=params.get("input_type", "document"))
            return Computed(vectors, tokens, 0)
        if task == "embed_image":
            vectors, tokens = self._embed_images([base64.b64decode(i) for i in inputs["images"]])
            return Computed(vectors, tokens, 0)
        if task == "agent_step":
            reply = self._chat(inputs["messages"], inputs["tools"])
            calls = [{"name": c.name, "arguments": c.arguments, "id": c.id} for c in reply.tool_calls]
            return Computed({"text": reply.text, "tool_calls": calls}, reply.input_tokens, reply.output_tokens)
        spec = TASKS[task]
        reply = self._complete(spec.render(**template_fields(task, inputs, params)), json_mode=spec.output == "json")
        return Computed(_decode(task, reply.text, inputs), reply.input_tokens, reply.output_tokens)


def _decode(task: str, text: str, inputs: dict[str, Any]) -> Any:
    """The JSON-able value a task's reply stands for; raises ParseError when the reply has the wrong shape."""
    if task in MEMORY_TASKS:
        return decode_memory(task, text, inputs)
    if task in ("summarize", "answer_open", "rephrase_question"):
        return text.strip()
    if task == "extract_facts":
        return parse_facts(text)
    if task == "segment_episodes":
        return [list(span) for span in parse_boundaries(text, len(inputs["items"]))]
    if task == "narrate_episode":
        n = parse_narrative(text)
        return {"title": n.title, "narrative": n.narrative, "summary": n.summary}
    if task == "describe_style":
        data = parse_json(task, text)
        return data if isinstance(data, dict) else {"summary": str(data)}
    if task == "judge_anomaly":
        verdict = parse_anomaly(text)
        return {"label": verdict.label, "rationale": verdict.rationale}
    if task == "answer_mcq":
        index, confidence = parse_choice(text, len(inputs["choices"]))
        return {"index": index, "confidence": confidence}
    if task in ("judge_likert", "judge_attribute"):
        score = parse_likert(text, task)
        return {"score": score.score, "rationale": score.rationale}
    raise KeyError(f"no decoder for task {task!r}")
