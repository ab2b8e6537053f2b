"""Naive RAG: the sessions' serialisation (serialize.py) cut into chunks, embedded, top-k by cosine.

    get_memory("naive_rag", chunking="events:20", top_k=5)     the release code: 20 events per chunk
    get_memory("naive_rag", chunking="tokens:512/64", top_k=5) the paper's text: 512-token windows, overlap 64

Chunks never cross a session. `events:N` groups N consecutive events (each with its inlined
content). `tokens:W/O` slides windows over each session's serialisation, header included; tokens
are the project's estimate (`filegram_kit.util.tokens`, 4 characters per token), so windows are
W*4 characters stepping by (W-O)*4: consecutive windows share O*4 characters. Chinese text is
about one token per character, so its windows hold up to ~4x the estimated tokens. A chunk cites
the events whose text it overlaps. Sessions without events give no chunks.

Ingest embeds every chunk (`input_type="document"`, batches of EMBED_BATCH); a query is embedded
with `input_type="query"` and the top_k chunks by cosine are returned best first (ties: earlier
chunk first), each headed by its session label and span.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..traces.schema import Trajectory
from ..util.float_ties import ranked
from ..util.tokens import CHARS_PER_TOKEN
from .base import Context, MemorySystem
from .serialize import Session, check_content_chars, prepare, serialize_sessions, session_name
from .stages import metered_ingest

if TYPE_CHECKING:
    from ..llm.base import Backend

EMBED_BATCH = 64  # chunks per embed call (one cache entry each)
_EVENTS = re.compile(r"events:(\d+)")
_TOKENS = re.compile(r"tokens:(\d+)/(\d+)")


@dataclass(frozen=True)
class Chunk:
    session: str  # the session label (task id)
    span: str  # 'events 1-20' or 'chars 0-2048' within the session
    text: str
    event_ids: tuple[str, ...]

    @property
    def title(self) -> str:
        return f"{session_name(self.session)}, {self.span}"


def parse_chunking(spec: str) -> tuple[str, int, int]:
    """('events', n, 0) or ('tokens', window, overlap) from 'events:N' or 'tokens:W/O'."""
    text = spec if isinstance(spec, str) else ""
    if m := _EVENTS.fullmatch(text):
        if int(m[1]) >= 1:
            return "events", int(m[1]), 0
    elif m := _TOKENS.fullmatch(text):
        window, overlap = int(m[1]), int(m[2])
        if window >= 1 and overlap < window:
            return "tokens", window, overlap
    raise ValueError(f"naive_rag: chunking must be 'events:N' (N >= 1 events per chunk) or 'tokens:W/O' "
                     f"(W-token windows overlapping by O < W tokens), e.g. 'events:20' or 'tokens:512/64'; "
                     f"got {spec!r}")


def event_chunks(session: Session, size: int) -> list[Chunk]:
    """Groups of `size` consecutive events of one session."""
    out = []
    for first in range(0, len(session.spans), size):
        group = session.spans[first:first + size]
        text = session.text[group[0][0]:group[-1][1]]
        span = f"events {first + 1}-{first + len(group)}"
        out.append(Chunk(session.label, span, text, tuple(eid for _, _, eid in group)))
    return out


def window_chunks(session: Session, window: int, overlap: int) -> list[Chunk]:
    """Character windows of window*4 chars stepping by (window-overlap)*4 over one session's text."""
    if not session.spans:
        return []
    size, step = window * CHARS_PER_TOKEN, (window - overlap) * CHARS_PER_TOKEN
    out, start = [], 0
    while True:
        end = min(start + size, len(session.text))
        out.append(Chunk(session.label, f"chars {start}-{end}", session.text[start:end],
                         tuple(session.events_in(start, end))))
        if end >= len(session.text):
            return out
        start += step


def embed_documents(backend: Backend, texts: list[str]) -> np.ndarray:
    """(len(texts), d) document embeddings in batches of EMBED_BATCH (one cache entry each); (0, 1) for none."""
    parts = [backend.embed(texts[i:i + EMBED_BATCH], input_type="document") for i in range(0, len(texts), EMBED_BATCH)]
    return np.vstack(parts) if parts else np.zeros((0, 1), dtype=np.float32)


def nearest(embeddings: np.ndarray, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(row, cosine) of the k rows nearest the query vector, best first (ties: earlier row first)."""
    if not len(embeddings):
        return []
    scores = embeddings @ vector
    order = ranked(scores)[:k]
    return [(int(i), float(scores[i])) for i in order]


class NaiveRAG(MemorySystem):
    """Chunk, embed, top-k cosine. Parameters: chunking ('events:N' | 'tokens:W/O'), top_k,
    max_content_chars (truncation of each inlined write/diff; -1: never)."""

    name = "naive_rag"

    def __init__(self, *, chunking: str = "events:20", top_k: int = 5, max_content_chars: int = -1):
        self.mode, self.size, self.overlap = parse_chunking(chunking)
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"naive_rag: top_k must be an int >= 1, got {top_k!r}")
        self.chunking, self.top_k = chunking, top_k
        self.max_content_chars = check_content_chars(max_content_chars)
        super().__init__(chunking=chunking, top_k=top_k, max_content_chars=self.max_content_chars)

    def chunk(self, sessions: Iterable[Session]) -> list[Chunk]:
        if self.mode == "events":
            return [c for s in sessions for c in event_chunks(s, self.size)]
        return [c for s in sessions for c in window_chunks(s, self.size, self.overlap)]

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> NaiveRAG:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            self.chunks_ = self.chunk(serialize_sessions(cleaned, max_content_chars=self.max_content_chars))
            self.embeddings_ = embed_documents(backend, [c.text for c in self.chunks_])
        self.ingested_ = True
        return self

    def rank(self, query: str, *, backend: Backend) -> list[tuple[int, float]]:
        """(chunk index, cosine) of the top_k chunks for the query, best first."""
        self._check_ingested()
        if not self.chunks_:
            return []
        with backend.phase("query"):
            vector = backend.embed([query], input_type="query")[0]
        return nearest(self.embeddings_, vector, self.top_k)

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        chosen = [self.chunks_[i] for i, _ in self.rank(query, backend=backend)]
        return Context.from_blocks({f"{rank}. {c.title}": c.text for rank, c in enumerate(chosen, start=1)},
                                   [eid for c in chosen for eid in c.event_ids])

    def memory_text(self) -> str:
        """Every stored chunk, in session and chunk order, under its title."""
        self._check_ingested()
        return Context.from_blocks({c.title: c.text for c in self.chunks_}).text
