"""MemU: three levels of memory, resources -> items -> categories (the release's adapter; memU 1.x's tiers).

    get_memory("memu")                        the release: every category with its summary and items
    get_memory("memu", retrieval="tiered")    memU's retrieve: top categories, then their items, then resources

Ingest:
1. Resources: every event, as its serialised action, with a heuristic importance (IMPORTANCE: a read
   0.3 + 0.1 per earlier view, a write 0.7, an edit or a copy 0.6, ...).
2. Items: each session is memorised as one resource stream (memU's `memorize` per resource), in
   batches of `batch` resources; one `extract_items` call per batch returns 5-15 items typed as one of
   ITEM_TYPES, each with an importance and the resources it came from.
3. Categories: one `categorize_items` call over all items assigns them to CATEGORIES, with a summary
   and a confidence per category.
`retrieve`, retrieval="all": every category (summary, confidence, counts) with its items. "tiered":
the `top` categories nearest the query (cosine over their summaries), the `top` nearest of their items,
and the `top` nearest resources those items came from.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..llm.algorithms.observe import parse_action
from ..traces.schema import Trajectory
from .base import Context, MemorySystem
from .rag import embed_documents, nearest
from .records import Record, attempt, check_positive, cite, session_actions, windows
from .serialize import prepare
from .stages import in_session, metered_ingest, session_stage

if TYPE_CHECKING:
    from ..llm.base import Backend

ITEM_TYPES = ("reading_habit", "writing_style", "organization", "iteration", "workflow", "cross_modal")
CATEGORIES = ("reading_behavior", "writing_style", "organization_habits", "iteration_patterns", "workflow_rhythm",
              "cross_modal_usage")
IMPORTANCE = {"read": 0.3, "write": 0.7, "edit": 0.6, "copy": 0.6, "move": 0.5, "rename": 0.5, "mkdir": 0.5,
              "delete": 0.4, "search": 0.4, "browse": 0.2}
IMPORTANCE_OTHER = 0.3
RETRIEVALS = ("all", "tiered")


@functools.lru_cache(maxsize=65_536)  # the same resource lines recur in every input set of a persona
def importance(text: str) -> float:
    """A resource's heuristic importance from its verb (reads gain 0.1 per earlier view, up to 0.7)."""
    action = parse_action(0, text)
    if action is None:
        return IMPORTANCE_OTHER
    base = IMPORTANCE.get(action.verb, IMPORTANCE_OTHER)
    if action.verb == "read" and (view := action.detail("view") or "").isdigit():
        base = min(0.7, base + 0.1 * (int(view) - 1))
    return round(base, 2)


@dataclass(frozen=True)
class Category:
    name: str
    summary: str
    confidence: float
    items: tuple[int, ...]  # indices into items_


class MemU(MemorySystem):
    """Parameters: batch (resources per extraction call), retrieval ('all' | 'tiered'), top (per tier)."""

    name = "memu"

    def __init__(self, *, batch: int = 50, retrieval: str = "all", top: int = 5):
        check_positive(self.name, batch=batch, top=top)
        if retrieval not in RETRIEVALS:
            raise ValueError(f"memu: retrieval must be one of {RETRIEVALS}, got {retrieval!r}")
        self.batch, self.retrieval, self.top = batch, retrieval, top
        super().__init__(batch=batch, retrieval=retrieval, top=top)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> MemU:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            self.parse_failures_ = 0
            sessions = session_actions(cleaned)
            self.resources_ = [Record(text, (eid,), s.label, "resource", importance(text))
                               for s in sessions for text, eid in zip(s.texts, s.event_ids, strict=True)]
            self.items_ = [item for s in sessions for item in self._items(s, backend)]
            shown = [{"type": i.kind, "content": i.text} for i in self.items_]
            raw = attempt(self, lambda: backend.categorize_items(shown, list(CATEGORIES)), []) if shown else []
            self.categories_ = [Category(str(c["name"]), str(c.get("summary", "")), float(c["confidence"]),
                                         tuple(k for k in c.get("items") or [] if k < len(self.items_))) for c in raw]
            if self.retrieval == "tiered":
                self.vectors_ = {level: embed_documents(backend, texts) for level, texts in (
                    ("categories", [f"{c.name}: {c.summary}" for c in self.categories_]),
                    ("items", [i.text for i in self.items_]), ("resources", [r.text for r in self.resources_]))}
        self.ingested_ = True
        return self

    def _items(self, session: Any, backend: Backend) -> list[Record]:
        def compute() -> list[Record]:
            out = []
            for start, end in windows(len(session.texts), self.batch):
                texts, ids = list(session.texts[start:end]), session.event_ids[start:end]
                for raw in attempt(self, lambda t=texts: backend.extract_items(t, list(ITEM_TYPES)), []):
                    out.append(Record(str(raw["content"]).strip(), cite(ids, raw.get("sources")), session.label,
                                      str(raw["type"]), float(raw["importance"])))
            return out
        return in_session(session_stage("memu.items", session.trajectory, backend, {"batch": self.batch}, compute,
                                        memory=self), session.label)

    # -- query -------------------------------------------------------------------------------------------
    def _all(self) -> Context:
        blocks = {}
        for c in self.categories_:
            lines = [f"Summary: {c.summary}", f"{len(c.items)} items, confidence {c.confidence:.2f}"]
            blocks[c.name] = "\n".join(lines + [self.items_[k].line() for k in c.items])
        sources = [e for c in self.categories_ for k in c.items for e in self.items_[k].sources]
        return Context.from_blocks(blocks, sources)

    def _tiered(self, query: str, backend: Backend) -> Context:
        with backend.phase("query"):
            vector = backend.embed([query], input_type="query")[0]
        cats = [self.categories_[k] for k, _ in nearest(self.vectors_["categories"], vector, self.top)]
        pool = sorted({k for c in cats for k in c.items})
        picked = [pool[k] for k, _ in nearest(self.vectors_["items"][pool], vector, self.top)] if pool else []
        wanted = {e for k in picked for e in self.items_[k].sources}
        rows = [k for k, r in enumerate(self.resources_) if r.sources[0] in wanted]
        found = [rows[k] for k, _ in nearest(self.vectors_["resources"][rows], vector, self.top)] if rows else []
        return Context.from_blocks({
            "Categories": "\n".join(f"- {c.name}: {c.summary}" for c in cats),
            "Items": "\n".join(self.items_[k].line() for k in picked),
            "Resources": "\n".join(self.resources_[k].line() for k in found)},
            [e for k in picked for e in self.items_[k].sources])

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        self._check_ingested()
        if self.retrieval == "tiered" and query.strip() and self.categories_:
            return self._tiered(query, backend)
        return self._all()

    def memory_text(self) -> str:
        self._check_ingested()
        return self._all().text
