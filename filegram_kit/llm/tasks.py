"""The typed LLM tasks of the pipeline: one prompt template, one output shape, one parser each.

Memory methods, readers and judges never write free-form prompts; they call a typed task
(`backend.summarize(...)`, `backend.answer_mcq(...)`), and every backend answers the same tasks:
`offline` with deterministic algorithms, the API backends by rendering the template below and
parsing the reply. `PROMPT_VERSION` is part of every cache key, so editing a template invalidates
exactly the cached answers it produced.

Replies are parsed tolerantly (code fences, prose around the JSON, trailing commas, single quotes),
but a reply that still does not parse raises `ParseError`: it is counted and reported by the
caller, never stored in the cache and never silently scored.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

PROMPT_VERSION = 2  # 2: judge_attribute (the ProfRec value judge)
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ANOMALY_LABELS = ("variation", "outlier", "uncertain")


class ParseError(ValueError):
    """A model reply that does not have the shape its task asks for."""

    def __init__(self, task: str, reason: str, reply: str):
        super().__init__(f"{task}: {reason}; reply began {reply[:160]!r}")
        self.task, self.reason, self.reply = task, reason, reply

    def __reduce__(self):  # whole across a process pool (an engine or bench worker raising it)
        return type(self), (self.task, self.reason, self.reply)


@dataclass(frozen=True)
class McqAnswer:
    index: int  # 0-based option index
    confidence: float  # 0..1, the backend's own estimate
    scores: tuple[float, ...] = ()  # per-option scores when the backend has them (offline reader)

    @property
    def letter(self) -> str:
        return LETTERS[self.index]


@dataclass(frozen=True)
class LikertScore:
    score: int  # 1..5
    rationale: str


@dataclass(frozen=True)
class AnomalyVerdict:
    label: str  # variation | outlier | uncertain (paper's labels)
    rationale: str


@dataclass(frozen=True)
class EpisodeNarrative:
    title: str
    narrative: str  # 3-8 third-person sentences
    summary: str  # one sentence


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass(frozen=True)
class AgentStep:
    """One think-act turn of the LLM agent: what it says, and the tools it calls (none = it is done)."""

    text: str
    tool_calls: tuple[ToolCall, ...] = field(default_factory=tuple)

    @property
    def done(self) -> bool:
        return not self.tool_calls


@dataclass(frozen=True)
class TaskSpec:
    name: str
    output: str  # text | json | embedding | tool_call
    template: str  # str.format template over the task's inputs ("" for embeddings and agent steps)
    version: int = PROMPT_VERSION

    def render(self, **inputs: Any) -> str:
        try:
            return self.template.format(**inputs)
        except KeyError as exc:
            raise TypeError(f"task {self.name!r} needs input {exc.args[0]!r}") from None


JSON_ONLY = "Answer with JSON only, no prose around it."
TASKS: dict[str, TaskSpec] = {spec.name: spec for spec in (
    TaskSpec("embed", "embedding", ""),
    TaskSpec("embed_image", "embedding", ""),  # images as base64; providers that embed images (cohere v3)
    TaskSpec("summarize", "text",
             "Summarize the following text in at most {max_words} words. Keep names, numbers and dates exactly.\n\n"
             "TEXT:\n{text}\n\nSUMMARY:"),
    TaskSpec("extract_facts", "json",
             "List the atomic facts stated in the text below (at most {max_facts}); each fact one short sentence "
             "that keeps names, numbers and dates exactly. " + JSON_ONLY + ' Shape: {{"facts": ["..."]}}\n\n'
             "TEXT:\n{text}"),
    TaskSpec("segment_episodes", "json",
             "Below are numbered actions of one work session. Split them into 1-5 episodes where the focus "
             "shifts. " + JSON_ONLY + ' Shape: {{"boundaries": [start index of each episode after the first]}}\n\n'
             "{items}"),
    TaskSpec("narrate_episode", "json",
             "Below are the file-system actions of one episode of a user's work session, in order. Give the "
             "episode a short title, a third-person narrative of 3-8 sentences about what the user did and how, "
             "and a one-sentence summary. " + JSON_ONLY + ' Shape: {{"title": "...", "narrative": "...", '
             '"summary": "..."}}\n\n{items}'),
    TaskSpec("describe_style", "json",
             "Describe the writing style of the document below. " + JSON_ONLY + ' Shape: {{"language": "en|zh", '
             '"tone": "formal|professional|casual", "structure": "highly structured|moderate|free-form", '
             '"detail": "comprehensive|balanced|concise", "summary": "one sentence"}}\n\nDOCUMENT:\n{text}'),
    TaskSpec("judge_anomaly", "json",
             "A user's work session deviates from their usual behavior. Per-feature z-scores against their own "
             "baseline:\n{deviation}\nExpected shift for this task type:\n{task_shift}\n\nIs this a variation "
             "explained by the task, a genuine outlier in the user's behavior, or uncertain? " + JSON_ONLY +
             ' Shape: {{"label": "variation|outlier|uncertain", "rationale": "one sentence"}}'),
    TaskSpec("answer_mcq", "json",
             "Use the context to answer the multiple-choice question.\n\nCONTEXT:\n{context}\n\nQUESTION: "
             "{question}\n{options}\n\n" + JSON_ONLY + ' Shape: {{"answer": "<letter>", "confidence": 0.0-1.0}}'),
    TaskSpec("answer_open", "text",
             "Use the context to answer the question in at most {max_words} words.\n\nCONTEXT:\n{context}\n\n"
             "QUESTION: {question}\nANSWER:"),
    TaskSpec("judge_likert", "json",
             "Score how well the answer matches the reference on a 1-5 scale.\nRubric:\n{rubric}\n\nREFERENCE:\n"
             "{reference}\n\nANSWER:\n{answer}\n\n" + JSON_ONLY + ' Shape: {{"score": 1-5, "rationale": "..."}}'),
    TaskSpec("judge_attribute", "json",
             "Judge which value of a user's behavioural attribute an answer asserts.\nATTRIBUTE: {label}; its values "
             "in order: {values} (neighbours are adjacent, first and last are opposite)\nQUESTION: {question}\n"
             "REFERENCE VALUE: {reference}\nANSWER:\n{answer}\n\nScore 1-5: 5 asserts the reference value with "
             "specific evidence; 4 asserts the reference value; 3 an adjacent value, or hedges between the reference "
             "and an adjacent value; 2 the opposite value with hedging, or mostly wrong; 1 the opposite value, or no "
             "value at all (restating the attribute's name or the question asserts nothing). " + JSON_ONLY +
             ' Shape: {{"score": 1-5, "rationale": "one sentence"}}'),
    TaskSpec("rephrase_question", "text",
             "Rephrase the question below without changing its meaning. Keep numbers, quoted strings and file "
             "names exactly. Reply with the rephrased question only.\n\nQUESTION: {question}"),
    TaskSpec("agent_step", "tool_call", ""),
)}
DEFAULT_RUBRIC = {5: "same content, nothing wrong", 4: "mostly the same, a minor omission",
                  3: "half of the content", 2: "little of the content or one clear error",
                  1: "unrelated or contradicting"}


def attribute_values(attribute: str) -> str:
    """A behavioural attribute's Table 8 values in tier order, 'Sequential deep | Search-first | Breadth-first'."""
    from ..traces.schema import ATTRIBUTES

    if attribute not in ATTRIBUTES or not ATTRIBUTES[attribute].tiers:
        raise ValueError(f"{attribute!r} is not a behavioural attribute (schema.BEHAVIORAL_ATTRIBUTES)")
    return " | ".join(ATTRIBUTES[attribute].tiers.values())


