"""Retries: transient provider failures pass after backoff, key problems fail at once with a hint."""

from __future__ import annotations

import pytest

from filegram_kit.llm.retry import AuthError, ProviderError, call_with_retries, is_transient, status_of


class HttpError(Exception):
    def __init__(self, status_code: int):
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


def flaky(failures: list[BaseException], value="ok"):
    calls = []

    def fn():
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return value

    return fn, calls


def test_rate_limits_and_server_errors_are_retried_with_growing_waits():
    waits: list[float] = []
    fn, calls = flaky([HttpError(429), HttpError(503), TimeoutError("slow")])
    assert call_with_retries(fn, what="gemini", sleep=waits.append, base_delay=1.0) == "ok"
    assert len(calls) == 4 and len(waits) == 3
    assert waits[0] < 1.5 and 1.0 <= waits[1] < 3.0 and 2.0 <= waits[2] < 6.0  # 2^k backoff with 0.5-1.5 jitter


def test_giving_up_after_the_last_retry_names_the_attempts():
    fn, calls = flaky([HttpError(500)] * 10)
    with pytest.raises(ProviderError, match="after 3 attempts") as info:
        call_with_retries(fn, what="cohere embed", retries=2, sleep=lambda s: None)
    assert info.value.status == 500 and len(calls) == 3


def test_bad_keys_fail_at_once_with_the_variable_to_set():
    fn, calls = flaky([HttpError(401)])
    with pytest.raises(AuthError, match="GEMINI_API_KEY"):
        call_with_retries(fn, what="gemini", key_hint="GEMINI_API_KEY", sleep=lambda s: None)
    assert len(calls) == 1


def test_other_client_errors_are_not_retried():
    fn, calls = flaky([HttpError(400)])
    with pytest.raises(ProviderError, match="HttpError"):
        call_with_retries(fn, what="openai", sleep=lambda s: None)
    assert len(calls) == 1


def test_status_is_read_from_the_names_sdks_use():
    class WithResponse(Exception):
        response = type("R", (), {"status_code": 502})()

    assert status_of(WithResponse()) == 502 and is_transient(WithResponse())
    assert status_of(ValueError("x")) is None and not is_transient(ValueError("x"))
    assert is_transient(ConnectionResetError())
