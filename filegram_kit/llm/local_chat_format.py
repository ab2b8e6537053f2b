"""llama-cpp-python's function-calling chat format with the request's output cap kept, for the local server.

Its `chatml-function-calling` handler generates a tool call's arguments (and a plain message, and the choice
between the two) with `max_tokens=None` whatever the request asked: SmolLM2 then writes one `write` call until
the 4,096-token window is full, grammar-constrained, for ten minutes and more, while the client has long given
up on it (600 s) and its next request waits behind. `CAPPED_FORMAT` is the same handler, with every completion
it makes capped at the request's `max_tokens` (a cut call's arguments reach the client as JSON that does not
parse: the agent's tool call fails and its run goes on). `register()` runs in the server's process
(`local_server serve`); nothing else imports llama_cpp.
"""

from __future__ import annotations

from typing import Any

CAPPED_FORMAT = "chatml-function-calling-capped"


class CappedLlama:
    """A `llama_cpp.Llama` whose `create_completion` calls without an output cap get `cap` (others keep theirs)."""

    def __init__(self, llama: Any, cap: int | None):
        self._llama, self._cap = llama, cap

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def create_completion(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("max_tokens") is None and self._cap:
            kwargs["max_tokens"] = self._cap
        return self._llama.create_completion(*args, **kwargs)


def capped_function_calling(*, llama: Any, max_tokens: int | None = None, **kwargs: Any) -> Any:
    """llama-cpp-python's `chatml_function_calling`, its completions capped at the request's `max_tokens`."""
    from llama_cpp.llama_chat_format import chatml_function_calling

    return chatml_function_calling(llama=CappedLlama(llama, max_tokens), max_tokens=max_tokens, **kwargs)


def register() -> None:
    """Make `CAPPED_FORMAT` a chat format name the server's --config_file can give."""
    from llama_cpp.llama_chat_format import register_chat_completion_handler

    register_chat_completion_handler(CAPPED_FORMAT)(capped_function_calling)
