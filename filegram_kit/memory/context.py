"""The two context baselines that store no derived memory: No Context and Full Context.

    get_memory("no_context")                      the reader gets nothing (a floor; the release has no adapter)
    get_memory("full_context", max_chars=160_000) every session's serialisation (serialize.py), in trajectory
                                                  order, cut at max_chars as the release's Full Context does

Full Context keeps whole sessions until the budget; the session the budget ends in is cut at the
exact character (as the release cuts the concatenated narrative), and a marker line after the cut
says how many characters and sessions were left out. The same text is returned for every query.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..traces.schema import Trajectory
from .base import Context, MemorySystem
from .serialize import SESSION_SEPARATOR, Session, check_content_chars, prepare, serialize_sessions
from .stages import metered_ingest

if TYPE_CHECKING:
    from ..llm.base import Backend

FULL_CONTEXT_CHARS = 160_000  # the release's cut (~40K estimated tokens)


class NoContext(MemorySystem):
    """Stores nothing; every query gets an empty context. Ingest still runs the ground-truth guard."""

    name = "no_context"

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> NoContext:
        with metered_ingest(self, backend):
            self.user_, _ = prepare(trajs)
        self.ingested_ = True
        return self

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        self._check_ingested()
        return Context("")

    def memory_text(self) -> str:
        self._check_ingested()
        return ""


def cut_sessions(sessions: Sequence[Session], max_chars: int | None) -> tuple[str, list[str], int]:
    """(text, event ids with text before the cut, characters cut) of the sessions joined and cut at max_chars."""
    offsets, position = [], 0
    for session in sessions:
        offsets.append(position)
        position += len(session.text) + len(SESSION_SEPARATOR)
    full = SESSION_SEPARATOR.join(s.text for s in sessions)
    limit = len(full) if max_chars is None else min(max_chars, len(full))
    sources = [eid for session, start in zip(sessions, offsets, strict=True)
               for a, _, eid in session.spans if start + a < limit]
    if limit == len(full):
        return full, sources, 0
    cut = [s.label for s, start in zip(sessions, offsets, strict=True) if start < limit < start + len(s.text)]
    dropped = sum(start >= limit for start in offsets)
    what = ", ".join(filter(None, [f"session {cut[0]} cut" if cut else "",
                                   f"{dropped} more session{'s' * (dropped != 1)} left out" if dropped else ""]))
    marker = (f"[... full context cut at {limit:,} characters: {len(full) - limit:,} more characters not shown"
              f"{f' ({what})' if what else ''}]")
    return f"{full[:limit]}\n{marker}", sources, len(full) - limit


class FullContext(MemorySystem):
    """All cleaned sessions serialised in trajectory order and cut at `max_chars` (None: never cut);
    `max_content_chars` truncates each inlined write/diff (-1: never, the release's default)."""

    name = "full_context"

    def __init__(self, *, max_chars: int | None = FULL_CONTEXT_CHARS, max_content_chars: int = -1):
        if max_chars is not None and (isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1):
            raise ValueError(f"full_context: max_chars must be a positive int or None, got {max_chars!r}")
        self.max_chars, self.max_content_chars = max_chars, check_content_chars(max_content_chars)
        super().__init__(max_chars=max_chars, max_content_chars=self.max_content_chars)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> FullContext:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            sessions = serialize_sessions(cleaned, max_content_chars=self.max_content_chars)
            self.text_, self.sources_, self.cut_chars_ = cut_sessions(sessions, self.max_chars)
        self.sessions_ = len(sessions)
        self.ingested_ = True
        return self

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        self._check_ingested()
        return Context(self.text_, tuple(self.sources_), {"sessions": self.text_} if self.text_ else {})

    def memory_text(self) -> str:
        self._check_ingested()
        return self.text_
