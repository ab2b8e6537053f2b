"""Encoders that turn a planned `InputFile` into the exact bytes of a real, openable file.

Libraries (all PyPI wheels, no system packages): fpdf2 writes PDF, python-docx / openpyxl /
python-pptx write Office files, Pillow draws PNG/JPEG/GIF, and PyAV (which bundles FFmpeg with
libmp3lame and an MPEG-4 encoder) writes MP3, MP4 and MKV. Output is byte-deterministic: PDF
creation dates are fixed, Office zips are rewritten with fixed timestamps and core-property dates,
FFmpeg runs with `+bitexact` and one thread, and every drawing parameter comes from a hash of the
file's content (so two planned files with the same content get identical bytes, whatever their path).
Chinese text is drawn with a CJK font (cjk.py): a Latin-only font would turn it into "?" or empty boxes.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import re
import zipfile
from collections.abc import Callable

import numpy as np

from ..util import cjk
from .content import InputFile

FIXED_TIME = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
FIXED_STAMP = "2024-01-01T00:00:00Z"
IMAGE_SIZE = (160, 120)
VIDEO_SIZE, VIDEO_FPS, VIDEO_FRAMES = (64, 48), 8, 8
AUDIO_RATE = 16_000
TEXT_EXTS = frozenset({"md", "txt", "csv", "json", "eml", "ics", "tmp", "bak", "log", "html", "xml", "yaml", "yml"})


def render(f: InputFile) -> bytes:
    """The bytes of a planned file; text formats are the text itself in UTF-8."""
    if f.ext in TEXT_EXTS or f.ext not in _ENCODERS:
        return f.text.encode("utf-8")
    return _ENCODERS[f.ext](f)


def blocks(text: str) -> list[tuple[str, str]]:
    """Markup lines as (style, text): title / heading / bullet / para; blank lines dropped."""
    out = []
    for i, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        if i == 0:
            out.append(("title", line))
        elif line.startswith("## "):
            out.append(("heading", line[3:]))
        elif line.startswith("- "):
            out.append(("bullet", line[2:]))
        else:
            out.append(("para", line))
    return out


def _digest(f: InputFile) -> bytes:
    return hashlib.sha256("\x1f".join((f.title, f.text, f.motif)).encode("utf-8")).digest()


def _is_latin1(text: str) -> bool:
    return all(ord(ch) < 0x100 for ch in text)


def _latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


# -- documents ----------------------------------------------------------------------------------
def _pdf(f: InputFile) -> bytes:
    """Lines are pre-wrapped (cjk.wrap, by display columns): fpdf2's own line breaking dominates build time
    otherwise. A document with Chinese (or any character beyond Latin-1: bullets, dashes, box drawing) is set in
    the CJK font throughout (one weight: sizes mark headings); others in the core Helvetica, which holds Latin-1
    only."""
    from fpdf import FPDF

    unicode = not _is_latin1(f.title + f.text)  # the core font draws Latin-1 only; the rest would become "?"
    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED_TIME)
    pdf.set_title(f.title if unicode else _latin1(f.title))
    pdf.set_producer("filegram_kit")
    pdf.set_margins(18, 18)
    pdf.add_page()
    if unicode:
        shown = f.title + f.text
        main, *fallback = cjk.pdf_fonts(shown)
        pdf.add_font("cjk", fname=str(cjk.embedding_font(main, shown)))
        for n, path in enumerate(fallback):
            pdf.add_font(f"fallback{n}", fname=str(cjk.embedding_font(path, shown)))
        pdf.set_fallback_fonts([f"fallback{n}" for n in range(len(fallback))])
    fonts = {"title": ("B", 14, 8, 60), "heading": ("B", 11, 7, 80), "bullet": ("", 10, 5, 88), "para": ("", 10, 5, 90)}
    for style, line in blocks(f.text):
        weight, size, height, width = fonts[style]
        pdf.set_font("cjk", "", size) if unicode else pdf.set_font("Helvetica", weight, size)
        text = ("- " if style == "bullet" else "") + line
        for part in cjk.wrap(text if unicode else _latin1(text), width,
                             subsequent_indent="  " if style == "bullet" else "") or [""]:
            pdf.cell(0, height, part, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1 if style in ("title", "heading") else 0.5)
    return bytes(pdf.output())


def _docx(f: InputFile) -> bytes:
    import docx

    doc = docx.Document()
    props = doc.core_properties
    props.title, props.author, props.revision = f.title, "filegram_kit", 1
    props.created = props.modified = props.last_printed = FIXED_TIME.replace(tzinfo=None)
    bullet = doc.styles["List Bullet"]  # looked up once: name lookups are python-docx's slow path
    for style, line in blocks(f.text):
        if style == "title":
            doc.add_heading(line, 0)
        elif style == "heading":
            doc.add_heading(line, 2)
        else:
            doc.add_paragraph(line, style=bullet if style == "bullet" else None)
    buf = io.BytesIO()
    doc.save(buf)
    return normalise_zip(buf.getvalue())


def sheets(text: str) -> dict[str, list[list[str]]]:
    """Parse xlsx markup (`[sheet NAME]` then CSV rows) into rows per sheet."""
    out: dict[str, list[list[str]]] = {}
    name = "Sheet1"
    for line in text.splitlines():
        match = re.fullmatch(r"\[sheet (.+)\]", line)
        if match:
            name = match.group(1)
            out[name] = []
        else:
            out.setdefault(name, []).append(next(csv.reader([line]), []))
    return {k: v[:-1] if v and not v[-1] else v for k, v in out.items()}


def _cell(value: str) -> object:
    if re.fullmatch(r"-?\d{1,12}", value):
        return int(value)
    if re.fullmatch(r"-?\d+\.\d+", value):
        return float(value)
    return value or None


def _xlsx(f: InputFile) -> bytes:
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets(f.text).items():
        ws = wb.create_sheet(name[:31])
        for row in rows:
            ws.append([_cell(v) for v in row])
    wb.properties.title, wb.properties.creator = f.title, "filegram_kit"
    buf = io.BytesIO()
    wb.save(buf)
    return normalise_zip(buf.getvalue())


def _pptx(f: InputFile) -> bytes:
    import pptx

    deck = pptx.Presentation()
    props = deck.core_properties
    props.title, props.author, props.last_modified_by, props.revision = f.title, "filegram_kit", "filegram_kit", 1
    props.created = props.modified = FIXED_TIME.replace(tzinfo=None)
    slide, body = None, None
    for style, line in blocks(f.text):
        if style == "title":
            slide = deck.slides.add_slide(deck.slide_layouts[0])
            slide.shapes.title.text, body = line, slide.placeholders[1].text_frame
        elif style == "heading":
            slide = deck.slides.add_slide(deck.slide_layouts[1])
            slide.shapes.title.text, body = line, slide.placeholders[1].text_frame
        elif body is not None:
            para = body.paragraphs[0] if not body.text else body.add_paragraph()
            para.text = line
    buf = io.BytesIO()
    deck.save(buf)
    return normalise_zip(buf.getvalue())


def normalise_zip(data: bytes) -> bytes:
    """Rewrite an OOXML zip with fixed entry timestamps and fixed docProps/core.xml dates."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            payload = src.read(info)
            if info.filename == "docProps/core.xml":
                payload = re.sub(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)",
                                 rb"\g<1>" + FIXED_STAMP.encode() + rb"\g<3>", payload)
            entry = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type, entry.create_system, entry.external_attr = zipfile.ZIP_DEFLATED, 3, 0o644 << 16
            dst.writestr(entry, payload)
    return out.getvalue()


