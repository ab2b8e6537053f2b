"""The one parser every text method reads the multimodal setting through, and what it loses.

    texts = parse_files([(data, "pdf"), (png, "page.png")])       # the text view of each file
    loss = measure(section, fmt, text)                              # words recovered, tables flattened, ...

Documents, sheets and slides go through the agent's own read view (documents.py: pypdf, python-docx,
python-pptx, openpyxl). Images are OCR'd by Debian's tesseract (`apt-get install tesseract-ocr
tesseract-ocr-chi-sim`) in English and Chinese (a page's language is not known to its reader: cjk.py), one
process for a whole batch, single-threaded so the text is the same on every run. Audio gives its
container metadata only (title, duration); `transcribe` (a callable, e.g. a keyed backend) adds the
spoken words when given. Nothing is invented: what the file does not show is simply not in the text.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..traces.documents import text_of_bytes
from ..util.cjk import WIDE, ocr_languages
from .render import extension, markup
from .sections import Section

Transcriber = Callable[[bytes], str]
_TOKEN = re.compile(r"[\u3400-\u9fff]|[^\W_\u3400-\u9fff]+")
_HAN_TOKEN = re.compile(r"[\u3400-\u9fff]")
_OCR_GAP = re.compile(f"(?<=[{WIDE}]) +(?=[{WIDE}])")
OCR_SCALE = 2  # images are enlarged this many times before OCR (_enlarged)
FLATTENING = frozenset({"pdf", "docx", "pptx", "page.png", "mp3"})  # formats that drop a table's grid


class ParseError(RuntimeError):
    """OCR is missing or failed on a batch."""


def tokens(text: str) -> Counter:
    """Lower-case word tokens (each CJK character is one), as a multiset."""
    return Counter(_TOKEN.findall(text.lower()))


def ocr(images: Sequence[bytes]) -> list[str]:
    """tesseract's text of each PNG, in order (one process for the batch, `--psm 6`: a block of text).
    Identical images are read once: tesseract's LSTM reads each page on its own, so a page's text does not
    depend on the batch around it (tests/test_multimodal.py checks this)."""
    if not images:
        return []
    distinct = list(dict.fromkeys(images))
    texts = dict(zip(distinct, _tesseract(distinct), strict=True))
    return [texts[data] for data in images]


def _enlarged(png: bytes) -> bytes:
    """The image at OCR_SCALE times its size: screen text is 15-20 pixels high, and tesseract misreads small
    Chinese characters at the start of a line ("据资料显示" as "气资料显示") that it reads once enlarged."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        big = image.convert("L").resize((image.width * OCR_SCALE, image.height * OCR_SCALE), Image.LANCZOS)
    buf = io.BytesIO()
    big.save(buf, "PNG")
    return buf.getvalue()


def _tesseract(images: Sequence[bytes]) -> list[str]:
    if shutil.which("tesseract") is None:
        raise ParseError("image parsing needs tesseract: `apt-get install tesseract-ocr` (or `make setup`)")
    languages = ocr_languages()
    with tempfile.TemporaryDirectory(prefix="filegram-ocr-") as tmp:
        paths = []
        for n, data in enumerate(images):
            path = Path(tmp) / f"{n:05d}.png"
            path.write_bytes(_enlarged(data))
            paths.append(str(path))
        listing = Path(tmp) / "images.txt"
        listing.write_text("\n".join(paths) + "\n", encoding="utf-8")
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        done = subprocess.run(["tesseract", str(listing), "stdout", "--psm", "6", "-l", languages],
                              capture_output=True, env=env, check=False)
    pages = done.stdout.decode("utf-8", errors="replace").split("\f")
    if done.returncode != 0 or len(pages) < len(images):
        raise ParseError(f"tesseract failed on {len(images)} images ({done.returncode}): "
                         f"{done.stderr.decode(errors='replace')[-300:]}")
    # tesseract's Chinese model puts a space between words ("季度 报告"); Chinese is written without them
    return [_OCR_GAP.sub("", p.strip()) + "\n" if p.strip() else "" for p in pages[:len(images)]]


def parse_files(files: Sequence[tuple[bytes, str]], *, transcribe: Transcriber | None = None) -> list[str]:
    """The text a text method gets from each (bytes, format): OCR for images, metadata (+ transcript) for audio."""
    images = [data for data, fmt in files if extension(fmt) == "png"]
    recognised = iter(ocr(images))
    out = []
    for data, fmt in files:
        ext = extension(fmt)
        view = text_of_bytes(data, ext)
        if ext == "png":
            view = f"{view.split(']', 1)[0]}]\n{next(recognised)}"  # the header (size), not the "(no caption)"
        elif ext == "mp3" and transcribe is not None:
            view = f"{view}\n{transcribe(data).strip()}\n"
        out.append(view)
    return out


@dataclass(frozen=True)
class Loss:
    """What one rendered file kept of its section."""

    source_words: int
    recovered_words: int  # source word tokens found in the parsed text (multiset intersection)
    table_flattened: bool  # a table section rendered where its grid does not survive
    image_without_text: bool  # an image whose OCR found no words
    audio_without_transcript: bool  # narration parsed from metadata only
    source_han: int = 0  # of source_words, the Chinese characters (each is one token)
    recovered_han: int = 0  # of recovered_words, the Chinese characters

    @property
    def recovered(self) -> float:
        return self.recovered_words / self.source_words if self.source_words else 1.0


def _han(tokens_: Counter) -> int:
    return sum(n for token, n in tokens_.items() if _HAN_TOKEN.fullmatch(token))


def measure(section: Section, fmt: str, parsed: str, *, transcribed: bool = False) -> Loss:
    """Words of the section recovered by the parse (Chinese characters counted apart too: half the personas
    write some), and which structure was lost on the way."""
    source, got = tokens(markup(section)), tokens(parsed)
    kept = source & got
    return Loss(sum(source.values()), sum(kept.values()), section.is_table and fmt in FLATTENING,
                extension(fmt) == "png" and not got, fmt == "mp3" and not transcribed, _han(source), _han(kept))
