"""Retries with exponential backoff for provider calls: rate limits and server errors pass, bad keys do not.

Provider backends classify their SDK's exceptions with `status_of(exc)` (HTTP status or None) and
call `call_with_retries(fn)`. 429 and 5xx (and timeouts / dropped connections) are retried with
exponential backoff and jitter from a seeded generator; 401/403 become `AuthError` at once, with
a message naming the environment variable to set; other 4xx fail at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ProviderError(RuntimeError):
    """A provider call that failed for good (after retries, or at once for a client error)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status

    def __reduce__(self):  # keeps the status across a process pool
        return type(self), (str(self), self.status)


class AuthError(ProviderError):
    """A missing, wrong or unauthorised API key."""


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an SDK exception carries, under the names the SDKs use (None when there is none)."""
    for attr in ("status_code", "code", "status", "http_status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def is_transient(exc: BaseException) -> bool:
    """Worth another try: rate limits, server errors, timeouts and dropped connections."""
    status = status_of(exc)
    if status is not None:
        return status in RETRY_STATUSES
    name = type(exc).__name__.lower()
    return isinstance(exc, TimeoutError | ConnectionError) or "timeout" in name or "connection" in name


def is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or "timeout" in type(exc).__name__.lower()


def call_with_retries(fn: Callable[[], T], *, what: str, key_hint: str = "", retries: int = 4,
                      base_delay: float = 1.0, max_delay: float = 30.0, seed: int = 0,
                      sleep: Callable[[float], None] = time.sleep, retry_timeouts: bool = True) -> T:
    """fn() with up to `retries` retries of transient failures; raises ProviderError / AuthError. Every attempt
    first waits for its slot of the shared request rate (FILEGRAM_RPM, `ratelimit.shared_limiter`).
    retry_timeouts=False: a timed-out call fails at once (a server that serves one request at a time still
    works on the abandoned one, so a retry would only queue behind it)."""
    from ..util.ratelimit import shared_limiter

    jitter, limiter = random.Random(seed), shared_limiter()
    for attempt in range(retries + 1):
        if limiter is not None:
            limiter.acquire()
        try:
            return fn()
        except Exception as exc:
            status = status_of(exc)
            if status in (401, 403):
                hint = f"; set {key_hint}" if key_hint else ""
                raise AuthError(f"{what}: the provider refused the API key (HTTP {status}){hint}", status) from exc
            if not is_transient(exc) or attempt == retries or (is_timeout(exc) and not retry_timeouts):
                tries = f" after {attempt + 1} attempts" if attempt else ""
                raise ProviderError(f"{what} failed{tries}: {type(exc).__name__}: {exc}", status) from exc
            sleep(min(max_delay, base_delay * 2 ** attempt) * (0.5 + jitter.random()))
    raise AssertionError("unreachable")
