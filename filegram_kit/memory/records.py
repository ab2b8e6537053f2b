"""What the baselines share: sessions as numbered actions with their event ids, memory records that keep
their source events, windows, and counted parse failures.

    windows = action_windows(sessions, size=30, overlap=3)     # [(session label, texts, event ids), ...]
    record = Record("The user re-reads files", cite(ids, [0, 4]), session="T-05", kind="reading")

A model's reply that does not parse (`ParseError`) costs one window, never the memory: `attempt` counts
it on the memory (`parse_failures_`) and the window contributes nothing, as the release's adapters
fall back when their LLM reply is unusable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..llm.tasks import ParseError
from ..traces.schema import Trajectory
from .base import by_identity
from .serialize import event_lines, session_labels

T = TypeVar("T")


@dataclass(frozen=True)
class SessionActions:
    label: str  # the task id (never the persona)
    texts: tuple[str, ...]  # one serialised action per event, content inlined
    event_ids: tuple[str, ...]
    trajectory: Trajectory | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Record:
    """One stored memory item: its text, the events it came from, and what kind of item it is."""

    text: str
    sources: tuple[str, ...]
    session: str = ""
    kind: str = ""
    confidence: float | None = None

    def line(self) -> str:
        tags = ", ".join(filter(None, [self.session and f"session {self.session}", self.kind,
                                       None if self.confidence is None else f"confidence {self.confidence:.2f}"]))
        return f"- {self.text}" + (f" [{tags}]" if tags else "")


@by_identity
def _serialised(traj: Trajectory) -> dict[int, list[tuple[str, str]]]:
    """A trajectory's event_lines per max_content_chars, kept while the trajectory lives (a benchmark ingests
    the same cleaned trajectory objects into thousands of memories)."""
    return {}


def session_actions(trajs: Sequence[Trajectory], *, max_content_chars: int = -1) -> list[SessionActions]:
    """Each cleaned session as its serialised actions and their event ids, labelled by task id."""
    out = []
    for traj, label in zip(trajs, session_labels(trajs), strict=True):
        memo = _serialised(traj)
        if max_content_chars not in memo:
            memo[max_content_chars] = event_lines(traj, max_content_chars=max_content_chars)
        lines = memo[max_content_chars]
        out.append(SessionActions(label, tuple(t for t, _ in lines), tuple(e for _, e in lines), traj))
    return out


def windows(n: int, size: int, overlap: int = 0) -> list[tuple[int, int]]:
    """(start, end) spans of `size` items stepping by size - overlap, covering 0..n (the last may be short)."""
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"window size must be >= 1 and overlap in [0, size), got {size} and {overlap}")
    spans, start = [], 0
    while start < n:
        spans.append((start, min(start + size, n)))
        if start + size >= n:
            break
        start += size - overlap
    return spans


def char_batches(texts: Sequence[str], max_chars: int) -> list[tuple[int, int]]:
    """(start, end) spans of consecutive texts whose joined length stays within max_chars (one text at least)."""
    spans, start, used = [], 0, 0
    for k, text in enumerate(texts):
        if k > start and used + len(text) + 1 > max_chars:
            spans.append((start, k))
            start, used = k, 0
        used += len(text) + 1
    if start < len(texts):
        spans.append((start, len(texts)))
    return spans


def cite(event_ids: Sequence[str], sources: Iterable[int] | None) -> tuple[str, ...]:
    """The event ids a record cites by index into its window; the whole window when it cites none."""
    picked = [event_ids[i] for i in (sources or ()) if 0 <= int(i) < len(event_ids)]
    return tuple(dict.fromkeys(picked)) if picked else tuple(event_ids)


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """|A & B| / min(|A|, |B|): the word overlap the release's adapters merge by (0 when either is empty)."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def attempt(memory: Any, fn: Callable[[], T], default: T) -> T:
    """fn(), or default when the model's reply does not parse (counted on memory.parse_failures_)."""
    try:
        return fn()
    except ParseError:
        memory.parse_failures_ = getattr(memory, "parse_failures_", 0) + 1
        return default


def check_positive(method: str, **values: Any) -> None:
    """A clear error for a parameter that must be a positive int."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{method}: {name} must be an int >= 1, got {value!r}")
