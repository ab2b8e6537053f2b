"""Render one section of a text output as a file of another modality, byte-deterministically.

    fmt = choose_format(section, rng)          # "pdf" | "docx" | "pptx" | "page.png" | "mp3" | "xlsx" | "chart.png"
    data = render_section(section, fmt)

Documents reuse the workspace encoders (fpdf2, python-pptx, openpyxl: workspace/formats.py, fixed dates
and zip stamps); DOCX and PPTX are python-docx's and python-pptx's templates with only the body written
per file (ooxml.py). A page image draws the section's text with Pillow's scalable default font (the CJK
font for a line with Chinese: cjk.py), with no text in its metadata: a reader must OCR it. A chart draws the
table's first numeric column as bars.
Narration is speech from Debian's espeak-ng (`apt-get install espeak-ng`), encoded to MP3 with PyAV; its
only metadata is the title, so offline the spoken words are lost unless a backend transcribes them.

The shares below are ours: the paper's Figure 3 shows the formats of its ~10K files but not their
counts, and its setting is "outputs rendered as PDFs and images", so PDF leads; a table goes to a sheet,
a chart, a PDF or a page image. OCR and speech are most of the build's time, which bounds their shares.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import wave

import numpy as np

from ..util import cjk
from ..workspace.content import InputFile
from ..workspace.formats import blocks
from ..workspace.formats import render as encode_document
from .ooxml import docx_bytes, pptx_bytes
from .sections import Section

TEXT_FORMATS = {"pdf": 0.48, "docx": 0.20, "pptx": 0.18, "page.png": 0.08, "mp3": 0.06}
TABLE_FORMATS = {"xlsx": 0.45, "chart.png": 0.25, "pdf": 0.2, "page.png": 0.1}  # a chart needs a numeric column
FORMATS = tuple(dict.fromkeys((*TEXT_FORMATS, *TABLE_FORMATS)))
PAGE_WIDTH, PAGE_COLUMNS, PAGE_LINES, FONT_SIZE, LINE_HEIGHT, MARGIN = 900, 88, 80, 16, 22, 24
NARRATION_WORDS, SPEECH_RATE, MP3_BITRATE = 45, 220, 16_000
_NUMBER = re.compile(r"-?\d[\d,]*\.?\d*")


class RenderError(RuntimeError):
    """A renderer's system tool (espeak-ng) is missing or failed."""


def extension(fmt: str) -> str:
    """The file extension of a format ("page.png" -> "png")."""
    return fmt.rsplit(".", 1)[-1]


def _numeric_column(rows: tuple[tuple[str, ...], ...]) -> int | None:
    """The first column (after the label column) whose data cells are all numbers."""
    data = [r for r in rows[1:] if r]
    width = min((len(r) for r in data), default=0)
    for col in range(1, width):
        if data and all(_NUMBER.search(r[col].replace(" ", "")) for r in data):
            return col
    return None


def choose_format(section: Section, rng: np.random.Generator) -> str:
    """A format for the section: a table to a sheet, a chart (if it has a numeric column), a PDF or a page
    image (which flatten its grid); text to documents, slides, page images or narration."""
    shares = TEXT_FORMATS
    if section.is_table:
        shares = TABLE_FORMATS if _numeric_column(section.rows) is not None else {
            k: v for k, v in TABLE_FORMATS.items() if k != "chart.png"}
    names = list(shares)
    return names[int(rng.choice(len(names), p=np.array(list(shares.values())) / sum(shares.values())))]


def markup(section: Section) -> str:
    """The section in the workspace encoders' markup: title line, `## ` headings, `- ` bullets, paragraphs
    (a table's rows become `a | b | c` paragraphs: the document keeps the cells, not the grid)."""
    out = [section.title]
    for line in section.text.splitlines():
        stripped = line.strip()
        heading = re.match(r"^#{1,6}\s+(.*)$", stripped)
        if not stripped or (heading and heading.group(1) == section.title and len(out) == 1):
            continue
        if heading:
            out.append("## " + heading.group(1))
        elif re.match(r"^[-*+]\s+", stripped):
            out.append("- " + re.sub(r"^[-*+]\s+", "", stripped))
        elif stripped.startswith("|"):
            if not set(stripped) <= set("|-: "):
                out.append(" | ".join(c.strip() for c in stripped.strip("|").split("|")))
        else:
            out.append(stripped)
    return "\n".join(out) + "\n"


def _document(section: Section, ext: str) -> bytes:
    if ext in ("docx", "pptx"):
        return (docx_bytes if ext == "docx" else pptx_bytes)(section.title, blocks(markup(section)))
    return encode_document(InputFile(f"section.{ext}", ext, section.title, markup(section), kind="report"))


def sheet_name(title: str) -> str:
    """A title Excel accepts as a sheet name: no []:*?/\\, at most 31 characters, never empty."""
    return re.sub(r"[\[\]:*?/\\]+", " ", title).strip()[:31].strip() or "Table"


def _xlsx(section: Section) -> bytes:
    """The table as a sheet; the section's other lines (headings, paragraphs) as a one-column Notes sheet."""
    import csv

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    buf.write(f"[sheet {sheet_name(section.title)}]\n")
    writer.writerows(section.rows)
    cells = {c for row in section.rows for c in row}
    notes = [line for line in markup(section).splitlines()[1:]
             if not set(line.split(" | ")) <= cells and not set(next(csv.reader([line]), [])) <= cells]
    if notes:
        buf.write("[sheet Notes]\n")
        writer.writerows([line] for line in notes)
    return encode_document(InputFile("section.xlsx", "xlsx", section.title, buf.getvalue(), kind="table"))


