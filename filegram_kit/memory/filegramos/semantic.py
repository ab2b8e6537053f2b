"""Stage 1, semantic unit: what a session produced, as text and file metadata (paper §5, appendix B).

From the session's created files and edit diffs: the language of the output, the file-type
distribution, naming conventions measured on the created file names, representative file names,
a behavioural style descriptor (the `describe_style` task on a bounded sample of the output, as
the paper's encoder LLM sees it: at most 4 files x 600 characters), content previews, edit chains,
and the 800-character chunks that the semantic channel embeds.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from ...llm.tasks import ParseError
from ...traces.documents import extension

if TYPE_CHECKING:
    from ...llm.base import Backend

CHUNK_CHARS = 800
STYLE_FILES, STYLE_CHARS = 4, 600  # the encoder's budget per session (paper appendix B)
PREVIEW_CHARS = 1000  # stored; retrieval shows a shorter preview (Table 14 knob)
FILENAME_CHARS = 40  # file names are shown cut to this (paper appendix B)
PROSE_EXTENSIONS = frozenset({"md", "markdown", "txt", "rst", "html", "htm", "tex", "docx", "doc", "rtf", ""})
_DATE_PREFIX = re.compile(r"^\d{4}[-_]?\d{2}[-_]?\d{2}")
_NUMERIC_PREFIX = re.compile(r"^\d{1,3}[-_]")
_VERSION = re.compile(r"(?:^|[-_ .])(?:v\d+|final|draft|old|new|copy|backup|bak)(?:$|[-_ .])", re.IGNORECASE)
_CAMEL = re.compile(r"[a-z][A-Z]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Chunk:
    text: str
    kind: str  # "created" (file content) | "edit" (a diff)
    file: str
    session: str
    event_ids: tuple[str, ...]


@dataclass(frozen=True)
class FilePreview:
    file: str
    chars: int
    preview: str  # the first PREVIEW_CHARS characters
    event_id: str


@dataclass(frozen=True)
class EditStep:
    file: str
    lines_added: int
    lines_deleted: int
    diff: str
    event_id: str


@dataclass(frozen=True)
class SemanticUnit:
    language: str  # "en" | "zh" | "unknown" (nothing written)
    file_types: dict[str, int]  # extension -> files created
    naming: dict[str, float]  # convention -> share of created file names
    filenames: tuple[str, ...]  # representative created names (<= 5, <= 40 chars each)
    style: dict[str, Any]  # describe_style of the output sample ({} when nothing was written)
    previews: tuple[FilePreview, ...]
    edits: tuple[EditStep, ...]
    chunks: tuple[Chunk, ...]


def short_name(path: str, limit: int = FILENAME_CHARS) -> str:
    """A path cut to `limit` characters, keeping its end (the file name matters most)."""
    return path if len(path) <= limit else "…" + path[-(limit - 1):]


def naming_conventions(names: list[str]) -> dict[str, float]:
    """Share of file names (base names, extension dropped) showing each convention, plus mean length."""
    stems = [n.rsplit("/", 1)[-1].rsplit(".", 1)[0] for n in names]
    if not stems:
        return {}
    checks = {
        "date_prefix": lambda s: bool(_DATE_PREFIX.match(s)),
        "numeric_prefix": lambda s: bool(_NUMERIC_PREFIX.match(s)),
        "underscores": lambda s: "_" in s,
        "hyphens": lambda s: "-" in s,
        "spaces": lambda s: " " in s,
        "camel_case": lambda s: bool(_CAMEL.search(s)),
        "lowercase": lambda s: s == s.lower(),
        "version_marker": lambda s: bool(_VERSION.search(s)),
        "chinese": lambda s: bool(_CJK.search(s)),
    }
    out = {name: round(sum(map(check, stems)) / len(stems), 3) for name, check in checks.items()}
    out["mean_length"] = round(sum(map(len, stems)) / len(stems), 1)
    return out


def chunk_text(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Consecutive pieces of at most `size` characters, cut at a line break when one is near the end."""
    pieces, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind("\n", start + size // 2, end)
            end = cut + 1 if cut > 0 else end
        piece = text[start:end].strip()
        if piece:
            pieces.append(piece)
        start = end
    return pieces


def style_sample(previews: list[FilePreview], contents: dict[str, str]) -> str:
    """What the style descriptor reads: up to 4 created text files, 600 characters each, with their sizes."""
    parts = []
    for p in previews[:STYLE_FILES]:
        parts.append(f"[{short_name(p.file)}, {p.chars} characters]\n{contents[p.event_id][:STYLE_CHARS]}")
    return "\n\n".join(parts)


def semantic_unit(events: pl.DataFrame, session: str, diff_text: Any, backend: Backend) -> tuple[SemanticUnit, int]:
    """The semantic unit of one session from its events frame (with `content`); `diff_text(ref)` reads a diff.
    Also how many backend replies failed to parse: a style description that does not parse leaves the style
    unknown (as for a session that wrote nothing), and the memory is built all the same."""
    creates = events.filter((pl.col("event_type") == "file_write") & (pl.col("operation") == "create"))
    contents, previews, chunks = {}, [], []
    for row in creates.select("event_id", "file_path", "content").iter_rows(named=True):
        text, name = row["content"] or "", row["file_path"] or ""
        contents[row["event_id"]] = text
        previews.append(FilePreview(name, len(text), text[:PREVIEW_CHARS], row["event_id"]))
        chunks += [Chunk(piece, "created", name, session, (row["event_id"],)) for piece in chunk_text(text)]
    edits = []
    for row in events.filter(pl.col("event_type") == "file_edit").iter_rows(named=True):
        diff = diff_text(row["diff_ref"]) if row["diff_ref"] else ""
        edits.append(EditStep(row["file_path"] or "", row["lines_added"] or 0, row["lines_deleted"] or 0,
                              diff, row["event_id"]))
        chunks += [Chunk(piece, "edit", row["file_path"] or "", session, (row["event_id"],))
                   for piece in chunk_text(diff)]
    names = [p.file for p in previews]
    written = [p for p in previews if contents[p.event_id].strip()]
    prose = [p for p in written if extension(p.file) in PROSE_EXTENSIONS]
    written = prose or written  # the style of a report, not of the CSV or script beside it
    try:
        style, failures = (backend.describe_style(style_sample(written, contents)) if written else {}), 0
    except ParseError:
        style, failures = {}, 1
    return SemanticUnit(
        language=str(style.get("language", "unknown")) if style else "unknown",
        file_types=dict(sorted(Counter(extension(n) or "(none)" for n in names).items())),
        naming=naming_conventions(names),
        filenames=tuple(dict.fromkeys(n.rsplit("/", 1)[-1] for n in names))[:5],
        style=style, previews=tuple(previews), edits=tuple(edits), chunks=tuple(chunks),
    ), failures
