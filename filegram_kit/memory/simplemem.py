"""SimpleMem ("semantic lossless compression"), as the release's adapter builds it: self-contained entries
from overlapping windows of events, deduplicated, synthesised when there are many, the most confident kept.

    get_memory("simplemem", window=30, overlap=3, keep=80)

Ingest, per session, windows of `window` events stepping by window - overlap: one `extract_entries`
call each (5-12 entries {lossless_restatement, keywords, topic, entities, confidence}), shown the
user's last `previous` entries so as not to repeat them. Dedup, as each entry arrives: one whose
content words overlap a kept entry's by more than `dedup` (|A & B| / min) is merged into it
(keywords and entities joined, confidence + 0.1, observation_count + 1). When more than
`synthesis_above` entries remain, one `synthesize_entries` call merges, resolves and prunes them
(keeping 15-40), and dedup runs again. The `keep` most confident entries stay. `retrieve` shows
all of them, most confident first (the adapter has no query-time retrieval).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..llm.algorithms.text import content_terms
from ..traces.schema import Trajectory
from .base import Context, MemorySystem
from .records import attempt, check_positive, cite, overlap, session_actions, windows
from .serialize import prepare
from .stages import metered_ingest

if TYPE_CHECKING:
    from ..llm.base import Backend

CONFIDENCE_STEP = 0.1  # added to an entry each time a duplicate is merged into it


@dataclass(frozen=True)
class Entry:
    text: str  # the lossless restatement
    keywords: tuple[str, ...]
    topic: str
    entities: tuple[str, ...]
    confidence: float
    sources: tuple[str, ...]
    observation_count: int = 1
    sessions: tuple[str, ...] = ()  # where it was observed (SimpleMem anchors each restatement in time)

    @functools.cached_property  # compared with every kept item at every merge
    def words(self) -> frozenset[str]:
        return frozenset(content_terms(self.text))


def merge(kept: list[Entry], entry: Entry, threshold: float) -> list[Entry]:
    """kept with entry added, or merged into the first kept entry it overlaps by more than threshold."""
    twin = next((k for k, e in enumerate(kept) if overlap(e.words, entry.words) > threshold), None)
    if twin is None:
        return [*kept, entry]
    old = kept[twin]
    kept[twin] = replace(old, keywords=tuple(dict.fromkeys(old.keywords + entry.keywords)),
                         entities=tuple(dict.fromkeys(old.entities + entry.entities)),
                         confidence=round(min(1.0, old.confidence + CONFIDENCE_STEP), 3),
                         sources=tuple(dict.fromkeys(old.sources + entry.sources)),
                         observation_count=old.observation_count + entry.observation_count,
                         sessions=tuple(dict.fromkeys(old.sessions + entry.sessions)))
    return kept


def _joined(parts: list[Entry], key: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(x for p in parts for x in getattr(p, key)))


def dedup(entries: Iterable[Entry], threshold: float) -> list[Entry]:
    kept: list[Entry] = []
    for entry in entries:
        kept = merge(kept, entry, threshold)
    return kept


class SimpleMem(MemorySystem):
    """Parameters: window, overlap (events), previous (entries shown as do-not-repeat), dedup (overlap
    threshold), synthesis_above (entries that trigger synthesis), keep (entries kept)."""

    name = "simplemem"

    def __init__(self, *, window: int = 30, overlap: int = 3, previous: int = 15, dedup: float = 0.5,
                 synthesis_above: int = 60, keep: int = 80):
        check_positive(self.name, window=window, previous=previous, synthesis_above=synthesis_above, keep=keep)
        if not 0 <= overlap < window:
            raise ValueError(f"simplemem: overlap must be in [0, window), got {overlap!r}")
        if not 0.0 <= dedup <= 1.0:
            raise ValueError(f"simplemem: dedup must be in [0, 1], got {dedup!r}")
        self.window, self.overlap, self.previous, self.dedup = window, overlap, previous, float(dedup)
        self.synthesis_above, self.keep = synthesis_above, keep
        super().__init__(window=window, overlap=overlap, previous=previous, dedup=self.dedup,
                         synthesis_above=synthesis_above, keep=keep)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> SimpleMem:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            self.parse_failures_, self.synthesised_ = 0, False
            entries: list[Entry] = []
            for session in session_actions(cleaned):
                for start, end in windows(len(session.texts), self.window, self.overlap):
                    shown = [e.text for e in entries[-self.previous:]]
                    texts = list(session.texts[start:end])
                    for raw in attempt(self, lambda t=texts, shown=shown: backend.extract_entries(t, shown), []):
                        entries = merge(entries, self._entry(raw, session.event_ids[start:end], session.label),
                                        self.dedup)
            if len(entries) > self.synthesis_above:
                entries = self._synthesise(entries, backend)
            self.entries_ = sorted(entries, key=lambda e: -e.confidence)[:self.keep]
        self.ingested_ = True
        return self

    @staticmethod
    def _entry(raw: dict, ids: tuple[str, ...], session: str) -> Entry:
        words = lambda key: tuple(str(w) for w in raw.get(key) or [] if str(w).strip())  # noqa: E731
        return Entry(str(raw["lossless_restatement"]).strip(), words("keywords"), str(raw.get("topic", "")),
                     words("entities"), float(raw["confidence"]), cite(ids, raw.get("sources")), sessions=(session,))

    def _synthesise(self, entries: list[Entry], backend: Backend) -> list[Entry]:
        """One synthesis call; each result inherits what its merged entries had (sources, keywords, counts)."""
        result = attempt(self, lambda: backend.synthesize_entries(
            [{"lossless_restatement": e.text, "confidence": e.confidence} for e in entries]), None)
        if result is None:
            return entries
        self.synthesised_ = True
        out = []
        for raw in result:
            parts = [entries[k] for k in raw.get("merged") or []] or [e for e in entries if e.text ==
                                                                       raw["lossless_restatement"]][:1]
            out.append(Entry(str(raw["lossless_restatement"]).strip(), _joined(parts, "keywords"),
                             parts[0].topic if parts else "", _joined(parts, "entities"), float(raw["confidence"]),
                             _joined(parts, "sources"), sum(p.observation_count for p in parts) or 1,
                             _joined(parts, "sessions")))
        return dedup(out, self.dedup)

    def _context(self, entries: list[Entry]) -> Context:
        body = "\n".join(f"- {e.text} [{e.topic or 'general'}; confidence {e.confidence:.2f}; seen "
                         f"{e.observation_count}x in {', '.join(e.sessions) or 'no session'}; keywords: "
                         f"{', '.join(e.keywords[:6])}]" for e in entries)
        return Context.from_blocks({"Memory entries": body}, [s for e in entries for s in e.sources])

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        self._check_ingested()
        return self._context(self.entries_)

    def memory_text(self) -> str:
        return self.retrieve("", backend=None).text
