"""EverMemOS, as the release's adapter builds it: sessions cut into MemCells by a boundary detector, each cell
narrated as an episode and read for profile traits; episodes clustered, traits consolidated per dimension.

    get_memory("evermemos", check_every=5, force_at=30, cluster_cosine=0.7)

Per session (these stages depend on the session alone, so they run once per process, stages.py):
- Stage 0, MemCells: every `check_every` events, `detect_boundary(cell so far, next events)` (each
  action cut to 200 characters); the cell ends when the detector says so with confidence >= 0.6,
  and always once it holds `force_at` events.
- Stage 1a: `narrate_episode` per cell (title, narrative, summary; actions cut to 300 characters).
- Stage 1b: two `extract_traits` calls per cell, one per half of the dimension list (TRAIT_PARTS),
  each trait {dimension, pattern, evidence} citing its actions.
Per memory:
- Stage 2: episodes clustered in order: an episode joins the cluster whose (re-normalised, running)
  centroid it is nearest to if the cosine is >= `cluster_cosine`, else starts a new cluster.
- Stage 3: per dimension, traits grouped by word overlap > 0.4 (|A & B| / min); the largest group's
  pattern wins (confidence high: >= 3 supporting traits, medium: 2, low: 1); the other groups are kept
  as contradictions.
`retrieve` shows everything (no query-time retrieval): clusters of episodes, patterns, contradictions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..llm.algorithms.text import content_terms
from ..traces.schema import Trajectory
from ..util.float_ties import first_best
from .base import Context, MemorySystem
from .rag import embed_documents
from .records import attempt, check_positive, cite, overlap, session_actions
from .serialize import prepare
from .stages import in_session, metered_ingest, session_stage

if TYPE_CHECKING:
    from ..llm.base import Backend

TRAIT_PARTS = (("consumption", "production", "organisation", "iteration"),
               ("work rhythm/curation", "cross-modal", "naming", "versioning"))
BOUNDARY_CHARS, EPISODE_CHARS = 200, 300
MIN_CONFIDENCE = 0.6
MERGE_OVERLAP = 0.4


@dataclass(frozen=True)
class MemCell:
    session: str
    event_ids: tuple[str, ...]
    title: str
    narrative: str
    summary: str
    traits: tuple[dict, ...]  # {dimension, pattern, evidence, sources (event ids)}
    forced: bool  # cut at force_at events, not by the detector


def cut(texts: list[str], limit: int) -> list[str]:
    return [t if len(t) <= limit else t[:limit] + " ..." for t in texts]


def confidence_label(support: int) -> str:
    return "high" if support >= 3 else "medium" if support == 2 else "low"


class EverMemOS(MemorySystem):
    """Parameters: check_every, force_at (events), min_confidence (boundary), cluster_cosine, merge_overlap."""

    name = "evermemos"

    def __init__(self, *, check_every: int = 5, force_at: int = 30, min_confidence: float = MIN_CONFIDENCE,
                 cluster_cosine: float = 0.7, merge_overlap: float = MERGE_OVERLAP):
        check_positive(self.name, check_every=check_every, force_at=force_at)
        self.check_every, self.force_at, self.min_confidence = check_every, force_at, float(min_confidence)
        self.cluster_cosine, self.merge_overlap = float(cluster_cosine), float(merge_overlap)
        super().__init__(check_every=check_every, force_at=force_at, min_confidence=self.min_confidence,
                         cluster_cosine=self.cluster_cosine, merge_overlap=self.merge_overlap)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> EverMemOS:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            self.parse_failures_ = 0
            self.cells_ = [c for s in session_actions(cleaned) for c in self._session_cells(s, backend)]
            self.clusters_ = self._cluster(backend)
            self.patterns_ = self._consolidate()
        self.ingested_ = True
        return self

    # -- per session -------------------------------------------------------------------------------------
    def spans(self, texts: list[str], backend: Backend) -> list[tuple[int, int, bool]]:
        """Stage 0: (start, end, forced) of each MemCell of one session."""
        spans, start = [], 0
        for k in range(self.check_every, len(texts), self.check_every):
            new = texts[k:k + self.check_every]
            if k - start >= self.force_at:  # never more than force_at events in a cell
                spans.append((start, start + self.force_at, True))
                start += self.force_at
                continue
            verdict = attempt(self, lambda k=k, new=new, s=start: backend.detect_boundary(
                cut(texts[s:k], BOUNDARY_CHARS), cut(new, BOUNDARY_CHARS)), {"should_end": False, "confidence": 0.0})
            if verdict["should_end"] and verdict["confidence"] >= self.min_confidence:
                spans.append((start, k, False))
                start = k
        while len(texts) - start > self.force_at:
            spans.append((start, start + self.force_at, True))
            start += self.force_at
        if start < len(texts):
            spans.append((start, len(texts), len(texts) - start == self.force_at))
        return spans

    def _session_cells(self, session: Any, backend: Backend) -> list[MemCell]:
        def compute() -> list[MemCell]:
            texts, out = list(session.texts), []
            for start, end, forced in self.spans(texts, backend):
                items, ids = cut(texts[start:end], EPISODE_CHARS), session.event_ids[start:end]
                episode = attempt(self, lambda items=items: backend.narrate_episode(items), None)
                traits = [{"dimension": str(t["dimension"]), "pattern": str(t["pattern"]).strip(),
                           "evidence": str(t.get("evidence", "")), "sources": cite(ids, t.get("sources"))}
                          for part in TRAIT_PARTS
                          for t in attempt(self, lambda items=items, part=part: backend.extract_traits(
                              items, list(part)), [])]
                out.append(MemCell(session.label, ids, episode.title if episode else "(untitled)",
                                   episode.narrative if episode else "", episode.summary if episode else "",
                                   tuple(traits), forced))
            return out
        params = {k: v for k, v in self.params().items() if k in ("check_every", "force_at", "min_confidence")}
        return in_session(session_stage("evermemos.cells", session.trajectory, backend, params, compute,
                                        memory=self), session.label)

    # -- per memory --------------------------------------------------------------------------------------
    def _cluster(self, backend: Backend) -> list[list[int]]:
        """Stage 2: cells grouped by incremental centroids (cosine >= cluster_cosine)."""
        vectors = embed_documents(backend, [f"{c.title}. {c.narrative}" for c in self.cells_])
        clusters: list[list[int]] = []
        centroids: list[np.ndarray] = []
        for k, vector in enumerate(vectors[:len(self.cells_)]):
            sims = [float(c @ vector) for c in centroids]
            best = first_best(sims) if sims else -1
            if best >= 0 and sims[best] >= self.cluster_cosine:
                clusters[best].append(k)
                mean = vectors[clusters[best]].mean(axis=0)
                centroids[best] = mean / (np.linalg.norm(mean) or 1.0)
            else:
                clusters.append([k])
                centroids.append(vector)
        return clusters

    def _consolidate(self) -> dict[str, dict[str, Any]]:
        """Stage 3: per dimension, the winning pattern, its support and the contradicting patterns."""
        by_dimension: dict[str, list[dict]] = {}
        for cell in self.cells_:
            for trait in cell.traits:
                by_dimension.setdefault(trait["dimension"], []).append(trait)
        out = {}
        for dimension, traits in by_dimension.items():
            groups: list[list[dict]] = []
            for trait in traits:
                words = frozenset(content_terms(trait["pattern"]))
                home = next((g for g in groups if overlap(frozenset(content_terms(g[0]["pattern"])), words)
                             > self.merge_overlap), None)
                home.append(trait) if home is not None else groups.append([trait])
            groups.sort(key=len, reverse=True)  # stable: the earliest of equal groups wins
            out[dimension] = {"pattern": groups[0][0]["pattern"], "support": len(groups[0]),
                              "confidence": confidence_label(len(groups[0])),
                              "sources": tuple(dict.fromkeys(s for t in groups[0] for s in t["sources"])),
                              "contradictions": [g[0]["pattern"] for g in groups[1:]]}
        return out

    def _context(self) -> Context:
        episodes = "\n\n".join(f"Cluster {n} ({len(ks)} episodes)\n" + "\n".join(
            f"- {self.cells_[k].title} [session {self.cells_[k].session}]: {self.cells_[k].narrative}" for k in ks)
            for n, ks in enumerate(self.clusters_, start=1))
        patterns = "\n".join(f"- {d}: {p['pattern']} (confidence {p['confidence']}, {p['support']} supporting)"
                             for d, p in self.patterns_.items())
        conflicts = "\n".join(f"- {d}: also seen: {'; '.join(p['contradictions'][:3])}"
                              for d, p in self.patterns_.items() if p["contradictions"])
        sources = [e for c in self.cells_ for e in c.event_ids]
        return Context.from_blocks({"Episodes": episodes, "Behavioural patterns": patterns,
                                    "Contradictions resolved": conflicts}, sources)

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        self._check_ingested()
        return self._context()

    def memory_text(self) -> str:
        self._check_ingested()
        return self._context().text
