"""The `offline` backend: every typed task answered by a deterministic algorithm, no key, no network.

    get_backend("offline")                  # embeddings from WordLlama, 256-D (dim=64 or 128: Matryoshka prefixes)
    get_backend("offline", embedder="lsa")  # the ablation: LSA fitted on the project's own text (any dim)

WordLlama embeddings by default (a static token-embedding model whose weights ship in the `wordllama`
wheel, trained on none of our text; LSA is fitted on the task prompts and workspace documents our
generator writes, so it is kept as the ablation), TextRank summaries, ranked fact extraction,
change-point episodes, counted episode narratives, a BM25 + embedding + number-matching reader, a
coverage/contradiction Likert judge, a residual-z anomaly judge, measured style and rule-based
paraphrase (see `llm/algorithms/`). The agent step is a small explorer: list the
workspace, read what is there, write notes from what it read, stop. Nothing here is a stub that
returns a fixed answer, and nothing costs tokens.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

import numpy as np

from ..traces.documents import text_of_bytes
from . import algorithms as alg
from .algorithms.embedders import check_embedder
from .base import Backend, Computed
from .memory_tasks import OfflineMemoryTasks

AGENT_NOTES = "notes.md"
AGENT_READ_LIMIT = 6


class OfflineBackend(OfflineMemoryTasks, Backend):
    name = "offline"
    default_model = "offline-v1"

    def __init__(self, model: str | None = None, *, dim: int = 256, seed: int = 0,
                 embedder: str = alg.DEFAULT_EMBEDDER, **kwargs: Any):
        embedder = check_embedder(embedder, int(dim))  # "wordllama" | "lsa" (the ablation)
        if model is None and embedder != alg.DEFAULT_EMBEDDER:  # result rows key on the model: keep runs apart
            model = f"{self.default_model}+{embedder}"
        super().__init__(model, **kwargs)
        self.dim, self.seed = int(dim), int(seed)
        self.embedder = embedder

    def params(self) -> dict[str, Any]:
        # the embedder is part of every cache key: an LSA answer is never served for wordllama
        return {**super().params(), "dim": self.dim, "seed": self.seed, "embedder": self.embedder}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, embedder={self.embedder!r}, dim={self.dim})"

    def _compute(self, task: str, inputs: dict[str, Any], params: dict[str, Any]) -> Computed:
        handler = getattr(self, f"_task_{task}", None)
        if handler is None:
            raise NotImplementedError(f"offline backend has no algorithm for task {task!r}")
        return Computed(handler(**inputs, **params))

    # -- one method per typed task (returns the JSON-able value the cache stores) ------------------
    def _task_embed(self, texts: list[str], input_type: str = "document") -> list[list[float]]:
        # rounded: BLAS thread counts change the last bits of an SVD, not the first six decimals (stable bytes)
        vectors = alg.embed_with(self.embedder, texts, dim=self.dim, seed=self.seed)
        return np.round(vectors, 6).tolist()

    def _task_embed_image(self, images: list[str]) -> list[list[float]]:
        """What can be read from an image (its embedded caption, size, format), embedded as text."""
        views = [text_of_bytes(data, _image_kind(data)) for data in (base64.b64decode(i) for i in images)]
        return self._task_embed(views)

    def _task_summarize(self, text: str, max_words: int = 120) -> str:
        return alg.summarize(text, max_words=max_words)

    def _task_extract_facts(self, text: str, max_facts: int = 10) -> list[str]:
        return alg.extract_facts(text, max_facts=max_facts)

    def _task_segment_episodes(self, items: list[str]) -> list[list[int]]:
        return [[a, b] for a, b in alg.segment(items, embedder=self.embedder)] if items else []

    def _task_narrate_episode(self, items: list[str]) -> dict[str, str]:
        return alg.narrate(items)

    def _task_describe_style(self, text: str) -> dict[str, Any]:
        return alg.describe_style(text)

    def _task_judge_anomaly(self, deviation: dict[str, float], task_shift: dict[str, float]) -> dict[str, str]:
        label, rationale = alg.judge_anomaly(deviation, task_shift or None)
        return {"label": label, "rationale": rationale}

    def _task_answer_mcq(self, question: str, choices: list[str], context: str) -> dict[str, Any]:
        index, scores = alg.answer_mcq(question, choices, context, embedder=self.embedder)
        return {"index": int(index), "confidence": float(scores[index]), "scores": [float(s) for s in scores]}

    def _task_answer_open(self, question: str, context: str, max_words: int = 60) -> str:
        return alg.answer_open(question, context, max_words=max_words, embedder=self.embedder)

    def _task_judge_likert(self, reference: str, answer: str, rubric: dict[str, str]) -> dict[str, Any]:
        score, rationale = alg.judge_likert(reference, answer, {int(k): v for k, v in rubric.items()} or None)
        return {"score": int(score), "rationale": rationale}

    def _task_judge_attribute(self, question: str, attribute: str, reference: str, answer: str) -> dict[str, Any]:
        score, rationale = alg.judge_attribute(attribute, reference, answer, question)
        return {"score": int(score), "rationale": rationale}

    def _task_rephrase_question(self, question: str) -> str:
        return alg.rephrase(question, seed=self.seed)

    def _task_agent_step(self, messages: list[dict[str, Any]], tools: dict[str, Any]) -> dict[str, Any]:
        return explorer_step(messages)


def _tool_results(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """(tool name, arguments, output) of every tool call the conversation answered, in order."""
    calls = {c.get("id", ""): c for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls", [])}
    out = []
    for m in messages:
        if m.get("role") == "tool":
            call = calls.get(m.get("tool_call_id", ""), {})
            name = call.get("name", m.get("name", ""))
            out.append((name, dict(call.get("arguments", {})), str(m.get("content", ""))))
    return out


def explorer_step(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The offline agent's next move: ls, then read up to AGENT_READ_LIMIT files, then write notes, then stop."""
    results = _tool_results(messages)
    step = len(results)
    listings = [out for name, _, out in results if name == "ls"]
    if not listings:
        return _call("Let me look at the workspace first.", "ls", {"path": "."}, step)
    read = [args.get("file_path") for name, args, _ in results if name == "read"]
    files = [line.strip() for line in listings[0].splitlines() if line.strip() and not line.strip().endswith("/")]
    todo = [f for f in files if f not in read][:max(0, AGENT_READ_LIMIT - len(read))]
    if todo:
        return _call(f"Reading {todo[0]}.", "read", {"file_path": todo[0]}, step)
    if not any(name == "write" for name, _, _ in results):
        texts = [re.sub(r"^\s*\d+\t", "", out, flags=re.MULTILINE) for name, _, out in results if name == "read"]
        notes = "# Notes\n\n" + "\n\n".join(alg.summarize(t, max_words=60) for t in texts if t.strip()) + "\n"
        return _call("Writing my notes.", "write", {"file_path": AGENT_NOTES, "content": notes}, step)
    return {"text": f"Done: read {len(read)} files and wrote {AGENT_NOTES}.", "tool_calls": []}


def _call(text: str, name: str, arguments: dict[str, Any], step: int) -> dict[str, Any]:
    digest = hashlib.sha256(json.dumps(arguments, sort_keys=True).encode()).hexdigest()[:8]  # not hash(): salted
    call_id = f"call_{step}_{name}_{digest}"
    return {"text": text, "tool_calls": [{"name": name, "arguments": arguments, "id": call_id}]}


def _image_kind(data: bytes) -> str:
    """The image format from its magic bytes (the reader needs it; the bytes carry no file name)."""
    if data.startswith(b"\x89PNG"):
        return "png"
    if data.startswith(b"\xff\xd8"):
        return "jpg"
    return "gif" if data[:4] == b"GIF8" else "bin"
