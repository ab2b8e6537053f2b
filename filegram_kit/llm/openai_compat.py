"""OpenAI-compatible backend: api.openai.com, or any local server speaking its /v1 (vLLM, llama.cpp, Ollama).

    backend = get_backend("openai_compat")    # OPENAI_BASE_URL / OPENAI_MODEL / OPENAI_API_KEY or filegram.toml
    backend = OpenAICompatBackend("qwen2.5-7b-instruct", base_url="http://localhost:8000/v1")

Text tasks are one user message at temperature 0 (JSON mode when the task wants JSON and the server
accepts `response_format`); agent steps use the chat API's tool calling; embeddings come back unit-length.
Retries are ours (`call_with_retries`: 429, 5xx, timeouts), so the SDK's own retry is switched off.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import openai

from .config import backend_settings
from .prompting import Completion, PromptBackend
from .retry import AuthError, ProviderError, call_with_retries
from .tasks import ParseError, ToolCall

EMBED_BATCH = 512


class OpenAICompatBackend(PromptBackend):
    name = "openai_compat"
    default_model = "gpt-4o-mini"

    def __init__(self, model: str | None = None, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, retries: int = 4, embedding_model: str | None = None, seed: int = 0,
                 sleep: Callable[[float], None] = time.sleep, **kwargs: Any):
        settings = backend_settings(self.name)
        super().__init__(model or settings.get("model"), **kwargs)
        api_key = api_key or settings.get("api_key")
        base_url = base_url or settings.get("base_url")
        if not (api_key or base_url):
            raise AuthError("openai_compat needs OPENAI_API_KEY (for api.openai.com) or OPENAI_BASE_URL "
                            "(for a local OpenAI-compatible server, e.g. http://localhost:8000/v1)")
        self.embedding_model = embedding_model or settings.get("embedding_model") or "text-embedding-3-small"
        self.timeout, self.retries, self.seed, self._sleep = timeout, retries, seed, sleep
        self._json_mode = True  # switched off once a server rejects response_format
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
                                    max_retries=0)
        self.base_url = str(self.client.base_url).rstrip("/")

    def params(self) -> dict[str, Any]:
        return {**super().params(), "base_url": self.base_url, "embedding_model": self.embedding_model}

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        return call_with_retries(fn, what=f"openai_compat {what} ({self.base_url})", key_hint="OPENAI_API_KEY",
                                 retries=self.retries, seed=self.seed, sleep=self._sleep)

    def _create(self, **request: Any) -> Completion:
        def once() -> Any:
            try:
                return self.client.chat.completions.create(model=self.model, temperature=0, **request)
            except openai.BadRequestError as exc:
                if "response_format" not in request or "response_format" not in str(exc):
                    raise
                self._json_mode = False  # a server without JSON mode: ask again without it
                request.pop("response_format")
                return self.client.chat.completions.create(model=self.model, temperature=0, **request)

        reply = self._call("chat completion", once)
        choices = getattr(reply, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise ProviderError(f"openai_compat: the reply from {self.base_url} has no choices[0].message: "
                                f"{str(reply)[:200]!r}")
        usage = getattr(reply, "usage", None)
        message = choices[0].message
        return Completion(message.content or "", int(getattr(usage, "prompt_tokens", 0) or 0),
                          int(getattr(usage, "completion_tokens", 0) or 0),
                          tuple(_tool_call(c) for c in message.tool_calls or ()))

    def _complete(self, prompt: str, *, json_mode: bool) -> Completion:
        request: dict[str, Any] = {"messages": [{"role": "user", "content": prompt}]}
        if json_mode and self._json_mode:
            request["response_format"] = {"type": "json_object"}
        return self._create(**request)

    def _chat(self, messages: list[dict[str, Any]], tools: dict[str, Any]) -> Completion:
        request: dict[str, Any] = {"messages": [_openai_message(m) for m in messages]}
        if tools:
            request["tools"] = [{"type": "function", "function": {
                "name": name, "description": spec.get("description", ""),
                "parameters": spec.get("parameters", {"type": "object", "properties": {}})}}
                for name, spec in tools.items()]
        return self._create(**request)

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
            rows += [list(d.embedding) for d in data]
            tokens += int(getattr(getattr(reply, "usage", None), "prompt_tokens", 0) or 0)
        vectors = np.asarray(rows, dtype=np.float64).reshape(len(texts), -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.where(norms > 0, norms, 1.0)).tolist(), tokens


def _openai_message(m: Mapping[str, Any]) -> dict[str, Any]:
    """One message in OpenAI's chat format, from the neutral format (tool calls with dict arguments) or as is."""
    role = m.get("role", "user")
    if role == "tool":
        return {"role": "tool", "tool_call_id": m.get("tool_call_id", ""), "content": str(m.get("content", ""))}
    if role == "assistant" and m.get("tool_calls"):
        calls = [c if "function" in c else {"id": c.get("id", ""), "type": "function", "function": {
            "name": c["name"], "arguments": json.dumps(c.get("arguments", {}), ensure_ascii=False)}}
            for c in m["tool_calls"]]
        return {"role": "assistant", "content": m.get("content") or None, "tool_calls": calls}
    return {"role": role, "content": m.get("content", "")}


def _tool_call(call: Any) -> ToolCall:
    name, raw = call.function.name, call.function.arguments or "{}"
    try:
        arguments = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ParseError("agent_step", f"arguments of tool {name!r} are not JSON ({exc.msg})", raw) from None
    if not isinstance(arguments, dict):
        raise ParseError("agent_step", f"arguments of tool {name!r} are not a JSON object", raw)
    return ToolCall(name, arguments, call.id or "")
