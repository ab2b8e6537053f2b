"""Prompts longer than a model's context window: how the window is learnt, and the rule that cuts a prompt to it.

A server that refuses a prompt as too long says so in its error (llama.cpp: "Requested tokens (3012) exceed
context window of 2048"; vLLM and OpenAI: "maximum context length is 2048 tokens ... you requested 3012
tokens"). `overflow_from` reads the window and the prompt's size in tokens from that message. The backend then
cuts and asks once more, and remembers the window, so later prompts are cut before they are sent.

The rule (`cut_fields`): the longest field the template is filled with (the context, the session text, the
action list) loses its end, so that the prompt fits in the window less the reply's cap; the instructions, the
question and the options are never cut. An agent's conversation (`cut_messages`) first loses its oldest turns
after the system and task messages, then, if need be, the end of its longest text (a message, or a text argument
of a tool call: a whole file written in one call). The cut is marked in
the prompt and counted (`context_cuts` in the backend's usage). How many characters fit is learnt from the
model's own token counts (`PromptSizes`: the refused prompts included), not guessed: a refused prompt is cut in
proportion to what the window allows, and a second refusal of the same prompt fits the template's fixed
overhead too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .retry import ProviderError

CUT_MARK = "\n[... {n} characters cut to fit the model's context window ...]"
SAFETY = 0.9  # aim under the window: a cut changes how the text around it tokenises
DEFAULT_CHARS_PER_TOKEN = 2.0  # before any prompt was measured (English runs about 4, Chinese about 1.2)
CHARS_PER_TOKEN_RANGE = (0.5, 12.0)  # what a tokenizer can give; a fit outside it is noise between two prompts
DISTINCT = 0.05  # two lengths of one prompt this close fit no line
TURN_BLOCK = 0.25  # an agent's old turns go this share of the budget at a time (`cut_messages`): a quarter keeps
# at least about half the window's history after a cut and reads the window again once every quarter window

_WINDOW = re.compile(r"(?:context window of|maximum context length is|context length of|n_ctx[= ]+)\s*(\d+)",
                     re.IGNORECASE)
# the prompt's own tokens, in the words of llama.cpp, vLLM / llama-cpp-python and OpenAI; the first that matches
# wins ("you requested 3051 tokens (3031 in the messages, 20 in the completion)": 3031)
_PROMPT_TOKENS = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"(\d+) in the messages", r"requested tokens \((\d+)\)", r"resulted in (\d+) tokens",
    r"prompt (?:is|has) (\d+) tokens", r"requested (\d+) tokens"))


class ContextOverflow(ProviderError):
    """A prompt the model's context window cannot hold, even after the cut (or a window too small for the reply)."""

    def __init__(self, message: str, window: int | None = None, requested: int | None = None):
        super().__init__(message, 400)
        self.window, self.requested = window, requested

    def __reduce__(self):
        return type(self), (str(self), self.window, self.requested)


@dataclass(frozen=True)
class Overflow:
    window: int  # the model's context window, in tokens
    requested: int | None  # the refused prompt's tokens, when the server says


def overflow_from(message: str) -> Overflow | None:
    """The window (and the prompt's tokens) a server's "too long" error states; None for any other error."""
    window = _WINDOW.search(message)
    if window is None:
        return None
    found = (pattern.search(message) for pattern in _PROMPT_TOKENS)
    requested = next((int(m.group(1)) for m in found if m), None)
    return Overflow(int(window.group(1)), requested)


@dataclass
class PromptSizes:
    """A model's prompt tokens as a function of the prompt's characters, for one kind of prompt (task and
    script), learnt from the model's own counts: tokens = overhead + characters / ratio.

    The overhead (tokens the server's template adds whatever the prompt's length: an agent's tool descriptions,
    which a ratio alone spreads over the whole prompt and so cuts too little) is fitted only on one prompt
    measured at two lengths (refused, then cut): two different prompts of a kind tokenise at different
    densities (Chinese, code, diffs), and a line through them is noise. The ratio is the latest measurement's,
    less the overhead. A fit that is not physical (an overhead below zero or above the shorter prompt's
    tokens, a ratio outside CHARS_PER_TOKEN_RANGE) keeps the overhead known before."""

    overhead: float = 0.0
    ratio: float = DEFAULT_CHARS_PER_TOKEN

    def add(self, chars: int, tokens: int, *, same_prompt: tuple[int, int] | None = None) -> None:
        """A measurement (characters sent, tokens counted); `same_prompt`: the same prompt's earlier one."""
        if tokens <= 0 or chars <= 0:
            return
        if same_prompt is not None and (fit := _line(same_prompt, (chars, tokens))) is not None:
            self.overhead = fit[0]
        if tokens > self.overhead:
            self.ratio = chars / (tokens - self.overhead)

    def budget(self, window: int, reply_cap: int) -> int:
        """Characters of prompt that fit the window with room for the reply (SAFETY of it)."""
        return int(max(0.0, max(0, window - reply_cap) * SAFETY - self.overhead) * self.ratio)


def _line(a: tuple[int, int], b: tuple[int, int]) -> tuple[float, float] | None:
    """(overhead tokens, characters per token) of the line through two measurements of one prompt, or None."""
    (c1, t1), (c2, t2) = a, b
    if abs(c1 - c2) <= max(c1, c2) * DISTINCT or t1 == t2:
        return None
    ratio = (c1 - c2) / (t1 - t2)
    if not CHARS_PER_TOKEN_RANGE[0] <= ratio <= CHARS_PER_TOKEN_RANGE[1]:
        return None
    overhead = t2 - c2 / ratio
    return (overhead, ratio) if 0 <= overhead < min(t1, t2) else None


