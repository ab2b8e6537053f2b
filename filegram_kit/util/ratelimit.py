"""One request-rate limit for every worker that calls a provider: threads, processes, Ray tasks.

    FILEGRAM_RPM=60                       at most 60 provider requests a minute, all workers together
    FILEGRAM_LIMITER=/path/to/state       processes of one machine share this file (default: under the cache)
    FILEGRAM_LIMITER=ray:NAME             Ray workers share the named actor (set by the Ray executor)

Requests are spaced evenly (a leaky bucket): each `acquire()` reserves the next free slot, at least
60/rpm seconds after the one before, and sleeps until it. The reservation is made under one lock (a
file lock, or the actor's single thread), so two workers never get the same slot and none is skipped.
`call_with_retries` acquires before every attempt, so retries are paced too. No FILEGRAM_RPM: no limit.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Protocol


class Limiter(Protocol):
    def reserve(self) -> float:
        """Seconds until this caller's slot (0 when it is now)."""

    def acquire(self) -> float:
        """Wait for this caller's slot; returns the seconds waited."""


def _next_slot(last: float | None, now: float, interval: float) -> float:
    return now if last is None else max(now, last + interval)


class FileLimiter:
    """Slots shared through a small JSON file under an exclusive lock (one machine, any number of processes)."""

    def __init__(self, path: str | Path, rpm: float, *, clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], None] = time.sleep):
        if rpm <= 0:
            raise ValueError(f"requests per minute must be positive, got {rpm!r}")
        self.path, self.interval, self.clock, self.sleep = Path(path), 60.0 / rpm, clock, sleep
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def reserve(self) -> float:
        with open(self.path, "a+", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            handle.seek(0)
            try:
                last = json.loads(handle.read() or "{}").get("last")
            except ValueError:  # a torn or foreign file: start afresh rather than stop every worker
                last = None
            now = self.clock()
            slot = _next_slot(last, now, self.interval)
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"last": slot}))
            handle.flush()
        return max(0.0, slot - now)

    def acquire(self) -> float:
        wait = self.reserve()
        if wait > 0:
            self.sleep(wait)
        return wait


class SlotKeeper:
    """The slots of a Ray cluster: run as one named actor, so its reservations are made one at a time."""

    def __init__(self, rpm: float):
        self.interval, self.last = 60.0 / rpm, None

    def reserve(self) -> float:
        now = time.time()
        self.last = _next_slot(self.last, now, self.interval)
        return max(0.0, self.last - now)


class RayLimiter:
    """A worker's view of the cluster's `SlotKeeper` actor."""

    def __init__(self, name: str, sleep: Callable[[float], None] = time.sleep):
        import ray

        self._ray, self._actor, self.sleep = ray, ray.get_actor(name), sleep

    def reserve(self) -> float:
        return float(self._ray.get(self._actor.reserve.remote()))

    def acquire(self) -> float:
        wait = self.reserve()
        if wait > 0:
            self.sleep(wait)
        return wait


def start_ray_limiter(name: str, rpm: float) -> Any:
    """Create (or find) the cluster's named slot-keeping actor; the driver keeps the handle alive."""
    import ray

    keeper = ray.remote(num_cpus=0)(SlotKeeper)
    return keeper.options(name=name, get_if_exists=True).remote(rpm)


@cache
def _shared(rpm: float, where: str) -> Limiter:
    if where.startswith("ray:"):
        return RayLimiter(where.removeprefix("ray:"))
    return FileLimiter(where, rpm)


def shared_limiter() -> Limiter | None:
    """This process' limiter, from FILEGRAM_RPM and FILEGRAM_LIMITER (module docstring); None: no limit."""
    rpm = os.environ.get("FILEGRAM_RPM", "").strip()
    if not rpm:
        return None
    try:
        value = float(rpm)
    except ValueError:
        raise ValueError(f"FILEGRAM_RPM must be a number of requests per minute, got {rpm!r}") from None
    if value <= 0:
        raise ValueError(f"FILEGRAM_RPM must be positive, got {rpm!r}")
    where = os.environ.get("FILEGRAM_LIMITER") or str(_default_state())
    return _shared(value, where)


def _default_state() -> Path:
    from .paths import cache_dir

    return Path(cache_dir()) / "ratelimit.json"
