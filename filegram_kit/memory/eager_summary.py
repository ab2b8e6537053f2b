"""Eager Summarization: one 200-400-word summary per session at ingest; every query gets them all.

    get_memory("eager_summary")                       the release: summaries concatenated in session order
    get_memory("eager_summary", max_words=200)        shorter summaries

The release's runner makes one summary call per trajectory (`summarize_session`, "200-400 words",
temperature 0.3) over the shared serialisation (serialize.py), then answers from the concatenated
summaries: no retrieval, the same context for every query. A summary cites every event of its
session (it is written from all of them). A session's summary depends on that session alone, so it
is computed once per process (stages.py) however many memories include the session.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..traces.schema import Trajectory
from .base import Context, MemorySystem
from .records import Record, check_positive, session_actions
from .serialize import check_content_chars, header, prepare, session_name
from .stages import metered_ingest, session_stage

if TYPE_CHECKING:
    from ..llm.base import Backend

MIN_WORDS, MAX_WORDS = 200, 400  # the release's prompt


class EagerSummary(MemorySystem):
    """One summary per session (summarize_session), all of them as the context. Parameters: min_words,
    max_words (the summary's length), max_content_chars (inlined content cut before summarising; -1: never)."""

    name = "eager_summary"

    def __init__(self, *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS, max_content_chars: int = -1):
        check_positive(self.name, min_words=min_words, max_words=max_words)
        if min_words > max_words:
            raise ValueError(f"eager_summary: min_words ({min_words}) must not exceed max_words ({max_words})")
        self.min_words, self.max_words = min_words, max_words
        self.max_content_chars = check_content_chars(max_content_chars)
        super().__init__(min_words=min_words, max_words=max_words, max_content_chars=self.max_content_chars)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> EagerSummary:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            sessions = session_actions(cleaned, max_content_chars=self.max_content_chars)
            self.summaries_ = [self._summary(s, backend) for s in sessions]
        self.ingested_ = True
        return self

    def _summary(self, session: Any, backend: Backend) -> Record:
        text = "\n".join([header(session.label), *session.texts])
        summary = session_stage("eager_summary", session.trajectory, backend, {**self.params(), "label": session.label},
                                lambda: backend.summarize_session(text, min_words=self.min_words,
                                                                  max_words=self.max_words))
        return Record(summary, session.event_ids, session=session.label)

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        self._check_ingested()
        blocks = {f"{session_name(r.session)} summary": r.text for r in self.summaries_}
        return Context.from_blocks(blocks, [e for r in self.summaries_ for e in r.sources])

    def memory_text(self) -> str:
        return self.retrieve("", backend=None).text