def cut_fields(fields: dict[str, Any], length: Callable[[dict[str, Any]], int],
               budget: int) -> tuple[dict[str, Any], int]:
    """(fields with the longest string field cut at its end, characters cut) so the prompt (`length(fields)`
    characters) fits `budget`. Raises ContextOverflow when the rest of the prompt alone is over the budget."""
    rendered_length = length(fields)
    excess = rendered_length - budget
    if excess <= 0:
        return fields, 0
    name = max((k for k, v in fields.items() if isinstance(v, str)), key=lambda k: len(fields[k]), default=None)
    if name is None:
        raise ContextOverflow(f"the prompt is {rendered_length} characters and has no text field to cut")
    text = fields[name]
    mark_room = len(CUT_MARK.format(n=len(text))) + 1
    keep = len(text) - excess - mark_room
    if keep <= 0:
        raise ContextOverflow(f"the prompt is {rendered_length} characters; its budget is {budget}, and cutting "
                              f"all of {name!r} ({len(text)}) is not enough")
    cut = len(text) - keep
    return {**fields, name: text[:keep] + CUT_MARK.format(n=cut)}, cut


def cut_messages(messages: list[dict[str, Any]], length: Callable[[list[dict[str, Any]]], int],
                 budget: int) -> tuple[list[dict[str, Any]], int]:
    """An agent's conversation cut to `budget`, as agent harnesses compact one: the system and task messages
    stay, the oldest turns after them go (never leaving a tool's answer whose call went), and when the
    latest turn alone is still too long, its longest text (a message's, or a tool call's text argument) loses its
    end (as `cut_fields`).

    The turns go a block at a time (`_block_starts`), not one more at each step: the kept conversation then
    begins the same for several steps, and a server that keeps the prompt it read last (llama.cpp, vLLM's prefix
    cache, a provider's prompt cache) reads only the new turn. Cut by one turn a step, SmolLM2 read the whole
    window again at every step (24 s a step on 2 cores)."""
    if length(messages) <= budget:
        return messages, 0
    head, turns = messages[:2], messages[2:]
    start = 0
    while start < len(turns) and length(head + turns[start:]) > budget:
        start = _skip_answers(turns, start + 1)
    start = next((block for block in _block_starts(turns, budget) if block >= start), start)
    tail = turns[start:]
    if not tail and messages[2:]:
        tail = messages[-1:] if messages[-1].get("role") != "tool" else _last_turn(messages)
    kept = head + tail
    dropped = _chars(messages) - _chars(kept)
    cut_to, cut = cut_fields(_cuttable(kept), lambda f: length(_filled(kept, f)), budget)
    return _filled(kept, cut_to), dropped + cut


def _skip_answers(turns: list[dict[str, Any]], index: int) -> int:
    """The first turn at or after `index` that is not a tool's answer (whose call would be gone)."""
    while index < len(turns) and turns[index].get("role") == "tool":
        index += 1
    return index


def _block_starts(turns: list[dict[str, Any]], budget: int) -> list[int]:
    """Where a cut conversation may begin: the first turn (not a tool's answer) after each further TURN_BLOCK of
    the budget in the turns' characters. They depend only on the turns before them, so they stay where they are as the
    conversation grows, and the kept part keeps its beginning until the window forces the next block out."""
    block = max(1, int(budget * TURN_BLOCK))
    starts, before, last = [], 0, 0
    for index, turn in enumerate(turns):
        if turn.get("role") != "tool" and before // block > last:
            starts.append(index)
            last = before // block
        before += len(json.dumps(turn, ensure_ascii=False, default=str))
    return starts


def _cuttable(messages: list[dict[str, Any]]) -> dict[str, str]:
    """The texts a cut may shorten, by place: each message's content and each text argument of its tool calls
    (a model that writes a whole file in one call puts the file there, and the call stays in the conversation)."""
    fields = {}
    for i, message in enumerate(messages):
        if isinstance(message.get("content"), str):
            fields[str(i)] = message["content"]
        for j, call in enumerate(message.get("tool_calls") or []):
            arguments = call.get("arguments")
            for key, value in (arguments.items() if isinstance(arguments, dict) else ()):
                if isinstance(value, str):
                    fields[f"{i}.{j}.{key}"] = value
    return fields


def _filled(messages: list[dict[str, Any]], fields: dict[str, str]) -> list[dict[str, Any]]:
    """`messages` with the texts `_cuttable` names replaced by `fields`' (cut) values."""
    filled = []
    for i, message in enumerate(messages):
        message = {**message, "content": fields.get(str(i), message.get("content"))}
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {**call, "arguments": {key: fields.get(f"{i}.{j}.{key}", value)
                                       for key, value in call["arguments"].items()}}
                if isinstance(call.get("arguments"), dict) else call
                for j, call in enumerate(message["tool_calls"])]
        filled.append(message)
    return filled


def _chars(messages: list[dict[str, Any]]) -> int:
    return sum(len(text) for text in _cuttable(messages).values())


def _last_turn(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last assistant message with the tool answers that follow it."""
    start = max((i for i, m in enumerate(messages) if m.get("role") == "assistant" and i >= 2), default=len(messages))
    return messages[start:]