def pil_font(size: int = FONT_SIZE, text: str = ""):
    """The font the page image, the chart and the replay draw `text` with: Pillow's scalable default font, or
    the CJK or symbol font for text beyond Latin-1 (cjk.image_font)."""
    return cjk.image_font(size, text)


def _png(image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG", optimize=False)
    return buf.getvalue()


def page_image(section: Section) -> bytes:
    """The section's text drawn as a page (wrapped, at most PAGE_LINES lines), no text in the metadata."""
    from PIL import Image, ImageDraw

    lines = [w for line in markup(section).splitlines() for w in (cjk.wrap(line, PAGE_COLUMNS) or [""])]
    lines = lines[:PAGE_LINES]
    image = Image.new("L", (PAGE_WIDTH, 2 * MARGIN + LINE_HEIGHT * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        heading = n == 0 or line.startswith("## ")
        text = line.removeprefix("## ")
        draw.text((MARGIN, MARGIN + n * LINE_HEIGHT), text, fill=0,
                  font=pil_font(FONT_SIZE + 4 if heading else FONT_SIZE, text))
    return _png(image)


def _value(cell: str) -> float:
    match = _NUMBER.search(cell.replace(" ", ""))
    return float(match.group(0).replace(",", "")) if match else 0.0


def chart_image(section: Section) -> bytes:
    """A bar chart of the table's first numeric column, labelled by its first column, titled by the section."""
    from PIL import Image, ImageDraw

    col = _numeric_column(section.rows)
    if col is None:
        raise ValueError(f"section {section.title!r} has no numeric column to chart")
    header, data = section.rows[0], [r for r in section.rows[1:] if r][:12]
    values = [_value(r[col]) for r in data]
    top = max(max(values, default=0.0), 1e-9)
    width, height, base, bar = 120 + 70 * len(data), 420, 340, 44
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    title = f"{section.title}: {header[col]}"
    draw.text((MARGIN, 12), title, fill=0, font=pil_font(18, title))
    draw.line((60, base, width - 20, base), fill=0, width=2)
    for i, (row, value) in enumerate(zip(data, values, strict=True)):
        x = 80 + 70 * i
        h = int(240 * max(value, 0.0) / top)
        draw.rectangle((x, base - h, x + bar, base), fill=90)
        for y, label in ((base - h - 18, row[col]), (base + 8, row[0])):
            label = cjk.cut(label, 8)  # a bar is 8 columns wide
            draw.text((x, y), label, fill=0, font=pil_font(14, label))
    return _png(image)


def _speech(text: str) -> bytes:
    """espeak-ng's WAV of the text (Mandarin voice for mostly-CJK text)."""
    if shutil.which("espeak-ng") is None:
        raise RenderError("narration needs espeak-ng: `apt-get install espeak-ng` (or `make setup`)")
    voice = "cmn" if cjk.language(text) == "zh" else "en"
    done = subprocess.run(["espeak-ng", "--stdout", "-v", voice, "-s", str(SPEECH_RATE), "-b", "1"],
                          input=text.encode("utf-8"), capture_output=True, check=False)
    if done.returncode != 0 or not done.stdout:
        raise RenderError(f"espeak-ng failed ({done.returncode}): {done.stderr.decode(errors='replace')[:200]}")
    return done.stdout


def narration_text(section: Section) -> str:
    """What the narration says: the section's words, at most NARRATION_WORDS of them."""
    words = re.sub(r"[#|*_`>-]+", " ", markup(section)).split()
    return " ".join(words[:NARRATION_WORDS])


def narration(section: Section) -> bytes:
    """The section read aloud by espeak-ng, as a mono MP3 whose only tag is the title."""
    import av

    with wave.open(io.BytesIO(_speech(narration_text(section))), "rb") as wav:
        rate, pcm = wav.getframerate(), np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    # half the rate (pairs averaged: a crude low-pass, plenty for speech): halves the encoder's work
    pcm = ((pcm[:len(pcm) // 2 * 2:2].astype(np.int32) + pcm[1:len(pcm) // 2 * 2:2]) // 2).astype(np.int16)
    rate //= 2
    buf = io.BytesIO()
    out = av.open(buf, "w", format="mp3", options={"fflags": "+bitexact"})
    out.metadata["title"] = section.title
    stream = out.add_stream("libmp3lame", rate=rate, layout="mono", options={"compression_level": "9"})  # fastest
    stream.bit_rate = MP3_BITRATE
    stream.codec_context.thread_count = 1
    stream.codec_context.flags |= av.codec.context.Flags.bitexact
    for start in range(0, len(pcm), 1152):
        frame = av.AudioFrame.from_ndarray(pcm[start:start + 1152].reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate, frame.pts = rate, start
        for packet in stream.encode(frame):
            out.mux(packet)
    for packet in stream.encode(None):
        out.mux(packet)
    out.close()
    return buf.getvalue()


def render_section(section: Section, fmt: str) -> bytes:
    """The bytes of the section rendered as `fmt` (one of FORMATS)."""
    if fmt in ("pdf", "docx", "pptx"):
        return _document(section, fmt)
    renderers = {"xlsx": _xlsx, "page.png": page_image, "chart.png": chart_image, "mp3": narration}
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    return renderers[fmt](section)
