"""One interface for every LLM and embedding provider: typed tasks in, typed answers out.

    backend = get_backend("offline")              # or "gemini", "cohere", "openai_compat" (lazy SDK import)
    backend.summarize(text)                       # -> str
    backend.answer_mcq(question, choices, context) # -> McqAnswer
    with backend.phase("query"): ...              # token usage is split by phase (ingest / query / judge / generate)

Every typed call goes through `run`: it builds the content-addressed cache key (backend, model,
task, prompt version, inputs, params), answers from the cache when it can, else computes and
stores. A backend implements `_compute(task, inputs, params) -> Computed`, returning a JSON-able
value (what the cache holds) with the provider's own token counts; the typed methods turn values
into `McqAnswer`, `LikertScore`, ... `params()` goes into cache keys and result rows.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .memory_tasks import MemoryTaskMethods
from .tasks import (
    TASKS,
    AgentStep,
    AnomalyVerdict,
    EpisodeNarrative,
    LikertScore,
    McqAnswer,
    ParseError,
    ToolCall,
    attribute_values,
)

PHASES = ("ingest", "query", "judge", "generate")  # generate: the LLM agent writing traces


@dataclass(frozen=True)
class Computed:
    """A backend's answer to one task: the JSON-able value and the provider-reported token counts."""

    value: Any
    input_tokens: int = 0
    output_tokens: int = 0


PARSE_FAILURE = "__parse_failure__"


def parse_failure(exc: ParseError) -> dict[str, Any]:
    """A reply that did not parse, as the value a task's call stands for: stored in the cache like any reply
    (at temperature 0 the model would say the same again, so a rerun makes no call), raised by `run` as the
    ParseError it was, and never scored. The reply is kept whole."""
    return {PARSE_FAILURE: {"task": exc.task, "reason": exc.reason, "reply": exc.reply}}