# -- images ---------------------------------------------------------------------------------------
def _palette(seed: bytes) -> list[tuple[int, int, int]]:
    return [(40 + seed[i] % 180, 40 + seed[i + 1] % 180, 40 + seed[i + 2] % 180) for i in range(0, 15, 3)]


def _draw_motif(draw, motif: str, pal, w: int, h: int, phase: float, seed: bytes) -> None:
    """A simple themed picture: enough shapes that a viewer can tell a chart from a cat or a mountain."""
    sky, ground, a, b, c = pal
    shift = int(phase * w / 4)
    draw.rectangle([0, 0, w, h], fill=sky)
    if motif == "chart":
        draw.rectangle([0, 0, w, h], fill=(245, 245, 240))
        for i in range(8):
            top = h - 12 - (seed[i] % (h - 30))
            draw.rectangle([8 + i * (w - 16) // 8, top, 4 + (i + 1) * (w - 16) // 8, h - 10], fill=a)
        draw.line([(6, h - 10), (w - 6, h - 10)], fill=(30, 30, 30))
    elif motif in ("screen", "document"):
        draw.rectangle([6, 6, w - 6, h - 6], fill=(250, 250, 250), outline=a)
        for y in range(16, h - 12, 9):
            draw.line([(14, y), (14 + (seed[y % 32] % (w - 40)) + 10, y)], fill=b, width=3)
    elif motif in ("mountain", "landmark", "landscape", "orchard"):
        draw.rectangle([0, h * 2 // 3, w, h], fill=ground)
        draw.ellipse([w - 40 - shift, 8, w - 20 - shift, 28], fill=(250, 220, 90))
        if motif == "mountain":
            draw.polygon([(w // 6, h * 2 // 3), (w // 2, h // 5), (w * 5 // 6, h * 2 // 3)], fill=a)
            draw.polygon([(w * 5 // 12, h * 1 // 3), (w // 2, h // 5), (w * 7 // 12, h // 3)], fill=(255, 255, 255))
        elif motif == "landmark":
            draw.polygon([(w // 2 - 18, h * 2 // 3), (w // 2, h // 8), (w // 2 + 18, h * 2 // 3)], fill=a)
        elif motif == "orchard":
            for x in range(10 + shift % 20, w, 28):
                draw.rectangle([x + 8, h // 2, x + 12, h * 2 // 3 + 6], fill=(90, 60, 30))
                draw.ellipse([x, h // 3, x + 20, h // 2 + 6], fill=(60, 140, 60))
        else:
            draw.polygon([(0, h * 2 // 3), (w // 3, h // 2), (w * 2 // 3, h * 2 // 3)], fill=a)
    elif motif == "cat":
        cx, cy = w // 2 + shift - w // 8, h // 2 + 10
        draw.ellipse([cx - 30, cy - 10, cx + 30, cy + 25], fill=(25, 25, 30))
        draw.ellipse([cx + 15, cy - 30, cx + 45, cy], fill=(25, 25, 30))
        draw.polygon([(cx + 17, cy - 24), (cx + 22, cy - 40), (cx + 28, cy - 27)], fill=(25, 25, 30))
        draw.polygon([(cx + 33, cy - 27), (cx + 40, cy - 40), (cx + 43, cy - 22)], fill=(25, 25, 30))
        draw.ellipse([cx + 24, cy - 20, cx + 29, cy - 15], fill=(240, 210, 60))
    elif motif == "people":
        for i, x in enumerate(range(w // 5, w, w // 4)):
            draw.ellipse([x - 10 + shift, h // 3 - 10, x + 10 + shift, h // 3 + 10], fill=(230, 190, 160))
            draw.rectangle([x - 14 + shift, h // 3 + 12, x + 14 + shift, h - 20], fill=pal[(i + 2) % 5])
    else:  # poster, logo, room
        draw.rectangle([w // 5, h // 8, w * 4 // 5, h * 3 // 4], fill=a, outline=b, width=3)
        draw.ellipse([w // 2 - 18 + shift // 2, h // 4, w // 2 + 18 + shift // 2, h // 4 + 36], fill=c)


def picture(f: InputFile, size: tuple[int, int] = IMAGE_SIZE, phase: float = 0.0, caption: bool = True):
    from PIL import Image, ImageDraw

    seed = _digest(f)
    img = Image.new("RGB", size, (0, 0, 0))
    draw = ImageDraw.Draw(img)
    _draw_motif(draw, f.motif, _palette(seed), size[0], size[1], phase, seed)
    if caption:
        draw.rectangle([0, size[1] - 14, size[0], size[1]], fill=(20, 20, 20))
        caption_text = cjk.cut(f.title, 30)
        draw.text((3, size[1] - 13), caption_text, fill=(255, 255, 255), font=cjk.image_font(10, caption_text))
    return img


def _image(f: InputFile) -> bytes:
    from PIL import PngImagePlugin

    buf = io.BytesIO()
    comment = f"{f.title}\n{f.text}".encode()
    if f.ext == "png":
        info = PngImagePlugin.PngInfo()
        info.add_itxt("Title", f.title)
        info.add_itxt("Description", f.text)
        picture(f).save(buf, "PNG", pnginfo=info)
    elif f.ext == "gif":
        frames = [picture(f, phase=i / 4).quantize(64) for i in range(4)]
        frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=250, loop=0, comment=comment)
    else:
        picture(f).save(buf, "JPEG", quality=80, comment=comment)
    return buf.getvalue()


# -- audio and video ------------------------------------------------------------------------------
def _container(fmt: str, f: InputFile):
    import av

    buf = io.BytesIO()
    out = av.open(buf, "w", format=fmt, options={"fflags": "+bitexact"})
    out.metadata["title"] = f.title
    out.metadata["comment"] = f.text
    return av, buf, out


def _encode(stream, out, frame) -> None:
    for packet in stream.encode(frame):
        out.mux(packet)


def _mp3(f: InputFile) -> bytes:
    """A short mono two-note tone: 1-2 s at 16 kHz, 32 kbit/s, ID3 title + comment (transcript)."""
    seed = _digest(f)
    av, buf, out = _container("mp3", f)
    stream = out.add_stream("libmp3lame", rate=AUDIO_RATE, layout="mono")
    stream.bit_rate = 32_000
    stream.codec_context.thread_count = 1
    stream.codec_context.flags |= av.codec.context.Flags.bitexact
    seconds = 1.0 + (seed[0] % 11) / 10
    t = np.arange(int(AUDIO_RATE * seconds)) / AUDIO_RATE
    freq = np.where(t < seconds / 2, 220 + seed[1] % 220, 330 + seed[2] % 220)
    wave = (0.25 * np.sin(2 * np.pi * freq * t) * 32767).astype(np.int16)
    for start in range(0, len(wave), 1152):
        chunk = wave[start:start + 1152].reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(chunk, format="s16", layout="mono")
        frame.sample_rate, frame.pts = AUDIO_RATE, start
        _encode(stream, out, frame)
    _encode(stream, out, None)
    out.close()
    return buf.getvalue()


def _video(f: InputFile) -> bytes:
    """A 1 s, 64x48, 8 fps MPEG-4 clip of the file's motif, title + description in container metadata."""
    av, buf, out = _container("mp4" if f.ext == "mp4" else "matroska", f)
    stream = out.add_stream("mpeg4", rate=VIDEO_FPS)
    stream.width, stream.height, stream.pix_fmt = *VIDEO_SIZE, "yuv420p"
    stream.codec_context.thread_count = 1
    stream.codec_context.flags |= av.codec.context.Flags.bitexact
    for i in range(VIDEO_FRAMES):
        img = picture(f, VIDEO_SIZE, phase=i / VIDEO_FRAMES, caption=False)
        _encode(stream, out, av.VideoFrame.from_ndarray(np.asarray(img), format="rgb24"))
    _encode(stream, out, None)
    out.close()
    return buf.getvalue()


_ENCODERS: dict[str, Callable[[InputFile], bytes]] = {
    "pdf": _pdf, "docx": _docx, "xlsx": _xlsx, "pptx": _pptx, "png": _image, "jpg": _image, "jpeg": _image,
    "gif": _image, "mp3": _mp3, "mp4": _video, "mkv": _video,
}
BINARY_EXTS = frozenset(_ENCODERS)
