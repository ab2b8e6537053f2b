"""VisRAG, as the release's adapter builds it: Naive RAG's text chunks plus every document the user created,
rendered as a page image; the query's top-k over both pools.

    get_memory("visrag")                 pages embedded as images where the backend can (cohere), else as text
    get_memory("visrag", pages="text")   pages always embedded by their text (what an OCR of the page reads)

Chunks: 20 events each (rag.py). Pages: every write that creates a file with at least `min_chars`
characters of content becomes one page: the content wrapped at 105 columns (a Chinese character takes two),
its first `page_lines` lines drawn in an 800-pixel-wide PNG (Pillow's bundled font, the CJK font for a line
with Chinese: cjk.py; the text is also stored in the PNG's iTXt, so any reader of the image can recover it;
drawn only when needed).
pages="auto" embeds the PNG with `embed_images` when the backend embeds pixels in the text space
(`Backend.embeds_images`: cohere), and otherwise embeds the page's text: the offline backend has no
vision, so offline VisRAG reads pages as text, and `page_mode_` (and every page's heading in the
context) says which one a run used. The reader gets a page's text either way (the release's
generator sees the image).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..traces.schema import Trajectory
from ..util import cjk
from .base import Context, MemorySystem
from .rag import Chunk, embed_documents, event_chunks, nearest
from .records import check_positive
from .serialize import prepare, serialize_sessions, session_labels, session_name
from .stages import in_session, metered_ingest, session_stage

if TYPE_CHECKING:
    from ..llm.base import Backend

PAGE_WIDTH, COLUMNS, LINE_HEIGHT, MARGIN = 800, 105, 14, 12
PAGE_MODES = ("auto", "image", "text")


@dataclass(frozen=True)
class Page:
    session: str
    path: str
    text: str  # the page's wrapped text (what it shows)
    event_id: str

    @property
    def title(self) -> str:
        return f"{session_name(self.session)}, page of {self.path}"

    @property
    def png(self) -> bytes:
        """The rendered page (drawn when asked: a run that embeds pages as text never needs the pixels)."""
        return render_page(self.path, self.text)


def page_text(content: str, page_lines: int) -> str:
    lines = [w for line in content.splitlines() for w in (cjk.wrap(line, COLUMNS) or [""])]
    return "\n".join(lines[:page_lines])


def render_page(path: str, text: str) -> bytes:
    """An 800-pixel-wide PNG of the text (one line per LINE_HEIGHT pixels), the text also in its iTXt."""
    from PIL import Image, ImageDraw, PngImagePlugin

    lines = text.splitlines() or [""]
    image = Image.new("RGB", (PAGE_WIDTH, 2 * MARGIN + LINE_HEIGHT * len(lines)), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((MARGIN, MARGIN + n * LINE_HEIGHT), line, fill=(20, 20, 20), font=cjk.image_font(10, line))
    info = PngImagePlugin.PngInfo()
    info.add_itxt("Title", path)
    info.add_itxt("Description", text)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", pnginfo=info)
    return buffer.getvalue()


def created_pages(traj: Trajectory, label: str, *, min_chars: int, page_lines: int) -> list[Page]:
    out = []
    for event in traj.events:
        f = event.fields
        if event.event_type != "file_write" or f.get("operation") != "create" or f.get("media_ref") is None:
            continue
        content = traj.content(f["media_ref"])
        if len(content.strip()) >= min_chars:
            out.append(Page(label, str(f.get("file_path")), page_text(content, page_lines), event.event_id))
    return out


class VisRAG(MemorySystem):
    """Parameters: chunk_events, top_k (over chunks and pages together), min_chars (smallest document
    rendered), page_lines, pages ('auto' | 'image' | 'text')."""

    name = "visrag"

    def __init__(self, *, chunk_events: int = 20, top_k: int = 5, min_chars: int = 100, page_lines: int = 60,
                 pages: str = "auto"):
        check_positive(self.name, chunk_events=chunk_events, top_k=top_k, min_chars=min_chars, page_lines=page_lines)
        if pages not in PAGE_MODES:
            raise ValueError(f"visrag: pages must be one of {PAGE_MODES}, got {pages!r}")
        self.chunk_events, self.top_k, self.min_chars, self.page_lines = chunk_events, top_k, min_chars, page_lines
        self.pages = pages
        super().__init__(chunk_events=chunk_events, top_k=top_k, min_chars=min_chars, page_lines=page_lines,
                         pages=pages)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> VisRAG:
        with metered_ingest(self, backend):
            self.user_, cleaned = prepare(trajs)
            sessions = serialize_sessions(cleaned)
            self.chunks_: list[Chunk] = [c for s in sessions for c in event_chunks(s, self.chunk_events)]
            self.pages_: list[Page] = [p for t, label in zip(cleaned, session_labels(cleaned), strict=True)
                                       for p in self._pages(t, label, backend)]
            images = self.pages == "image" or self.pages == "auto" and getattr(backend, "embeds_images", False)
            self.page_mode_ = "image" if images else "text"
            chunk_rows = embed_documents(backend, [c.text for c in self.chunks_])
            if not self.pages_:
                page_rows = np.zeros((0, chunk_rows.shape[1]), dtype=np.float32)
            elif images:
                page_rows = backend.embed_images([p.png for p in self.pages_])
            else:
                page_rows = embed_documents(backend, [p.text for p in self.pages_])
            self.embeddings_ = np.vstack([chunk_rows, page_rows]) if len(page_rows) else chunk_rows
        self.ingested_ = True
        return self

    def _pages(self, traj: Trajectory, label: str, backend: Backend) -> list[Page]:
        params = {"min_chars": self.min_chars, "lines": self.page_lines}
        pages = session_stage("visrag.pages", traj, backend, params, lambda: created_pages(
            traj, label, min_chars=self.min_chars, page_lines=self.page_lines))
        return in_session(pages, label)

    def _unit(self, k: int) -> tuple[str, str, tuple[str, ...]]:
        """(heading, text, event ids) of row k: a chunk, or a page after the chunks."""
        if k < len(self.chunks_):
            chunk = self.chunks_[k]
            return chunk.title, chunk.text, chunk.event_ids
        page = self.pages_[k - len(self.chunks_)]
        return f"{page.title} ({'page image' if self.page_mode_ == 'image' else 'page read as text'})", page.text, \
            (page.event_id,)

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        self._check_ingested()
        if not len(self.embeddings_):
            return Context("")
        with backend.phase("query"):
            vector = backend.embed([query], input_type="query")[0]
        units = [self._unit(k) for k, _ in nearest(self.embeddings_, vector, self.top_k)]
        return Context.from_blocks({f"{n}. {h}": text for n, (h, text, _) in enumerate(units, start=1)},
                                   [e for _, _, ids in units for e in ids])

    def memory_text(self) -> str:
        self._check_ingested()
        units = [self._unit(k) for k in range(len(self.chunks_) + len(self.pages_))]
        return Context.from_blocks({h: text for h, text, _ in units}).text