@dataclass
class UsageMeter:
    """Calls, cache hits and tokens per phase; thread-safe, since calls run in a pool."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, phase: str, **amounts: int) -> None:
        with self._lock:
            row = self.counts.setdefault(phase, {"calls": 0, "cached": 0, "input_tokens": 0, "output_tokens": 0,
                                                 "parse_failures": 0, "errors": 0, "context_cuts": 0})
            for key, value in amounts.items():
                row[key] = row.get(key, 0) + value

    def total(self, key: str) -> int:
        return sum(row.get(key, 0) for row in self.counts.values())

    def cost(self, prices: Mapping[str, float]) -> float:
        """Dollars for the tokens spent, from a price entry {"input": $ per 1M, "output": $ per 1M}."""
        return (self.total("input_tokens") * prices.get("input", 0.0)
                + self.total("output_tokens") * prices.get("output", 0.0)) / 1_000_000


COST_FIELDS = ("calls", "cached", "input_tokens", "output_tokens", "est_input_tokens", "est_output_tokens")


@dataclass(eq=False)  # meters are told apart by identity
class CallCost:
    """What one piece of work (a memory's ingest, one stage of it) asked of a backend.

    calls counts every typed call, cached or not (a rerun costs the same calls, the cache only makes
    them free); input/output_tokens are what the provider reported (0 offline); est_* are the
    4-characters-per-token estimate (`filegram_kit.util.tokens`) of each call's prompt and reply, the same
    for every backend, so offline runs show what an LLM backend would be sent."""

    calls: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    est_input_tokens: int = 0
    est_output_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **amounts: int) -> None:
        with self._lock:
            for key, value in amounts.items():
                setattr(self, key, getattr(self, key) + int(value))

    def as_dict(self) -> dict[str, int]:
        return {key: getattr(self, key) for key in COST_FIELDS}


class Backend(MemoryTaskMethods):
    """Base of all backends; subclasses set `name`, `default_model` and implement `_compute`."""

    name: ClassVar[str] = ""
    default_model: ClassVar[str] = ""
    embeds_images: ClassVar[bool] = False  # True: embed_images puts pixels in the text embeddings' space

    def __init__(self, model: str | None = None, *, cache: Any = None, max_concurrency: int = 4,
                 serial: bool = False):
        self.model = model or self.default_model
        self.cache = cache  # a ResponseCache, or None for no caching
        self.max_concurrency = max(1, int(max_concurrency))
        self.serial = serial  # one call at a time, in order: for debugging
        self.usage = UsageMeter()
        self._phase = threading.local()
        self._meters = threading.local()  # the CallCosts open in this thread (metered())

    def params(self) -> dict[str, Any]:
        """What identifies this backend's answers (cache keys, result rows)."""
        return {"backend": self.name, "model": self.model}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"

    # -- phases and plumbing ---------------------------------------------------------------------
    @property
    def current_phase(self) -> str:
        return getattr(self._phase, "name", "ingest")

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Attribute the calls made inside the block to a phase (ingest, query or judge)."""
        if name not in PHASES:
            raise ValueError(f"unknown phase {name!r}; phases: {', '.join(PHASES)}")
        previous, self._phase.name = self.current_phase, name
        try:
            yield
        finally:
            self._phase.name = previous

    @contextlib.contextmanager
    def metered(self) -> Iterator[CallCost]:
        """Count the typed calls made inside the block, in this thread (and in `map`'s workers), into a CallCost."""
        cost = CallCost()
        stack = self._open_meters()
        stack.append(cost)
        try:
            yield cost
        finally:
            stack[:] = [m for m in stack if m is not cost]

    def _open_meters(self) -> list[CallCost]:
        if not hasattr(self._meters, "stack"):
            self._meters.stack = []
        return self._meters.stack

    def replay(self, cost: Mapping[str, int]) -> None:
        """Add a remembered cost to the open meters (a stage served from a memo costs what computing it did)."""
        for meter in self._open_meters():
            meter.add(**{k: v for k, v in cost.items() if k in COST_FIELDS})

    def _meter(self, task: str, inputs: Mapping[str, Any], params: Mapping[str, Any], value: Any,
               provider: tuple[int, int], cached: bool) -> None:
        meters = self._open_meters()
        if not meters:
            return
        est_in, est_out = estimated_tokens(task, inputs, params, value)
        for meter in meters:
            meter.add(calls=1, cached=int(cached), input_tokens=provider[0], output_tokens=provider[1],
                      est_input_tokens=est_in, est_output_tokens=est_out)

    def run(self, task: str, inputs: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> Any:
        """The JSON-able answer to one typed task, from the cache when possible."""
        if task not in TASKS:
            raise KeyError(f"unknown task {task!r}; tasks: {', '.join(TASKS)}")
        params = dict(params or {})
        phase = self.current_phase
        provider = [0, 0]

        def compute() -> Any:
            try:
                done = self._compute(task, dict(inputs), params)
            except ParseError:
                self.usage.add(phase, calls=1, parse_failures=1)
                raise
            except Exception:
                self.usage.add(phase, calls=1, errors=1)
                raise
            self.usage.add(phase, calls=1, input_tokens=done.input_tokens, output_tokens=done.output_tokens)
            provider[:] = [done.input_tokens, done.output_tokens]
            return done.value

        if self.cache is None:
            value = compute()
            self._meter(task, inputs, params, value, (provider[0], provider[1]), cached=False)
            self._check_parsed(phase, value)
            return value
        from .cache import cache_key

        # params(): everything that changes answers besides the call (server, dimensions, seed ...)
        key = cache_key(backend=self.name, model=self.model, task=task, prompt_version=TASKS[task].version,
                        inputs=dict(inputs), params={"call": params, "backend": self.params()})
        value, hit = self.cache.get_or_compute(key, compute, meta={"task": task, **self.params(), "phase": phase})
        if hit:
            self.usage.add(phase, cached=1)
        self._meter(task, inputs, params, value, (provider[0], provider[1]), cached=hit)
        self._check_parsed(phase, value)
        return value

    def _check_parsed(self, phase: str, value: Any) -> None:
        """A parse failure (computed now or cached) is counted and raised; a value passes."""
        if isinstance(value, dict) and PARSE_FAILURE in value:
            self.usage.add(phase, parse_failures=1)
            failure = value[PARSE_FAILURE]
            raise ParseError(failure["task"], failure["reason"], failure["reply"])

    def _compute(self, task: str, inputs: dict[str, Any], params: dict[str, Any]) -> Computed:
        raise NotImplementedError(f"{type(self).__name__} does not implement task {task!r}")

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """fn over items with at most `max_concurrency` calls in flight (in order, serially if `serial`).

        The worker threads count their calls under the caller's phase (phases are per thread)."""
        items = list(items)
        if self.serial or self.max_concurrency == 1 or len(items) < 2:
            return [fn(item) for item in items]
        phase, meters = self.current_phase, list(self._open_meters())

        def in_phase(item: Any) -> Any:
            self._open_meters()[:] = meters  # the caller's meters count the workers' calls too
            with self.phase(phase):
                return fn(item)

        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            return list(pool.map(in_phase, items))

    # -- the typed tasks -------------------------------------------------------------------------
    def embed(self, texts: list[str], *, input_type: str = "document") -> np.ndarray:
        """Unit-length rows, one per text (input_type: document | query, as embedding APIs distinguish): float32
        values carried as float64, so every product of them is summed in float64 (float32 sums differ between
        BLAS kernels by 1e-7, enough to flip a tie: util/float_ties.py)."""
        value = self.run("embed", {"texts": list(texts)}, {"input_type": input_type})
        return np.asarray(value, dtype=np.float32).astype(np.float64).reshape(len(texts), -1)

    def embed_images(self, images: list[bytes]) -> np.ndarray:
        """Unit-length rows for images (PNG/JPEG/GIF bytes), in the same space as text embeddings where the
        provider has one (cohere embed v3); the offline backend embeds what it can read from the image."""
        encoded = [base64.b64encode(image).decode("ascii") for image in images]
        rows = np.asarray(self.run("embed_image", {"images": encoded}), dtype=np.float32)
        return rows.astype(np.float64).reshape(len(images), -1)

    def summarize(self, text: str, *, max_words: int = 120) -> str:
        return str(self.run("summarize", {"text": text}, {"max_words": max_words}))

    def extract_facts(self, text: str, *, max_facts: int = 10) -> list[str]:
        return [str(f) for f in self.run("extract_facts", {"text": text}, {"max_facts": max_facts})]

    def segment_episodes(self, items: list[str]) -> list[tuple[int, int]]:
        """Contiguous (start, end) spans covering the items, one per episode."""
        return [(int(a), int(b)) for a, b in self.run("segment_episodes", {"items": list(items)})]

    def narrate_episode(self, items: list[str]) -> EpisodeNarrative:
        """Title, narrative and one-sentence summary of one episode, from its action lines."""
        value = self.run("narrate_episode", {"items": list(items)})
        return EpisodeNarrative(value["title"], value["narrative"], value["summary"])

    def describe_style(self, text: str) -> dict[str, Any]:
        return dict(self.run("describe_style", {"text": text}))

    def judge_anomaly(self, deviation: Mapping[str, float],
                      task_shift: Mapping[str, float] | None = None) -> AnomalyVerdict:
        value = self.run("judge_anomaly", {"deviation": dict(deviation), "task_shift": dict(task_shift or {})})
        return AnomalyVerdict(value["label"], value.get("rationale", ""))

    def answer_mcq(self, question: str, choices: list[str], context: str) -> McqAnswer:
        value = self.run("answer_mcq", {"question": question, "choices": list(choices), "context": context})
        return McqAnswer(int(value["index"]), float(value.get("confidence", 1.0)), tuple(value.get("scores", ())))

    def answer_open(self, question: str, context: str, *, max_words: int = 60) -> str:
        return str(self.run("answer_open", {"question": question, "context": context}, {"max_words": max_words}))

    def judge_likert(self, reference: str, answer: str, rubric: Mapping[int, str] | None = None) -> LikertScore:
        inputs = {"reference": reference, "answer": answer,
                  "rubric": {str(k): v for k, v in (rubric or {}).items()}}
        value = self.run("judge_likert", inputs)
        return LikertScore(int(value["score"]), value.get("rationale", ""))

    def judge_attribute(self, question: str, attribute: str, reference: str, answer: str) -> LikertScore:
        """1-5: does `answer` assert the reference value of one behavioural attribute (paper Table 8)?

        `attribute` is its name ("reading_strategy"), `reference` the value text ("Search-first"); the judge
        knows the attribute's three values in order, so a neighbouring value earns partial credit and an
        answer that only restates the attribute or the question asserts nothing (score 1)."""
        attribute_values(attribute)  # a clear error before anything is computed or cached
        value = self.run("judge_attribute", {"question": question, "attribute": attribute, "reference": reference,
                                             "answer": answer})
        return LikertScore(int(value["score"]), value.get("rationale", ""))

    def rephrase_question(self, question: str) -> str:
        return str(self.run("rephrase_question", {"question": question}))

    def agent_step(self, messages: list[dict[str, Any]], tools: Mapping[str, Any]) -> AgentStep:
        """The next turn of a tool-using agent given the conversation so far and the tool specs."""
        value = self.run("agent_step", {"messages": list(messages), "tools": dict(tools)})
        calls = tuple(ToolCall(c["name"], dict(c.get("arguments", {})), c.get("id", "")) for c in value["tool_calls"])
        return AgentStep(value.get("text", ""), calls)


def estimated_tokens(task: str, inputs: Mapping[str, Any], params: Mapping[str, Any], value: Any) -> tuple[int, int]:
    """(prompt, reply) tokens of one call by the 4-characters estimate: embeddings count their texts, agent
    steps their messages, other tasks their rendered template and the reply's text or JSON."""
    from ..util.tokens import estimate_tokens
    from .template_fields import template_fields

    if task == "embed":
        return sum(estimate_tokens(t) for t in inputs["texts"]), 0
    if task == "embed_image":
        return 0, 0
    if task == "agent_step":
        prompt = json.dumps(inputs["messages"], ensure_ascii=False) + json.dumps(inputs["tools"], ensure_ascii=False)
    else:
        prompt = TASKS[task].render(**template_fields(task, dict(inputs), dict(params)))
    reply = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return estimate_tokens(prompt), estimate_tokens(reply)


# -- registry -------------------------------------------------------------------------------------
BACKENDS: dict[str, str] = {
    "offline": "filegram_kit.llm.offline:OfflineBackend",
    "gemini": "filegram_kit.llm.gemini:GeminiBackend",
    "cohere": "filegram_kit.llm.cohere:CohereBackend",
    "openai_compat": "filegram_kit.llm.openai_compat:OpenAICompatBackend",
    "dryrun": "filegram_kit.llm.dryrun:DryRunBackend",  # offline answers, a target backend's token bill
}


def register_backend(name: str, target: str) -> None:
    """Make `get_backend(name)` import `module:Class` (third-party backends plug in here)."""
    BACKENDS[name] = target


UNCACHED = ("offline", "dryrun")  # answering again costs nothing: no cache unless one is given


def get_backend(name: str = "offline", **params: Any) -> Backend:
    """A backend by name; its module (and SDK) is imported only now.

    Backends that cost money answer through the default response cache (data/cache, mode from
    FILEGRAM_CACHE_MODE) unless `cache=` is given (None: no cache), so a rerun makes zero calls.
    """
    from ..util.plugins import is_reference, load_class

    if name not in BACKENDS and is_reference(name):  # your own class: local code, no response cache unless given
        return load_class(name, kind="backend", base=Backend)(**params)
    if name not in BACKENDS:
        raise KeyError(f"unknown backend {name!r}; backends: {', '.join(BACKENDS)}, or your own class as "
                       "'module:Class' / 'path/to/file.py:Class'")
    if "cache" not in params and name not in UNCACHED:
        from .cache import default_cache

        params["cache"] = default_cache()
    module_name, _, class_name = BACKENDS[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        extra = {"gemini": "gemini", "cohere": "cohere", "openai_compat": "openai"}.get(name)
        hint = f"; install it with: pip install -e '.[{extra}]'" if extra and exc.name != module_name else ""
        raise ImportError(f"backend {name!r} needs the module {exc.name!r}{hint}") from exc
    return getattr(module, class_name)(**params)
