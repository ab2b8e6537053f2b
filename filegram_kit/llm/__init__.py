"""LLM and embedding backends behind typed tasks, and the response cache that makes reruns free."""

from .base import Backend, get_backend, register_backend
from .tasks import PROMPT_VERSION, TASKS, ParseError

__all__ = ["Backend", "PROMPT_VERSION", "ParseError", "TASKS", "get_backend", "register_backend"]
