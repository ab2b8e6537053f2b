"""MemOS, as the release's adapter builds it: typed memory cells from 3,000-character batches, consolidated
by word overlap; every query sees the most confident cells of each type.

    get_memory("memos", batch_chars=3000, merge_overlap=0.4, per_type=50)

Ingest: each session's serialised actions in batches of up to `batch_chars` characters; one
`extract_memory_cells` call per batch returns 8-15 cells {type: fact | preference |
behavioral_pattern, content, confidence} citing the actions they come from. Consolidation, in
order: a cell whose content words overlap a kept cell of the same type by more than `merge_overlap`
(|A & B| / min(|A|, |B|)) is merged into it: the more confident text is kept, the sources are
joined, the merged cells' sessions listed, and `consolidated_from` counts the merged cells. `retrieve` needs
no query: the `per_type` most confident cells of each type, with the memory's statistics (the adapter's
inference prompt).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..llm.algorithms.text import content_terms
from ..traces.schema import Trajectory
from .base import Context, MemorySystem
from .records import attempt, char_batches, check_positive, cite, overlap, session_actions
from .serialize import prepare
from .stages import in_session, metered_ingest, session_stage

if TYPE_CHECKING:
    from ..llm.base import Backend

CELL_TYPES = ("behavioral_pattern", "preference", "fact")


@dataclass(frozen=True)
class Cell:
    type: str
    content: str
    confidence: float
    sources: tuple[str, ...]
    session: str  # the session it was extracted from; after merging, every merged cell's session, in order
    consolidated_from: int = 0  # cells merged into this one

    @functools.cached_property  # compared with every kept item at every merge
    def words(self) -> frozenset[str]:
        return frozenset(content_terms(self.content))


def consolidate(cells: list[Cell], threshold: float) -> list[Cell]:
    """Cells merged, in order, into the first kept cell of their type that they overlap by more than threshold."""
    kept: list[Cell] = []
    for cell in cells:
        twin = next((k for k, c in enumerate(kept) if c.type == cell.type and overlap(c.words, cell.words) > threshold),
                    None)
        if twin is None:
            kept.append(cell)
            continue
        old = kept[twin]
        best = cell if cell.confidence > old.confidence else old
        sessions = ", ".join(dict.fromkeys([*old.session.split(", "), cell.session]))  # provenance is kept
        kept[twin] = replace(best, sources=tuple(dict.fromkeys(old.sources + cell.sources)), session=sessions,
                             consolidated_from=old.consolidated_from + 1)
    return kept


class MemOS(MemorySystem):
    """Parameters: batch_chars, min_cells/max_cells (per call), merge_overlap, per_type (cells shown per type)."""

    name = "memos"

    def __init__(self, *, batch_chars: int = 3_000, min_cells: int = 8, max_cells: int = 15,
                 merge_overlap: float = 0.4, per_type: int = 50):
        check_positive(self.name, batch_chars=batch_chars, min_cells=min_cells, max_cells=max_cells, per_type=per_type)
        if not 0.0 <= merge_overlap <= 1.0:
            raise ValueError(f"memos: merge_overlap must be in [0, 1], got {merge_overlap!r}")
        self.batch_chars, self.min_cells, self.max_cells = batch_chars, min_cells, max_cells
        self.merge_overlap, self.per_type = float(merge_overlap), per_type
        super().__init__(batch_chars=batch_chars, min_cells=min_cells, max_cells=max_cells,
                         merge_overlap=self.merge_overlap, per_type=per_type)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> MemOS:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            self.parse_failures_ = 0
            extracted = [cell for s in session_actions(cleaned) for cell in self._cells(s, backend)]
            self.extracted_ = len(extracted)
            self.cells_ = consolidate(extracted, self.merge_overlap)
        self.ingested_ = True
        return self

    def _cells(self, session: Any, backend: Backend) -> list[Cell]:
        def compute() -> list[Cell]:
            out = []
            for start, end in char_batches(session.texts, self.batch_chars):
                texts, ids = list(session.texts[start:end]), session.event_ids[start:end]
                for c in attempt(self, lambda texts=texts: backend.extract_memory_cells(
                        texts, min_cells=self.min_cells, max_cells=self.max_cells), []):
                    kind = str(c["type"]).strip().lower()
                    out.append(Cell(kind if kind in CELL_TYPES else "fact", str(c["content"]).strip(),
                                    float(c["confidence"]), cite(ids, c.get("sources")), session.label))
            return out
        params = {"batch_chars": self.batch_chars, "min": self.min_cells, "max": self.max_cells}
        return in_session(session_stage("memos.cells", session.trajectory, backend, params, compute, memory=self),
                          session.label)

    def shown(self) -> dict[str, list[Cell]]:
        """The per_type most confident cells of each type (ties: earlier first)."""
        self._check_ingested()
        by_type: dict[str, list[Cell]] = {}
        for cell in self.cells_:
            by_type.setdefault(cell.type, []).append(cell)
        return {t: sorted(by_type[t], key=lambda c: -c.confidence)[:self.per_type] for t in CELL_TYPES if t in by_type}

    def _context(self, shown: dict[str, list[Cell]]) -> Context:
        counts = Counter(c.type for c in self.cells_)
        stats = (f"{len(self.cells_)} cells after consolidation ({self.extracted_} extracted): "
                 + ", ".join(f"{counts[t]} {t}" for t in CELL_TYPES if counts[t]))
        blocks = {"Memory statistics": stats}
        for kind, cells in shown.items():
            blocks[f"{kind} cells"] = "\n".join(
                f"- {c.content} [confidence {c.confidence:.2f}, "
                f"{'sessions' if ', ' in c.session else 'session'} {c.session}"
                + (f", merged {c.consolidated_from}" if c.consolidated_from else "") + "]" for c in cells)
        return Context.from_blocks(blocks, [e for cells in shown.values() for c in cells for e in c.sources])

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        return self._context(self.shown())

    def memory_text(self) -> str:
        self._check_ingested()
        return self._context({t: [c for c in self.cells_ if c.type == t] for t in CELL_TYPES}).text
