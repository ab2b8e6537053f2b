"""What an agent's read tool sees: the textual view of any workspace or output file.

Text formats come back as UTF-8 (bad bytes replaced); documents as their extracted text (pypdf,
python-docx, openpyxl, python-pptx); images, audio and video as a one-line header with the
caption or transcript their metadata carries (PNG iTXt/tEXt, JPEG/GIF comment, ID3 and container
tags via PyAV). A readable file of a known type never raises; a corrupt one reads as a marker line.
"""

from __future__ import annotations

import csv
import io
from functools import lru_cache
from pathlib import Path

TEXT_FORMATS = frozenset({
    "md", "markdown", "txt", "text", "csv", "tsv", "json", "jsonl", "eml", "ics", "tmp", "bak", "log", "html", "htm",
    "xml", "yaml", "yml", "toml", "ini", "cfg", "rst", "tex", "py", "sh",
})
IMAGE_FORMATS = frozenset({"png", "jpg", "jpeg", "gif", "bmp", "webp", "tif", "tiff"})
AUDIO_FORMATS = frozenset({"mp3", "wav", "m4a", "flac", "ogg", "aac"})
VIDEO_FORMATS = frozenset({"mp4", "mkv", "mov", "webm", "avi"})


def extension(path: str | Path) -> str:
    """Lower-case extension without the dot ('notes.txt.bak' -> 'bak', 'README' -> '')."""
    return Path(path).suffix[1:].lower()


def is_text_format(path: str | Path) -> bool:
    """Formats an agent can edit as plain text."""
    return extension(path) in TEXT_FORMATS


def read_text(path: str | Path) -> str:
    """The textual view of a file; FileNotFoundError when it does not exist."""
    path = Path(path)
    data = path.read_bytes()
    ext = extension(path)
    if ext in TEXT_FORMATS:
        return data.decode("utf-8", errors="replace")
    return _decoded(data, ext)


def text_of_bytes(data: bytes, ext: str) -> str:
    """The textual view of a file's bytes when there is no file (e.g. an image sent to an embedder)."""
    return data.decode("utf-8", errors="replace") if ext in TEXT_FORMATS else _decoded(data, ext)


@lru_cache(maxsize=1024)
def _decoded(data: bytes, ext: str) -> str:
    """The text of a binary document; cached by content, since every sandbox copy of a workspace holds the
    same bytes (a pure function of them, so the cache cannot change a result)."""
    reader = _READERS.get(ext) or _media_reader(ext)
    if reader is None:
        return _sniff(data, ext)
    try:
        return reader(data, ext)
    except Exception as exc:  # a corrupt file of a known type: say so instead of crashing the agent
        return f"[unreadable {ext} {len(data)} bytes: {type(exc).__name__}]"


def _sniff(data: bytes, ext: str) -> str:
    """Unknown extension: text if it looks like UTF-8 (no NULs, hardly any bad bytes), else a marker."""
    head = data[:8192]
    if b"\x00" not in head and head.decode("utf-8", errors="replace").count("\ufffd") <= 2:
        return data.decode("utf-8", errors="replace")
    return f"[binary {ext or 'file'} {len(data)} bytes]"


def _pdf(data: bytes, ext: str) -> str:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return "\n".join((page.extract_text() or "").strip() for page in reader.pages) + "\n"


def _docx(data: bytes, ext: str) -> str:
    import docx

    doc = docx.Document(io.BytesIO(data))
    lines = []
    for para in doc.paragraphs:
        style = (para.style.name if para.style is not None else "") or ""
        if style == "Title":
            lines.append(f"# {para.text}")
        elif style.startswith("Heading"):
            level = style.removeprefix("Heading").strip()
            lines.append("#" * (int(level) if level.isdigit() else 2) + " " + para.text)
        elif "List" in style:
            lines.append(f"- {para.text}")
        else:
            lines.append(para.text)
    for table in doc.tables:
        lines += [" | ".join(cell.text for cell in row.cells) for row in table.rows]
    return "\n".join(lines) + "\n"


def _xlsx(data: bytes, ext: str) -> str:
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for ws in wb.worksheets:
        buf.write(f"[sheet {ws.title}]\n")
        for row in ws.iter_rows(values_only=True):
            cells = ["" if v is None else str(v) for v in row]
            while cells and not cells[-1]:
                cells.pop()
            writer.writerow(cells)
    wb.close()
    return buf.getvalue()


def _pptx(data: bytes, ext: str) -> str:
    import pptx

    deck = pptx.Presentation(io.BytesIO(data))
    lines = []
    for i, slide in enumerate(deck.slides, 1):
        lines.append(f"## Slide {i}")
        for shape in slide.shapes:
            if shape.has_text_frame:
                lines += [p.text for p in shape.text_frame.paragraphs if p.text]
    return "\n".join(lines) + "\n"


def _image(data: bytes, ext: str) -> str:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        width, height = img.size
        info = dict(getattr(img, "text", {}) or {})
        comment = img.info.get("comment", b"")
    if isinstance(comment, bytes):
        comment = comment.decode("utf-8", errors="replace")
    title, _, desc = comment.partition("\n") if comment else (info.get("Title", ""), "", info.get("Description", ""))
    return f"[image {ext} {width}x{height}] " + _caption(title, desc)


def _media_reader(ext: str):
    if ext in AUDIO_FORMATS or ext in VIDEO_FORMATS:
        return _av
    return None


def _av(data: bytes, ext: str) -> str:
    import av

    with av.open(io.BytesIO(data)) as container:
        meta = {k.lower(): v for k, v in container.metadata.items()}
        seconds = (container.duration or 0) / 1_000_000
    kind = "video" if ext in VIDEO_FORMATS else "audio"
    desc = meta.get("comment") or meta.get("description") or meta.get("lyrics") or ""
    return f"[{kind} {ext} {seconds:.1f} s] " + _caption(meta.get("title", ""), desc)


def _caption(title: str, desc: str) -> str:
    if title and desc:
        return f"{title}: {desc}"
    return title or desc or "(no caption)"


_READERS = {"pdf": _pdf, "docx": _docx, "xlsx": _xlsx, "pptx": _pptx, **{e: _image for e in IMAGE_FORMATS}}
