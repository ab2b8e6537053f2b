"""Per-session work shared between memories, and what an ingest cost.

A benchmark builds thousands of memories from overlapping sessions (2,831 input sets over 640
sessions per item seed), so work that depends on one session alone (its summary, the facts of
its batches, its triples) is computed once per process and remembered:

    entries = session_stage("simplemem.windows", traj, backend, {"window": 30}, lambda: extract(traj))
    cells = in_session(session_stage("memos.cells", ...), session.label)   # records that name their session

The key is the stage's name and parameters, the backend's identity and a digest of the session's
events (ids, types, times, fields) and of its media manifest (`events_digest`), never the trajectory id
alone: a text and a multimodal session hold the same events and differ only in the media they read. A
remembered value also remembers the backend calls computing it made, and replays them into the open meters
(`Backend.metered`), so a memory's ingest cost is that of a fresh build whatever the memo held:
the same rows whichever process or order built it.

`metered_ingest(memory, backend)` wraps an ingest: the ingest phase, the meter, the seconds; the
memory's `ingest_cost_` is then {calls, cached, input_tokens, output_tokens, est_input_tokens,
est_output_tokens, seconds}.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from ..llm.base import CallCost
from ..traces.schema import Trajectory
from .base import by_identity

if TYPE_CHECKING:
    from ..llm.base import Backend

T = TypeVar("T")
STAGE_MEMO_SIZE = 8192  # remembered (stage, session) values per process, least recently used dropped
_memo: OrderedDict[str, tuple[Any, dict[str, int], int]] = OrderedDict()
_lock = threading.Lock()


@by_identity
def events_digest(traj: Trajectory) -> str:
    """sha256 of a session's task id, events (ids, types, times, fields) and the manifest of the media its contents
    are read through: what session-level work depends on. The same session in the text and the multimodal setting
    has the same events but other media (the rendered files' parsed text), so the events alone served whichever
    setting a process encoded first to both."""
    digest = hashlib.sha256(str(traj.task_id).encode())
    for e in traj.events:
        digest.update(json.dumps([e.event_id, e.event_type, e.timestamp, e.fields], sort_keys=True,
                                 default=str).encode())
    if traj.media is not None:
        digest.update(json.dumps(traj.media.entries, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def stage_key(stage: str, traj: Trajectory, backend: Backend, params: Mapping[str, Any]) -> str:
    return json.dumps([stage, dict(params), backend.params(), events_digest(traj)], sort_keys=True, default=str)


def session_stage(stage: str, traj: Trajectory, backend: Backend, params: Mapping[str, Any],
                  compute: Callable[[], Any], *, memory: Any = None) -> Any:
    """compute(), or its remembered value for this (stage, params, backend, session); the calls are replayed,
    and so are the replies that did not parse (counted on `memory.parse_failures_`, records.attempt)."""
    key = stage_key(stage, traj, backend, params)
    with _lock:
        hit = _memo.get(key)
        if hit is not None:
            _memo.move_to_end(key)
    if hit is not None:
        if hasattr(backend, "replay"):
            backend.replay(hit[1])
        if memory is not None:
            memory.parse_failures_ = getattr(memory, "parse_failures_", 0) + hit[2]
        return hit[0]
    failures = getattr(memory, "parse_failures_", 0)
    with _metered(backend) as cost:  # the outer meters count these calls too
        value = compute()
    with _lock:
        _memo[key] = (value, cost.as_dict(), getattr(memory, "parse_failures_", 0) - failures)
        while len(_memo) > STAGE_MEMO_SIZE:
            _memo.popitem(last=False)
    return value


def in_session(records: list[T], label: str) -> list[T]:
    """A remembered stage's records under this input set's label for their session. The memo keys on the
    session's events, not on the label the harness gave it this time ("Session 3" here, "Session 5" in the
    next input set), so a stage whose records name their session (a `session` field) passes them through
    this on the way out; the label they were computed with would otherwise depend on which input set a
    worker happened to ingest first."""
    return [r if r.session == label else replace(r, session=label) for r in records]


def clear_stages() -> None:
    """Forget every remembered stage (tests; a notebook that changed an algorithm in place)."""
    with _lock:
        _memo.clear()


def _metered(backend: Backend) -> Any:
    """backend.metered(), or a meter nothing adds to for a duck-typed backend without one (test doubles)."""
    return backend.metered() if hasattr(backend, "metered") else contextlib.nullcontext(CallCost())


@contextlib.contextmanager
def metered_ingest(memory: Any, backend: Backend) -> Iterator[None]:
    """The ingest phase with its cost measured: sets `memory.ingest_cost_` when the block ends."""
    start = time.perf_counter()
    with backend.phase("ingest"), _metered(backend) as cost:
        yield
    memory.ingest_cost_ = {**cost.as_dict(), "seconds": round(time.perf_counter() - start, 6)}
