"""MMA (Multimodal Memory Agent, arXiv 2602.16493), as the release's adapter builds it: 20-event chunks, each
given a reliability score, retrieved by cosine and reranked by similarity and reliability. No LLM at ingest.

    get_memory("mma", chunk_events=20, k=8)

Reliability (confidence) of a chunk = 0.4 source + 0.3 recency + 0.3 agreement:
- source: the credibility of the chunk's dominant kind of event: file operations 0.95 (or 0.85 when
  the chunk is mostly writes and edits that carry content), searches 0.80, structural actions
  (listings, folders, moves, renames) 0.75;
- recency: 0.5 ** (age / 200), age = how many chunks were stored after this one;
- agreement: consensus of its nearest neighbours (up to 5 with cosine > 0.3), in two passes: the first
  is their mean cosine, the second weights each neighbour's cosine by its first-pass confidence.
`retrieve` takes the 3k chunks nearest the query and returns the k best by 0.6 cosine + 0.4 confidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from ..traces.schema import Trajectory
from ..util.float_ties import ranked
from .base import Context, MemorySystem
from .rag import Chunk, embed_documents, event_chunks, nearest
from .records import check_positive
from .serialize import prepare, serialize_sessions
from .stages import metered_ingest

if TYPE_CHECKING:
    from ..llm.base import Backend

WEIGHTS = (0.4, 0.3, 0.3)  # source, recency, agreement
RERANK = (0.6, 0.4)  # similarity, confidence
HALF_LIFE = 200  # chunks
NEIGHBOURS, AGREE_COSINE = 5, 0.3
CONTENT_DETAIL, FILE_OPERATION, SEARCH_PATTERN, STRUCTURAL = 0.85, 0.95, 0.80, 0.75
_KIND = {"file_read": "file", "file_write": "write", "file_edit": "write", "file_search": "search",
         "file_browse": "structural", "dir_create": "structural", "file_move": "structural",
         "file_rename": "structural", "file_copy": "file", "file_delete": "file"}


def source_score(event_types: list[str]) -> float:
    """The credibility of a chunk's dominant kind of event (writes with content count as content detail)."""
    kinds = Counter(_KIND.get(t, "file") for t in event_types)
    kind = max(kinds, key=lambda k: (kinds[k], k)) if kinds else "file"
    return {"write": CONTENT_DETAIL, "search": SEARCH_PATTERN, "structural": STRUCTURAL}.get(kind, FILE_OPERATION)


def agreement(embeddings: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Per row: mean cosine of its (up to NEIGHBOURS) nearest other rows above AGREE_COSINE, each weighted
    by `weights` (a first-pass confidence) when given; 0 when no row is that close."""
    n = len(embeddings)
    sims = embeddings @ embeddings.T if n else np.zeros((0, 0))
    out = np.zeros(n)
    for i in range(n):
        row = sims[i].copy()
        row[i] = -np.inf
        near = [j for j in ranked(row)[:NEIGHBOURS] if row[j] > AGREE_COSINE]
        if near:
            w = np.ones(len(near)) if weights is None else weights[near]
            out[i] = float(np.sum(row[near] * w) / len(near))
    return out


def confidences(sources: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    ages = np.arange(len(sources))[::-1]
    recency = 0.5 ** (ages / HALF_LIFE)
    first = WEIGHTS[0] * sources + WEIGHTS[1] * recency + WEIGHTS[2] * agreement(embeddings)
    return WEIGHTS[0] * sources + WEIGHTS[1] * recency + WEIGHTS[2] * agreement(embeddings, first)


class MMA(MemorySystem):
    """Parameters: chunk_events (events per chunk), k (chunks returned), candidates (multiple of k
    retrieved by cosine before the rerank)."""

    name = "mma"

    def __init__(self, *, chunk_events: int = 20, k: int = 8, candidates: int = 3):
        check_positive(self.name, chunk_events=chunk_events, k=k, candidates=candidates)
        self.chunk_events, self.k, self.candidates = chunk_events, k, candidates
        super().__init__(chunk_events=chunk_events, k=k, candidates=candidates)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> MMA:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            types = {e.event_id: e.event_type for t in cleaned for e in t.events}
            sessions = serialize_sessions(cleaned)
            self.chunks_: list[Chunk] = [c for s in sessions for c in event_chunks(s, self.chunk_events)]
            self.embeddings_ = embed_documents(backend, [c.text for c in self.chunks_])
            sources = np.array([source_score([types[e] for e in c.event_ids]) for c in self.chunks_])
            self.confidence_ = np.round(confidences(sources, self.embeddings_), 6) if self.chunks_ else sources
        self.ingested_ = True
        return self

    def rank(self, query: str, *, backend: Backend) -> list[tuple[int, float, float]]:
        """(chunk, cosine, rerank score) of the k chunks returned, best first (ties: earlier chunk)."""
        self._check_ingested()
        if not self.chunks_:
            return []
        with backend.phase("query"):
            vector = backend.embed([query], input_type="query")[0]
        pool = nearest(self.embeddings_, vector, self.candidates * self.k)
        scored = [(i, s, RERANK[0] * s + RERANK[1] * float(self.confidence_[i])) for i, s in pool]
        by_chunk = sorted(scored)  # so ties in the rerank score go to the earlier chunk
        return [by_chunk[n] for n in ranked([s[2] for s in by_chunk])[:self.k]]

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        ranked = self.rank(query, backend=backend)
        blocks = {f"{n}. {self.chunks_[i].title} (confidence {self.confidence_[i]:.2f})": self.chunks_[i].text
                  for n, (i, _, _) in enumerate(ranked, start=1)}
        return Context.from_blocks(blocks, [e for i, _, _ in ranked for e in self.chunks_[i].event_ids])

    def memory_text(self) -> str:
        self._check_ingested()
        return Context.from_blocks({f"{c.title} (confidence {self.confidence_[i]:.2f})": c.text
                                    for i, c in enumerate(self.chunks_)}).text