def options_text(choices: list[str]) -> str:
    return "\n".join(f"{LETTERS[i]}. {choice}" for i, choice in enumerate(choices))


def rubric_text(rubric: dict[int, str] | None) -> str:
    return "\n".join(f"{k}: {v}" for k, v in sorted((rubric or DEFAULT_RUBRIC).items(), reverse=True))


# -- tolerant parsing ----------------------------------------------------------------------------
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _balanced(text: str) -> str | None:
    """The first balanced {...} or [...] in text (strings and escapes respected)."""
    start = next((i for i, c in enumerate(text) if c in "{["), None)
    if start is None:
        return None
    stack, in_string, escaped = [], False, False
    for i in range(start, len(text)):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c in "{[":
            stack.append("}" if c == "{" else "]")
        elif c in "}]":
            if not stack or stack.pop() != c:
                return None
            if not stack:
                return text[start:i + 1]
    return None


def parse_json(task: str, reply: str) -> Any:
    """JSON out of a model reply: inside code fences or prose, with trailing commas or single quotes."""
    fenced = _FENCE.search(reply)
    candidate = _balanced(fenced.group(1) if fenced else reply)
    if candidate is None:
        raise ParseError(task, "no JSON object or array found", reply)
    for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            pass
    try:  # Python-literal style: single quotes, True/False/None
        return ast.literal_eval(_TRAILING_COMMA.sub(r"\1", candidate))
    except (ValueError, SyntaxError):
        raise ParseError(task, "JSON does not parse", reply) from None


