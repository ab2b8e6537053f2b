"""Mem0 (mem0ai 1.0.x, the version the paper pinned): facts extracted per batch of messages, each merged
into the store by an ADD / UPDATE / DELETE / NONE decision, every change logged in SQLite.

    memory = get_memory("mem0", batch=20, neighbours=5, search_limit=10)
    memory.history("3")      # every version memory 3 went through, oldest first

Ingest, per session, in batches of `batch` pseudo-chat messages (reads, searches and listings as the
user's, writes, edits and file operations as the assistant's, content cut at 1,000 characters, as the
release's adapter sends them):
1. `extract_user_facts(messages)`: the batch's facts (one call);
2. each fact is embedded and its `neighbours` nearest memories (cosine) are collected; their union is
   shown to the model under small integer ids (mem0 remaps UUIDs so the model cannot invent one);
3. `update_memory(facts, neighbours)`: one call returns an event per fact, applied in order:
   ADD a new memory, UPDATE one (new text, the old one kept in history), DELETE one, or NONE.
A memory keeps the event ids of every batch that added or updated it. `retrieve` embeds the query and
returns the `search_limit` nearest memories (mem0's `search(limit=10)`), with `min_score` optional.
The history table (`history_db`, default in memory) is append-only: rows are never updated or deleted, and
a file shared by several ingests keeps each one's rows under its own run number.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..llm.algorithms.observe import parse_action
from ..traces.schema import Trajectory
from .base import Context, MemorySystem
from .rag import embed_documents, nearest
from .records import attempt, check_positive, session_actions, windows
from .serialize import prepare
from .stages import metered_ingest, session_stage

if TYPE_CHECKING:
    from ..llm.base import Backend

USER_VERBS = ("read", "search", "browse")  # the rest are the assistant's messages
MESSAGE_CHARS = 1_000  # the release cuts written content to this in each message
HISTORY_SCHEMA = ("CREATE TABLE IF NOT EXISTS history (run INTEGER, step INTEGER, memory_id TEXT, old_memory TEXT, "
                  "new_memory TEXT, event TEXT, session TEXT)")


@dataclass
class Fact:
    text: str
    vector: np.ndarray
    sources: tuple[str, ...]
    session: str


def message(text: str) -> str:
    """One serialised action as a pseudo-chat message (role by verb)."""
    action = parse_action(0, text)
    return f"{'user' if action is not None and action.verb in USER_VERBS else 'assistant'}: {text}"


class Mem0(MemorySystem):
    """Parameters: batch (messages per add), neighbours (memories shown per fact), search_limit, min_score
    (None: no threshold), history_db (a SQLite path; ':memory:' by default)."""

    name = "mem0"

    def __init__(self, *, batch: int = 20, neighbours: int = 5, search_limit: int = 10, min_score: float | None = None,
                 history_db: str = ":memory:"):
        check_positive(self.name, batch=batch, neighbours=neighbours, search_limit=search_limit)
        self.batch, self.neighbours, self.search_limit = batch, neighbours, search_limit
        self.min_score, self.history_db = min_score, history_db
        super().__init__(batch=batch, neighbours=neighbours, search_limit=search_limit, min_score=min_score)

    # -- ingest ------------------------------------------------------------------------------------------
    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> Mem0:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            self.memories_: dict[str, Fact] = {}
            self.db_ = sqlite3.connect(self.history_db, check_same_thread=False)
            self.db_.execute(HISTORY_SCHEMA)  # a file shared by several ingests keeps every one's rows, by run
            self.run_ = self.db_.execute("SELECT COALESCE(MAX(run), 0) + 1 FROM history").fetchone()[0]
            self.next_id_, self.step_, self.parse_failures_ = 0, 0, 0
            for session in session_actions(cleaned, max_content_chars=MESSAGE_CHARS):
                for (start, end), facts in zip(windows(len(session.texts), self.batch),
                                               self._extract(session, backend), strict=True):
                    self._add(facts, session.event_ids[start:end], session.label, backend)
            self.db_.commit()
        self.ingested_ = True
        return self

    def _extract(self, session: Any, backend: Backend) -> list[list[str]]:
        """The facts of each batch of the session (a session's batches depend on it alone: computed once)."""
        def compute() -> list[list[str]]:
            return [attempt(self, lambda s=s, e=e: backend.extract_user_facts(
                [message(t) for t in session.texts[s:e]]), []) for s, e in windows(len(session.texts), self.batch)]
        return session_stage("mem0.facts", session.trajectory, backend, {"batch": self.batch}, compute,
                             memory=self)

    def _add(self, facts: list[str], sources: tuple[str, ...], session: str, backend: Backend) -> None:
        if not facts:
            return
        vectors = embed_documents(backend, facts)
        shown: list[str] = []  # real ids, in the order the model sees them as 0, 1, ...
        if self.memories_:
            ids = list(self.memories_)
            matrix = np.vstack([self.memories_[i].vector for i in ids])
            for vector in vectors:
                shown += [ids[k] for k, _ in nearest(matrix, vector, self.neighbours) if ids[k] not in shown]
        existing = [{"id": str(k), "text": self.memories_[real].text} for k, real in enumerate(shown)]
        events = attempt(self, lambda: backend.update_memory(facts, existing), [])
        by_text = dict(zip(facts, vectors, strict=True))
        for event in events:
            self._apply(event, shown, by_text, sources, session, backend)

    def _apply(self, event: dict, shown: list[str], vectors: dict[str, np.ndarray], sources: tuple[str, ...],
               session: str, backend: Backend) -> None:
        kind, text = event["event"], str(event.get("text", "")).strip()
        real = shown[int(event["id"])] if str(event["id"]).isdigit() and int(event["id"]) < len(shown) else None
        if kind == "ADD" and text or kind == "UPDATE" and text and real is None:  # an UPDATE of an unknown id adds
            real, self.next_id_ = str(self.next_id_), self.next_id_ + 1
            self.memories_[real] = Fact(text, self._vector(text, vectors, backend), sources, session)
            self._log(real, None, text, "ADD", session)
        elif kind == "UPDATE" and real in self.memories_ and text != self.memories_[real].text:
            old = self.memories_[real]
            merged = tuple(dict.fromkeys(old.sources + sources))
            self.memories_[real] = Fact(text, self._vector(text, vectors, backend), merged, session)
            self._log(real, old.text, text, "UPDATE", session)
        elif kind == "DELETE" and real in self.memories_:
            self._log(real, self.memories_.pop(real).text, None, "DELETE", session)

    def _vector(self, text: str, vectors: dict[str, np.ndarray], backend: Backend) -> np.ndarray:
        return vectors[text] if text in vectors else embed_documents(backend, [text])[0]

    def _log(self, memory_id: str, old: str | None, new: str | None, event: str, session: str) -> None:
        self.step_ += 1
        self.db_.execute("INSERT INTO history VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (self.run_, self.step_, memory_id, old, new, event, session))

    def history(self, memory_id: str | None = None) -> list[dict[str, Any]]:
        """This ingest's history rows (of one memory, or all), oldest first."""
        self._check_ingested()
        query = "SELECT step, memory_id, old_memory, new_memory, event, session FROM history WHERE run = ?"
        if memory_id is None:
            rows = self.db_.execute(query + " ORDER BY step", (self.run_,))
        else:
            rows = self.db_.execute(query + " AND memory_id = ? ORDER BY step", (self.run_, str(memory_id)))
        keys = ("step", "memory_id", "old_memory", "new_memory", "event", "session")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    # -- query -------------------------------------------------------------------------------------------
    def search(self, query: str, *, backend: Backend) -> list[tuple[str, float]]:
        """(memory id, cosine) of the search_limit nearest memories, best first (above min_score if set)."""
        self._check_ingested()
        if not self.memories_:
            return []
        ids = list(self.memories_)
        with backend.phase("query"):
            vector = backend.embed([query], input_type="query")[0]
        hits = nearest(np.vstack([self.memories_[i].vector for i in ids]), vector, self.search_limit)
        return [(ids[k], s) for k, s in hits if self.min_score is None or s >= self.min_score]

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        hits = [self.memories_[i] for i, _ in self.search(query, backend=backend)]
        body = "\n".join(f"- {f.text} [session {f.session}]" for f in hits)
        return Context.from_blocks({"Memories": body}, [e for f in hits for e in f.sources])

    def memory_text(self) -> str:
        self._check_ingested()
        return Context.from_blocks({"Memories": "\n".join(f"- {f.text} [session {f.session}]"
                                                          for f in self.memories_.values())}).text
