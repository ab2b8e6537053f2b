"""Zep: a temporal knowledge graph of facts (the release's adapter, with Graphiti's edge invalidation).

    memory = get_memory("zep")                          the release: up to 200 facts and the graph's stats
    memory = get_memory("zep", search="hybrid")         Graphiti's search: BM25 + cosine over facts, fused by RRF
    memory.graph_                                       the networkx MultiDiGraph

Ingest, per session: its serialised actions in batches of up to 30,000 characters, one
`extract_triples` call per batch (10-20 triples: subject, RELATION, object, the behavioural pattern,
and whether the relation is a *state*, one object at a time, such as where a file is). Every triple
becomes an edge, valid from its session and time. Graphiti's resolution: the valid edges leaving the
same subject with the same relation are shown to `find_contradictions`; each one the new fact
contradicts gets `invalid_at` (the new fact's time) and stays in the graph, so the history is kept
(a file moved to final/ no longer LOCATED_IN drafts/, but the old edge says where it was until when).

`retrieve`, search="dump" (the paper's adapter): the graph's stats (nodes, edges, relations, the 10
nodes of highest degree) and up to `max_facts` facts, valid ones first, in insertion order. "hybrid":
the `max_facts` valid facts ranked by reciprocal-rank fusion (k=60) of BM25 and cosine with the query.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from ..llm.algorithms.bm25 import Bm25Index
from ..llm.algorithms.text import content_terms
from ..traces.schema import Trajectory
from ..util.float_ties import ranked
from .base import Context, MemorySystem
from .rag import embed_documents
from .records import attempt, char_batches, check_positive, cite, session_actions
from .serialize import prepare
from .stages import metered_ingest, session_stage

if TYPE_CHECKING:
    from ..llm.base import Backend

BATCH_CHARS = 30_000
MAX_FACTS = 200
RRF_K = 60
SEARCHES = ("dump", "hybrid")
CANDIDATES = 10  # most recent same-subject, same-relation valid edges shown to the contradiction check


def fact_text(edge: dict[str, Any]) -> str:
    pattern = f" {{pattern: {edge['pattern']}}}" if edge.get("pattern") else ""
    when = f" [valid {edge['valid_from']}" + (f" until {edge['invalid_at']}]" if edge.get("invalid_at") else "]")
    return f"({edge['subject']}) -[{edge['relation']}]-> ({edge['object']}){pattern}{when}"


class Zep(MemorySystem):
    """Parameters: batch_chars, min_triples/max_triples (per call), max_facts (shown per query), search
    ('dump' | 'hybrid')."""

    name = "zep"

    def __init__(self, *, batch_chars: int = BATCH_CHARS, min_triples: int = 10, max_triples: int = 20,
                 max_facts: int = MAX_FACTS, search: str = "dump"):
        check_positive(self.name, batch_chars=batch_chars, min_triples=min_triples, max_triples=max_triples,
                       max_facts=max_facts)
        if search not in SEARCHES:
            raise ValueError(f"zep: search must be one of {SEARCHES}, got {search!r}")
        self.batch_chars, self.min_triples, self.max_triples = batch_chars, min_triples, max_triples
        self.max_facts, self.search = max_facts, search
        super().__init__(batch_chars=batch_chars, min_triples=min_triples, max_triples=max_triples,
                         max_facts=max_facts, search=search)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> Zep:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            self.graph_, self.edges_, self.parse_failures_ = nx.MultiDiGraph(), [], 0
            by_key: dict[tuple[str, str], list[dict[str, Any]]] = {}  # (subject, relation) -> its edges, in order
            for session in session_actions(cleaned):
                for triple in self._triples(session, backend):
                    self._add(triple, session.label, backend, by_key)
            if self.search == "hybrid":
                self.embeddings_ = embed_documents(backend, [fact_text(e) for e in self.edges_])
        self.ingested_ = True
        return self

    def _triples(self, session: Any, backend: Backend) -> list[dict[str, Any]]:
        """The session's triples, each with the event ids it cites and its time (computed once per session)."""
        def compute() -> list[dict[str, Any]]:
            out = []
            for start, end in char_batches(session.texts, self.batch_chars):
                texts, ids = list(session.texts[start:end]), session.event_ids[start:end]
                for t in attempt(self, lambda texts=texts: backend.extract_triples(
                        texts, min_triples=self.min_triples, max_triples=self.max_triples), []):
                    first = min((int(i) for i in t.get("sources") or [0] if 0 <= int(i) < len(texts)), default=0)
                    out.append({**{k: str(t.get(k, "")).strip() for k in ("subject", "relation", "object", "pattern")},
                                "kind": "state" if t.get("kind") == "state" else "event",
                                "sources": list(cite(ids, t.get("sources"))), "at": texts[first].split("]", 1)[0][1:]})
            return out
        return session_stage("zep.triples", session.trajectory, backend,
                             {"batch_chars": self.batch_chars, "min": self.min_triples, "max": self.max_triples},
                             compute, memory=self)

    def _add(self, triple: dict[str, Any], session: str, backend: Backend,
             by_key: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
        """Add an edge; the latest still-valid edges of its subject and relation are the contradiction candidates
        (`by_key` lists the edges per (subject, relation), so the check does not rescan every edge)."""
        edge = {**triple, "valid_from": f"session {session} {triple['at']}", "invalid_at": None,
                "step": len(self.edges_)}
        same = by_key.setdefault((edge["subject"], edge["relation"]), [])
        candidates = [e for e in reversed(same) if e["invalid_at"] is None][:CANDIDATES]
        if candidates:
            shown = [{k: e[k] for k in ("subject", "relation", "object", "kind")} for e in candidates]
            fact = {k: edge[k] for k in ("subject", "relation", "object", "kind")}
            for k in attempt(self, lambda: backend.find_contradictions(fact, shown), []):
                candidates[k]["invalid_at"] = edge["valid_from"]
                self.graph_.edges[candidates[k]["subject"], candidates[k]["object"], candidates[k]["step"]][
                    "invalid_at"] = edge["valid_from"]
        self.edges_.append(edge)
        same.append(edge)
        self.graph_.add_edge(edge["subject"], edge["object"], key=edge["step"], **{k: v for k, v in edge.items()
                                                                                  if k not in ("subject", "object")})

    # -- query -------------------------------------------------------------------------------------------
    def stats(self) -> str:
        g = self.graph_
        degrees = sorted(g.degree, key=lambda nd: (-nd[1], str(nd[0])))[:10]
        relations = Counter(e["relation"] for e in self.edges_)
        invalid = sum(e["invalid_at"] is not None for e in self.edges_)
        return (f"{g.number_of_nodes()} nodes, {g.number_of_edges()} edges ({invalid} invalidated), "
                f"{len(relations)} relations: " + ", ".join(f"{r} {n}" for r, n in relations.most_common(10))
                + "\nMost connected: " + ", ".join(f"{n} ({d})" for n, d in degrees))

    def ranked(self, query: str, *, backend: Backend) -> list[dict[str, Any]]:
        """The facts shown for a query (see the module docstring)."""
        self._check_ingested()
        if self.search == "dump":
            return sorted(self.edges_, key=lambda e: (e["invalid_at"] is not None, e["step"]))[:self.max_facts]
        valid = [k for k, e in enumerate(self.edges_) if e["invalid_at"] is None]
        if not valid or not query.strip():
            return [self.edges_[k] for k in valid[:self.max_facts]]
        with backend.phase("query"):
            vector = backend.embed([query], input_type="query")[0]
        cosine = self.embeddings_[valid] @ vector
        lexical = Bm25Index.of_texts([fact_text(self.edges_[k]) for k in valid]).scores(content_terms(query))
        fused = np.zeros(len(valid))
        for scores in (cosine, np.asarray(lexical)):
            fused[ranked(scores)] += 1.0 / (RRF_K + np.arange(1, len(valid) + 1))
        order = ranked(fused)[:self.max_facts]
        return [self.edges_[valid[k]] for k in order]

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        facts = self.ranked(query, backend=backend)
        return Context.from_blocks({"Graph": self.stats(), "Facts": "\n".join(fact_text(e) for e in facts)},
                                   [s for e in facts for s in e["sources"]])

    def memory_text(self) -> str:
        self._check_ingested()
        return Context.from_blocks({"Graph": self.stats(), "Facts": "\n".join(fact_text(e) for e in self.edges_)}).text