_STATED = re.compile(r"(?:answer|option|choice)\s*(?:is|:|=)?\s*\(?([A-Za-z])\b", re.IGNORECASE)
_LEADING = re.compile(r"^\s*\(?([A-Za-z])(?:[).:]|\s*$|\s)")


def parse_choice(reply: str, n_choices: int) -> tuple[int, float]:
    """Option index and confidence from an MCQ reply: JSON {"answer": "B"}, "the answer is B", "(B) ..." or "B".

    A letter that is only a word ("I think ...", "A good ...") does not count; no stated letter is an error.
    """
    confidence, text = 1.0, reply
    try:
        data = parse_json("answer_mcq", reply)
        if isinstance(data, dict) and "answer" in data:
            text = f"answer: {data['answer']}"
            confidence = float(data.get("confidence", 1.0))
    except (ParseError, TypeError, ValueError):
        pass
    match = _STATED.search(text) or _LEADING.match(text)
    letter = match.group(1).upper() if match else ""
    if not letter or LETTERS.index(letter) >= n_choices:
        raise ParseError("answer_mcq", f"no option letter among A-{LETTERS[n_choices - 1]}", reply)
    return LETTERS.index(letter), max(0.0, min(1.0, confidence))


def parse_likert(reply: str, task: str = "judge_likert") -> LikertScore:
    """A 1-5 score and its rationale (judge_likert and judge_attribute replies have this shape)."""
    data = parse_json(task, reply)
    try:
        score = int(round(float(data["score"])))
    except (KeyError, TypeError, ValueError):
        raise ParseError(task, "no numeric 'score'", reply) from None
    if not 1 <= score <= 5:
        raise ParseError(task, f"score {score} outside 1-5", reply)
    return LikertScore(score, str(data.get("rationale", "")))


def parse_anomaly(reply: str) -> AnomalyVerdict:
    data = parse_json("judge_anomaly", reply)
    label = str(data.get("label", "")).strip().lower() if isinstance(data, dict) else ""
    aliases = {"task_dependent": "variation", "genuine_perturbation": "outlier"}  # the release's labels
    label = aliases.get(label, label)
    if label not in ANOMALY_LABELS:
        raise ParseError("judge_anomaly", f"label {label!r} is not one of {ANOMALY_LABELS}", reply)
    return AnomalyVerdict(label, str(data.get("rationale", "")))


def parse_facts(reply: str) -> list[str]:
    data = parse_json("extract_facts", reply)
    facts = data.get("facts") if isinstance(data, dict) else data
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        raise ParseError("extract_facts", "expected a list of strings under 'facts'", reply)
    return [f.strip() for f in facts if f.strip()]


def parse_narrative(reply: str) -> EpisodeNarrative:
    data = parse_json("narrate_episode", reply)
    fields = {k: str(data.get(k, "")).strip() for k in ("title", "narrative", "summary")} if isinstance(data, dict) \
        else {}
    if not fields or not fields["title"] or not fields["narrative"]:
        raise ParseError("narrate_episode", "expected non-empty 'title' and 'narrative'", reply)
    fields["summary"] = fields["summary"] or fields["narrative"].split(". ")[0].rstrip(".") + "."
    return EpisodeNarrative(**fields)


def parse_boundaries(reply: str, n_items: int) -> list[tuple[int, int]]:
    """Episode spans from boundary indices; invalid or out-of-range boundaries are a parse error."""
    data = parse_json("segment_episodes", reply)
    raw = data.get("boundaries") if isinstance(data, dict) else data
    if not isinstance(raw, list) or not all(isinstance(b, int | float) for b in raw):
        raise ParseError("segment_episodes", "expected a list of integer boundaries", reply)
    cuts = sorted({int(b) for b in raw if 0 < int(b) < n_items})
    edges = [0, *cuts, n_items]
    return [(a, b) for a, b in zip(edges, edges[1:], strict=False) if b > a]
