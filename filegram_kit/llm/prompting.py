"""Backends that answer typed tasks by prompting a model: render the template, call, parse.

A provider module (gemini, openai_compat, ...) subclasses `PromptBackend` and implements three
small methods: `_complete(prompt, json_mode, max_tokens)` for text tasks, `_embed(texts, input_type)` for
embeddings and `_chat(messages, tools, max_tokens)` for agent steps. Everything else lives here once:
templates, each task's output cap (output_caps.py), prompts cut to the model's context window
(context_window.py), tolerant parsing, and what each task's cached value looks like. A reply that does not
parse is kept, with its tokens, as a parse failure (base.py): cached like any reply, raised as ParseError.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..util.cjk import language
from .base import Backend, Computed, parse_failure
from .context_window import ContextOverflow, PromptSizes, cut_fields, cut_messages, overflow_from
from .memory_tasks import MEMORY_TASKS
from .memory_tasks import decode as decode_memory
from .output_caps import output_cap
from .retry import ProviderError
from .tasks import (
    TASKS,
    ParseError,
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
    truncated: bool = False  # the reply stopped at its output cap


SEND_ATTEMPTS = 3  # a prompt refused as too long is cut and sent again, at most twice


class PromptBackend(Backend):
    # the model's context window in tokens: None until a server refuses a prompt as too long (or set it)
    context_window: int | None = None

    def _prompt_sizes(self, kind: tuple[str, str]) -> PromptSizes:
        """What this model's prompts of a kind (task, script: Chinese takes about three times the tokens per
        character, and an agent's tools add tokens the server's template writes) measured in tokens so far."""
        return self.__dict__.setdefault("_sizes", {}).setdefault(kind, PromptSizes())

    def _complete(self, prompt: str, *, json_mode: bool, max_tokens: int) -> Completion:
        raise NotImplementedError(f"{type(self).__name__} has no text model")

    def _embed(self, texts: list[str], *, input_type: str) -> tuple[list[list[float]], int]:
        raise NotImplementedError(f"{type(self).__name__} has no embedding model")

    def _chat(self, messages: list[dict[str, Any]], tools: dict[str, Any], *, max_tokens: int) -> Completion:
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
        cap = output_cap(task, params)
        if task == "agent_step":
            tools = inputs["tools"]
            reply = self._fitted(task, inputs["messages"], lambda m: len(json.dumps([m, tools], ensure_ascii=False)),
                                 cut_messages, lambda m: self._chat(m, tools, max_tokens=cap), cap)
            calls = [{"name": c.name, "arguments": c.arguments, "id": c.id} for c in reply.tool_calls]
            return Computed({"text": reply.text, "tool_calls": calls}, reply.input_tokens, reply.output_tokens)
        spec = TASKS[task]
        reply = self._fitted(task, template_fields(task, inputs, params), lambda f: len(spec.render(**f)), cut_fields,
                             lambda f: self._complete(spec.render(**f), json_mode=spec.output == "json",
                                                      max_tokens=cap), cap)
        try:
            value = _decode(task, reply.text, inputs)
        except ParseError as exc:
            cut = f" (the reply stopped at its cap of {cap} tokens)" if reply.truncated else ""
            value = parse_failure(ParseError(task, exc.reason + cut, exc.reply))
        return Computed(value, reply.input_tokens, reply.output_tokens)

    def _fitted(self, task: str, prompt: Any, length: Callable[[Any], int],
                cut: Callable[[Any, Callable[[Any], int], int], tuple[Any, int]],
                send: Callable[[Any], Completion], cap: int) -> Completion:
        """send(prompt), cut to the context window first when it is known, and cut again when the server
        refuses it as too long (its error states the window and the prompt's tokens, which the next cut learns
        from); each cut starts from the whole prompt; a cut call counts once in `context_cuts`."""
        was_cut, sent, refused = False, prompt, None
        sizes = self._prompt_sizes((task, language(json.dumps(prompt, ensure_ascii=False, default=str)[:20_000])))
        for attempt in range(SEND_ATTEMPTS):
            if self.context_window:
                sent, chars = cut(prompt, length, sizes.budget(self.context_window, cap))
                was_cut = was_cut or chars > 0
            try:
                reply = send(sent)
            except ProviderError as exc:
                overflow = overflow_from(str(exc))
                if overflow is None:
                    raise
                if attempt == SEND_ATTEMPTS - 1 or overflow.window <= cap:
                    raise ContextOverflow(f"{exc} (window {overflow.window} tokens, reply cap {cap})",
                                          overflow.window, overflow.requested) from exc
                self.context_window = overflow.window
                if overflow.requested:
                    sizes.add(length(sent), overflow.requested, same_prompt=refused)
                    refused = (length(sent), overflow.requested)
                continue
            sizes.add(length(sent), reply.input_tokens, same_prompt=refused)
            if was_cut:
                self.usage.add(self.current_phase, context_cuts=1)
            return reply
        raise AssertionError("unreachable")


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
