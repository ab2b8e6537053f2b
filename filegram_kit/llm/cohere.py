"""The `cohere` backend: Cohere embeddings through the cohere SDK's ClientV2 (embeddings only).

    backend = get_backend("cohere")                   # COHERE_API_KEY in the environment
    backend.embed(texts)                              # embed-english-v3.0, 1024-D, input_type search_document
    backend.embed([question], input_type="query")     # input_type search_query

Texts go in batches of 96 (the API's limit), rows come back in order and unit length, tokens from
`meta.billed_units.input_tokens`. The SDK's own retries are off; `call_with_retries` retries 429/5xx
and turns 401/403 into `AuthError`. Text tasks are not Cohere's job here: use gemini, openai_compat
or offline for them.
"""

from __future__ import annotations

import base64
from typing import Any

import cohere
import numpy as np

from .config import backend_settings
from .prompting import Completion, PromptBackend
from .retry import AuthError, ProviderError, call_with_retries

KEY_HINT = "COHERE_API_KEY"
INPUT_TYPES = {"document": "search_document", "query": "search_query"}
TEXT_TASKS = "cohere is an embedding backend; use gemini/openai_compat/offline for text tasks"


class CohereBackend(PromptBackend):
    embeds_images = True  # embed v3/v4: images and texts in one space
    name = "cohere"
    default_model = "embed-english-v3.0"  # 1024-D

    def __init__(self, model: str | None = None, *, api_key: str | None = None, base_url: str | None = None,
                 timeout: float = 60.0, retries: int = 4, batch_size: int = 96, **kwargs: Any):
        settings = backend_settings("cohere")
        super().__init__(model or settings.get("model"), **kwargs)
        self.base_url = base_url or settings.get("base_url")
        self.timeout, self.retries, self.batch_size = float(timeout), int(retries), max(1, int(batch_size))
        self._api_key = api_key or settings.get("api_key")
        self._client: cohere.ClientV2 | None = None

    @property
    def client(self) -> cohere.ClientV2:
        if self._client is None:
            if not self._api_key:
                raise AuthError(f"cohere backend needs an API key: set {KEY_HINT}")
            extra = {"base_url": self.base_url} if self.base_url else {}  # else the SDK's default (or CO_API_URL)
            self._client = cohere.ClientV2(api_key=self._api_key, timeout=self.timeout, max_retries=0,
                                           client_name="filegram-kit", **extra)
        return self._client

    def _embed(self, texts: list[str], *, input_type: str) -> tuple[list[list[float]], int]:
        if not texts:
            return [], 0
        client = self.client  # AuthError for a missing key, before any request
        kind = INPUT_TYPES.get(input_type, input_type)
        rows: list[list[float]] = []
        tokens = 0
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start:start + self.batch_size]
            response = call_with_retries(
                lambda b=batch: client.embed(texts=b, model=self.model, input_type=kind, embedding_types=["float"]),
                what=f"cohere {self.model}", key_hint=KEY_HINT, retries=self.retries)
            vectors = getattr(response.embeddings, "float_", None) or []
            if len(vectors) != len(batch):
                raise ProviderError(f"cohere {self.model}: {len(vectors)} float embeddings for {len(batch)} texts")
            rows.extend(vectors)
            billed = response.meta.billed_units if response.meta else None
            tokens += int(billed.input_tokens or 0) if billed else 0
        matrix = np.asarray(rows, dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms > 0, norms, 1.0)).tolist(), tokens

    def _embed_images(self, images: list[bytes]) -> tuple[list[list[float]], int]:
        """embed v3 takes one image per request, as a data URI, with input_type "image"."""
        client, rows, tokens = self.client, [], 0
        for image in images:
            kind = "png" if image.startswith(b"\x89PNG") else "gif" if image[:4] == b"GIF8" else "jpeg"
            uri = f"data:image/{kind};base64,{base64.b64encode(image).decode('ascii')}"
            response = call_with_retries(
                lambda u=uri: client.embed(images=[u], model=self.model, input_type="image",
                                           embedding_types=["float"]),
                what=f"cohere {self.model} image", key_hint=KEY_HINT, retries=self.retries)
            vectors = getattr(response.embeddings, "float_", None) or []
            if len(vectors) != 1:
                raise ProviderError(f"cohere {self.model}: {len(vectors)} embeddings for one image")
            rows.append(vectors[0])
            billed = response.meta.billed_units if response.meta else None
            tokens += int(getattr(billed, "images", 0) or 0) if billed else 0
        matrix = np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms > 0, norms, 1.0)).tolist(), tokens

    def _complete(self, prompt: str, *, json_mode: bool, max_tokens: int) -> Completion:
        raise NotImplementedError(TEXT_TASKS)

    def _chat(self, messages: list[dict[str, Any]], tools: dict[str, Any], *, max_tokens: int) -> Completion:
        raise NotImplementedError(TEXT_TASKS)
