"""OpenAI-compatible backend: api.openai.com, or any local server speaking its /v1 (vLLM, llama.cpp, Ollama).

    backend = get_backend("openai_compat")    # OPENAI_BASE_URL / OPENAI_MODEL / OPENAI_API_KEY or filegram.toml
    backend = OpenAICompatBackend("qwen2.5-7b-instruct", base_url="http://localhost:8000/v1")

Text tasks are one user message at temperature 0 (JSON mode when the task wants JSON and the server
accepts `response_format`), capped at the task's output tokens (output_caps.py); agent steps use the chat
API's tool calling; embeddings come back unit-length. Retries are ours (`call_with_retries`: 429, 5xx,
timeouts), so the SDK's own retry is switched off.

A server on this machine (127.0.0.1, localhost) is taken to be a local model that serves one request at a
time: calls wait their turn in the client (`concurrency` 1) instead of queueing on the server, a call may
take `timeout` 600 s, and a timed-out call is not sent again (the server still works on it). Set
`concurrency`, `timeout` or `retries` in [backends.openai_compat] of filegram.toml, or OPENAI_CONCURRENCY /
OPENAI_TIMEOUT, for a server that serves more.

Calls with tools (agent steps) go to `tool_model` (OPENAI_TOOL_MODEL), default the chat model: a server may
serve a model's tool-calling chat format under another name (the local model of local_server.py does).

Embeddings: `embedding_model` (OPENAI_EMBEDDING_MODEL), else text-embedding-3-small at OpenAI and the chat
model on a local server. A server that returns one vector per token (llama-cpp-python) is mean-pooled. With
`embedding_model = "offline"`, or when the server has no embeddings endpoint (it answers 404, 405, 501, or
400 naming embeddings), the offline embedder (wordllama) embeds instead, with one warning; the embedder
used is part of each embedding's cache key and of `params()`, so the run's manifest records it.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlparse

import numpy as np
import openai

from .config import backend_settings
from .prompting import Completion, PromptBackend
from .retry import AuthError, ProviderError, call_with_retries
from .tasks import ParseError, ToolCall, parse_json

EMBED_BATCH = 512
OFFLINE_EMBEDDER = "offline"
LOCAL_TIMEOUT = 600.0  # a 2,000-token prompt takes a small model on 2 cores 10-20 s; a long reply minutes
NO_EMBEDDINGS = (404, 405, 501)


def is_local(base_url: str | None) -> bool:
    """Whether the server runs on this machine (loopback address or localhost)."""
    host = urlparse(base_url or "").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OpenAICompatBackend(PromptBackend):
    name = "openai_compat"
    default_model = "gpt-4o-mini"

    def __init__(self, model: str | None = None, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float | None = None, retries: int | None = None, embedding_model: str | None = None,
                 tool_model: str | None = None,
                 concurrency: int | None = None, seed: int = 0, sleep: Callable[[float], None] = time.sleep,
                 **kwargs: Any):
        settings = backend_settings(self.name)
        api_key = api_key or settings.get("api_key")
        base_url = base_url or settings.get("base_url")
        if not (api_key or base_url):
            raise AuthError("openai_compat needs OPENAI_API_KEY (for api.openai.com) or OPENAI_BASE_URL "
                            "(for a local OpenAI-compatible server, e.g. http://localhost:8000/v1)")
        self.local = is_local(base_url)
        concurrency = int(concurrency or settings.get("concurrency") or (1 if self.local else 4))
        kwargs.setdefault("max_concurrency", concurrency)
        super().__init__(model or settings.get("model"), **kwargs)
        self.embedding_model = (embedding_model or settings.get("embedding_model")
                                or (self.model if self.local else "text-embedding-3-small"))
        self.tool_model = tool_model or settings.get("tool_model") or self.model
        self.timeout = float(timeout or settings.get("timeout") or (LOCAL_TIMEOUT if self.local else 60.0))
        self.retries = int(retries if retries is not None else settings.get("retries", 4))
        self.seed, self._sleep = seed, sleep
        self._json_mode = True  # switched off once a server rejects response_format
        self._cap_field = "max_tokens"  # max_completion_tokens for models that refuse max_tokens
        self._slots = threading.BoundedSemaphore(concurrency)  # requests in flight, whatever the callers' threads
        self._offline_embedder: Any = None
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=self.timeout,
                                    max_retries=0)
        self.base_url = str(self.client.base_url).rstrip("/")

    def params(self) -> dict[str, Any]:
        tools = {"tool_model": self.tool_model} if self.tool_model != self.model else {}
        return {**super().params(), "base_url": self.base_url, "embedding_model": self.embedding_model, **tools}

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        def in_turn() -> Any:
            with self._slots:
                return fn()

        return call_with_retries(in_turn, what=f"openai_compat {what} ({self.base_url})", key_hint="OPENAI_API_KEY",
                                 retries=self.retries, seed=self.seed, sleep=self._sleep,
                                 retry_timeouts=not self.local)

    def _create(self, model: str, **request: Any) -> Completion:
        def once() -> Any:
            for _ in range(3):  # a server may refuse JSON mode, or max_tokens (newer OpenAI models): ask without
                try:
                    return self.client.chat.completions.create(model=model, temperature=0, **request)
                except openai.BadRequestError as exc:
                    if "response_format" in request and "response_format" in str(exc):
                        self._json_mode = False
                        request.pop("response_format")
                    elif "max_tokens" in request and "max_completion_tokens" in str(exc):
                        self._cap_field = "max_completion_tokens"
                        request["max_completion_tokens"] = request.pop("max_tokens")
                    else:
                        raise
            return self.client.chat.completions.create(model=model, temperature=0, **request)

        reply = self._call("chat completion", once)
        choices = getattr(reply, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise ProviderError(f"openai_compat: the reply from {self.base_url} has no choices[0].message: "
                                f"{str(reply)[:200]!r}")
        usage = getattr(reply, "usage", None)
        message = choices[0].message
        calls = tuple(_tool_call(c) for c in message.tool_calls or ())
        malformed = sum(UNPARSED in c.arguments for c in calls)
        if malformed:
            self.usage.add(self.current_phase, parse_failures=malformed)
        return Completion(message.content or "", int(getattr(usage, "prompt_tokens", 0) or 0),
                          int(getattr(usage, "completion_tokens", 0) or 0), calls,
                          truncated=getattr(choices[0], "finish_reason", None) == "length")

    def _complete(self, prompt: str, *, json_mode: bool, max_tokens: int) -> Completion:
        request: dict[str, Any] = {"messages": [{"role": "user", "content": prompt}], self._cap_field: max_tokens}
        if json_mode and self._json_mode:
            request["response_format"] = {"type": "json_object"}
        return self._create(self.model, **request)

    def _chat(self, messages: list[dict[str, Any]], tools: dict[str, Any], *, max_tokens: int) -> Completion:
        request: dict[str, Any] = {"messages": [_openai_message(m) for m in messages], self._cap_field: max_tokens}
        if tools:  # "auto" said outright: llama-cpp-python's function-calling formats show the tools only then
            request["tool_choice"] = "auto"
            request["tools"] = [{"type": "function", "function": {
                "name": name, "description": spec.get("description", ""),
                "parameters": spec.get("parameters", {"type": "object", "properties": {}})}}
                for name, spec in tools.items()]
        return self._create(self.tool_model if tools else self.model, **request)

    def embed(self, texts: list[str], *, input_type: str = "document") -> Any:
        if self.embedding_model != OFFLINE_EMBEDDER:
            try:
                return super().embed(texts, input_type=input_type)
            except ProviderError as exc:
                if not (exc.status in NO_EMBEDDINGS or (exc.status == 400 and "embed" in str(exc).lower())):
                    raise
                warnings.warn(f"{self.base_url} serves no embeddings ({exc}); the offline embedder (wordllama) "
                              'embeds instead: set embedding_model = "offline" to say so', stacklevel=2)
                self.embedding_model = OFFLINE_EMBEDDER
        return self._offline().embed(texts, input_type=input_type)

    def _offline(self) -> Any:
        """The offline embedder (wordllama) that stands in for a server without embeddings."""
        if self._offline_embedder is None:
            from .offline import OfflineBackend

            self._offline_embedder = OfflineBackend()
        return self._offline_embedder

    def _embed(self, texts: list[str], *, input_type: str) -> tuple[list[list[float]], int]:
        rows: list[list[float]] = []
        tokens = 0
        for start in range(0, len(texts), EMBED_BATCH):
            batch = texts[start:start + EMBED_BATCH]
            reply = self._call("embeddings", lambda batch=batch: self.client.embeddings.create(
                model=self.embedding_model, input=batch, encoding_format="float"))
            data = sorted(getattr(reply, "data", None) or [], key=lambda d: d.index)
            if len(data) != len(batch):
                raise ProviderError(f"openai_compat: asked {len(batch)} embeddings from {self.base_url}, "
                                    f"got {len(data)}: {str(reply)[:200]!r}")
            rows += [_pooled(d.embedding) for d in data]
            tokens += int(getattr(getattr(reply, "usage", None), "prompt_tokens", 0) or 0)
        vectors = np.asarray(rows, dtype=np.float64).reshape(len(texts), -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.where(norms > 0, norms, 1.0)).tolist(), tokens


def _pooled(embedding: Any) -> list[float]:
    """One vector: as given, or the mean of the per-token vectors a server without pooling returns."""
    matrix = np.asarray(embedding, dtype=np.float64)
    if matrix.ndim == 2 and len(matrix):
        return matrix.mean(axis=0).tolist()
    if matrix.ndim != 1:
        raise ProviderError(f"openai_compat: an embedding of shape {matrix.shape} is neither a vector nor one "
                            "vector per token")
    return matrix.tolist()


def _openai_message(m: Mapping[str, Any]) -> dict[str, Any]:
    """One message in OpenAI's chat format, from the neutral format (tool calls with dict arguments) or as is."""
    role = m.get("role", "user")
    if role == "tool":
        return {"role": "tool", "tool_call_id": m.get("tool_call_id", ""), "content": str(m.get("content", ""))}
    if role == "assistant" and m.get("tool_calls"):
        calls = [c if "function" in c else {"id": c.get("id", ""), "type": "function", "function": {
            "name": c["name"], "arguments": json.dumps(c.get("arguments", {}), ensure_ascii=False)}}
            for c in m["tool_calls"]]
        # "" rather than null: llama-cpp-python's server refuses an assistant turn whose content is not a string
        return {"role": "assistant", "content": m.get("content") or "", "tool_calls": calls}
    return {"role": role, "content": m.get("content", "")}


UNPARSED = "unparsed_arguments"


def _tool_call(call: Any) -> ToolCall:
    """A typed tool call. Arguments that are not a JSON object (even read tolerantly) are passed on as
    {UNPARSED: raw}: the tool refuses them as bad parameters and the agent sees that, as a model's malformed
    call goes in any agent harness, instead of the whole run failing."""
    name, raw = call.function.name, call.function.arguments or "{}"
    try:
        arguments = parse_json("agent_step", raw)
    except ParseError:
        arguments = None
    return ToolCall(name, arguments if isinstance(arguments, dict) else {UNPARSED: raw}, call.id or "")
