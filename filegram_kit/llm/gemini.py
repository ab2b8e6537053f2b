"""The `gemini` backend: Google's Gemini API through the google-genai SDK (text, images, tools, embeddings).

    backend = get_backend("gemini")                   # GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment
    backend.answer_mcq(question, choices, context)    # generate_content, temperature 0, JSON mode
    backend.embed(texts, input_type="query")          # gemini-embedding-001, task_type RETRIEVAL_QUERY

`base_url` points the real SDK at another endpoint (tests use a loopback server). The SDK's own
retries are off; `call_with_retries` retries 429/5xx and turns 401/403 into `AuthError`. The key is
checked at the first call that needs the API, so a cache replay runs without one.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

import numpy as np
from google import genai
from google.genai import types

from .config import backend_settings
from .prompting import Completion, PromptBackend
from .retry import AuthError, ProviderError, call_with_retries
from .tasks import ToolCall

KEY_HINT = "GEMINI_API_KEY"
EMBED_BATCH = 100  # batchEmbedContents takes at most 100 requests
TASK_TYPES = {"document": "RETRIEVAL_DOCUMENT", "query": "RETRIEVAL_QUERY"}
THINKING_ALLOWANCE = 2048  # output tokens a 2.5 model may spend thinking, on top of the task's cap (output_caps.py)


class GeminiBackend(PromptBackend):
    name = "gemini"
    default_model = "gemini-2.5-flash"
    default_embedding_model = "gemini-embedding-001"

    def __init__(self, model: str | None = None, *, api_key: str | None = None, base_url: str | None = None,
                 timeout: float = 60.0, retries: int = 4, embedding_model: str | None = None, **kwargs: Any):
        settings = backend_settings("gemini")
        super().__init__(model or settings.get("model"), **kwargs)
        self.embedding_model = embedding_model or settings.get("embedding_model") or self.default_embedding_model
        self.base_url = base_url or settings.get("base_url")
        self.timeout, self.retries = float(timeout), int(retries)
        self._api_key = api_key or settings.get("api_key")
        self._client: genai.Client | None = None

    def params(self) -> dict[str, Any]:
        return {**super().params(), "embedding_model": self.embedding_model}

    @property
    def client(self) -> genai.Client:
        if self._client is None:
            if not self._api_key:
                raise AuthError(f"gemini backend needs an API key: set {KEY_HINT} (or GOOGLE_API_KEY)")
            options = types.HttpOptions(base_url=self.base_url, timeout=int(self.timeout * 1000),
                                        retry_options=types.HttpRetryOptions(attempts=1))  # ours retry, not the SDK
            self._client = genai.Client(api_key=self._api_key, vertexai=False, http_options=options)
        return self._client

    def _call(self, what: str, fn: Any) -> Any:
        client = self.client  # AuthError for a missing key, before any request
        return call_with_retries(lambda: fn(client.models), what=f"gemini {what}", key_hint=KEY_HINT,
                                 retries=self.retries)

    def _generate(self, contents: Any, config: types.GenerateContentConfig) -> Completion:
        response = self._call(self.model, lambda m: m.generate_content(model=self.model, contents=contents,
                                                                       config=config))
        candidate = (response.candidates or [None])[0]
        parts = (candidate.content.parts if candidate and candidate.content else None) or []
        text = "".join(p.text for p in parts if p.text and not p.thought)
        calls = tuple(ToolCall(p.function_call.name or "", dict(p.function_call.args or {}),
                               p.function_call.id or f"call_{i}_{p.function_call.name}")
                      for i, p in enumerate(parts) if p.function_call)
        if not text and not calls:
            reason = candidate.finish_reason if candidate else getattr(response.prompt_feedback, "block_reason", None)
            raise ProviderError(f"gemini {self.model} returned no text (reason: {reason})")
        usage = response.usage_metadata
        output = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0) if usage else 0
        truncated = bool(candidate and str(candidate.finish_reason or "").endswith("MAX_TOKENS"))
        return Completion(text, (usage.prompt_token_count or 0) if usage else 0, output, calls, truncated)

    def _complete(self, prompt: str, *, json_mode: bool, max_tokens: int) -> Completion:
        return self._generate(prompt, _config(json_mode, max_tokens))

    def complete_multimodal(self, prompt: str, images: list[bytes | str | Path], *,
                            json_mode: bool = False) -> Completion:
        """One reply to a prompt with images (bytes are sent as PNG; paths by their extension). Not cached."""
        parts = [types.Part.from_text(text=prompt)]
        for image in images:
            if isinstance(image, bytes):
                parts.append(types.Part.from_bytes(data=image, mime_type="image/png"))
            else:
                mime = mimetypes.guess_type(str(image))[0] or "application/octet-stream"
                parts.append(types.Part.from_bytes(data=Path(image).read_bytes(), mime_type=mime))
        try:
            reply = self._generate([types.Content(role="user", parts=parts)], _config(json_mode))
        except Exception:
            self.usage.add(self.current_phase, calls=1, errors=1)
            raise
        self.usage.add(self.current_phase, calls=1, input_tokens=reply.input_tokens, output_tokens=reply.output_tokens)
        return reply

    def _chat(self, messages: list[dict[str, Any]], tools: dict[str, Any], *, max_tokens: int) -> Completion:
        system, contents = to_contents(messages)
        declarations = [types.FunctionDeclaration(name=name, description=spec.get("description", ""),
                                                  parameters_json_schema=spec.get("parameters"))
                        for name, spec in tools.items()]
        config = types.GenerateContentConfig(
            temperature=0.0, system_instruction=system or None, max_output_tokens=max_tokens + THINKING_ALLOWANCE,
            tools=[types.Tool(function_declarations=declarations)] if declarations else None,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
        return self._generate(contents, config)

    def _embed(self, texts: list[str], *, input_type: str) -> tuple[list[list[float]], int]:
        if not texts:
            return [], 0
        config = types.EmbedContentConfig(task_type=TASK_TYPES.get(input_type, input_type.upper()))
        rows, tokens = [], 0
        for start in range(0, len(texts), EMBED_BATCH):
            batch = texts[start:start + EMBED_BATCH]
            response = self._call(self.embedding_model, lambda m, b=batch: m.embed_content(
                model=self.embedding_model, contents=b, config=config))
            vectors = [e.values or [] for e in response.embeddings or []]
            if len(vectors) != len(batch) or not all(vectors):
                raise ProviderError(f"gemini {self.embedding_model}: {len(vectors)} embeddings for {len(batch)} texts")
            rows.extend(vectors)
            usage = response.usage_metadata
            tokens += (usage.prompt_token_count or 0) if usage else 0
        matrix = np.asarray(rows, dtype=np.float64).reshape(len(texts), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms > 0, norms, 1.0)).tolist(), tokens


def _config(json_mode: bool, max_tokens: int | None = None) -> types.GenerateContentConfig:
    """Temperature 0, JSON when asked; the reply's cap plus THINKING_ALLOWANCE (2.5 models count their thinking
    as output, so a bare 64-token cap would leave no room for the answer)."""
    cap = None if max_tokens is None else max_tokens + THINKING_ALLOWANCE
    return types.GenerateContentConfig(temperature=0.0, response_mime_type="application/json" if json_mode else None,
                                       max_output_tokens=cap)


def to_contents(messages: list[dict[str, Any]]) -> tuple[str, list[types.Content]]:
    """The project's neutral chat messages as (system instruction, Gemini contents); turns of one role merge."""
    names = {c.get("id", ""): c["name"] for m in messages if m.get("role") == "assistant"
             for c in m.get("tool_calls", [])}
    system, contents = [], []
    for m in messages:
        role, text = m.get("role"), str(m.get("content") or "")
        if role == "system":
            system.append(text)
            continue
        if role == "tool":
            name = m.get("name") or names.get(m.get("tool_call_id", ""), "")
            parts = [types.Part(function_response=types.FunctionResponse(
                id=m.get("tool_call_id") or None, name=name, response={"output": text}))]
        else:
            parts = [types.Part.from_text(text=text)] if text else []
            parts += [types.Part(function_call=types.FunctionCall(id=c.get("id") or None, name=c["name"],
                                                                  args=dict(c.get("arguments", {}))))
                      for c in m.get("tool_calls", [])]
        gemini_role = "model" if role == "assistant" else "user"
        if contents and contents[-1].role == gemini_role:
            contents[-1].parts.extend(parts)
        elif parts:
            contents.append(types.Content(role=gemini_role, parts=parts))
    return "\n\n".join(system), contents
