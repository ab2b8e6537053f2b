"""Chinese text in rendered outputs: the CJK font every renderer needs and the OCR languages that read it back.

Half the personas write Chinese. A renderer with a Latin-only font (fpdf2's core Helvetica, Pillow's bundled
font) destroys those characters when it draws them ("?" in a PDF, empty boxes in an image), so what a memory
later parses or OCRs measures a missing font, not the memory. This module finds a font with CJK glyphs and
says which tesseract languages read a text, and fails loudly, naming the Debian package, when either is missing
(`make setup` installs both: `fonts-wqy-zenhei`, `tesseract-ocr-chi-sim`).

    cjk_font()                    # Path of a TrueType font (or collection) with CJK glyphs
    image_font(16, "报告")         # a Pillow font that draws this text: the CJK font beyond Latin-1
    pdf_fonts("报告 • done")       # the font files fpdf2 embeds: the CJK font (a cached common subset), then a
                                  # symbol font for what it lacks (WenQuanYi has no "•")
    embedding_font(path, text)    # a cut of that font holding the text's characters: the same PDF, sooner
    wrap("报告 report ...", 88)     # lines of at most 88 columns, a Han character counting two
    ocr_languages()               # "eng+chi_sim": a page of unknown language (raises if Chinese data is missing)

Renderers switch to the CJK font only for a text that needs it, so an English output's bytes do not depend on
which CJK font a machine has (and stay what they were before Chinese was drawn at all).
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import os
import re
import shutil
import subprocess
import textwrap
import threading
import unicodedata
from pathlib import Path

FONT_PACKAGE = "fonts-wqy-zenhei"
OCR_PACKAGE = "tesseract-ocr-chi-sim"
FONT_ENV = "FILEGRAM_CJK_FONT"  # a font file to use instead of the one fontconfig finds
SUBSET_VERSION = 2  # bump when common_codepoints() or the subset's options change: the cached file's name holds it
KNOWN_FONTS = (  # Debian's paths, tried when fontconfig is not there
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
)
SYMBOL_PACKAGE = "fonts-dejavu-core"
SYMBOL_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",)  # the fallback for glyphs the CJK font lacks
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
WIDE = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"  # Han, CJK and full-width punctuation (a regex class's body)


class MissingCJKFont(RuntimeError):
    """No font with CJK glyphs: Chinese would be drawn as "?" or empty boxes."""


class MissingOCRLanguage(RuntimeError):
    """tesseract has no data for a language the text needs."""


def has_cjk(text: str) -> bool:
    """Whether `text` holds a Han character (what a Latin-only font cannot draw)."""
    return bool(_HAN.search(text))


def _fontconfig_fonts() -> list[Path]:
    """Every font file fontconfig knows to cover Chinese, sorted (fc-match would answer with *some* font)."""
    if shutil.which("fc-list") is None:
        return []
    listed = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True, text=True, check=False)
    return sorted({Path(line.split(":")[0].strip()) for line in listed.stdout.splitlines() if line.strip()})


@functools.cache
def cjk_font() -> Path:
    """The font file renderers draw Chinese with: $FILEGRAM_CJK_FONT, else the first known Debian font present,
    else the first font fontconfig lists for Chinese (a fixed order: rendered bytes depend on the font). Raises
    MissingCJKFont naming the package to install."""
    chosen = os.environ.get(FONT_ENV)
    if chosen:
        if not Path(chosen).is_file():
            raise MissingCJKFont(f"${FONT_ENV} names {chosen}, which is not a file")
        return Path(chosen)
    found = next((Path(p) for p in KNOWN_FONTS if Path(p).is_file()), None) or next(iter(_fontconfig_fonts()), None)
    if found is None:
        raise MissingCJKFont(f"no font with Chinese glyphs: install Debian's {FONT_PACKAGE} (`make setup` does, or "
                             f"`apt-get install {FONT_PACKAGE}`), or point ${FONT_ENV} at a .ttf/.ttc that has them")
    return found


@functools.cache
def tesseract_languages() -> frozenset[str]:
    """The languages this machine's tesseract can read (empty when tesseract is missing)."""
    if shutil.which("tesseract") is None:
        return frozenset()
    listed = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True, check=False)
    return frozenset(line.strip() for line in listed.stdout.splitlines()[1:] if line.strip())


def language(text: str) -> str:
    """The language a rendered section is counted under (its parse loss) and spoken in (its narration): "zh"
    where Han characters are at least 30% of the text's non-space characters, else "en"."""
    han = sum(1 for _ in _HAN.finditer(text))
    return "zh" if han and han >= 0.3 * len("".join(text.split())) else "en"


def ocr_languages(text: str | None = None) -> str:
    """tesseract's -l argument for a page. A page whose text is unknown (None: what an OCR reader faces) is read
    in English and Chinese, English first (on 40 English and 40 Chinese page images of the corpus, `eng+chi_sim`
    recovered 96.9% and 95.5% of their words, `eng` alone 97.0% and 6.5%); a known text in English alone, or
    Chinese first where it has Han characters. Raises MissingOCRLanguage when Chinese is wanted and tesseract
    cannot read it: a silent English-only read would lose half the personas' pages."""
    wanted = ["eng", "chi_sim"] if text is None else ["chi_sim", "eng"] if has_cjk(text) else ["eng"]
    if "chi_sim" in wanted and "chi_sim" not in tesseract_languages():
        raise MissingOCRLanguage(f"tesseract cannot read Chinese: install Debian's {OCR_PACKAGE} (`make setup` "
                                 f"does, or `apt-get install {OCR_PACKAGE}`)")
    return "+".join(wanted)

def width(text: str) -> int:
    """Display columns of `text`: a wide (East Asian) character takes two, as it does on a page."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def cut(text: str, columns: int) -> str:
    """The longest prefix of `text` that fits in `columns` display columns."""
    used = 0
    for n, ch in enumerate(text):
        used += width(ch)
        if used > columns:
            return text[:n]
    return text


def wrap(text: str, columns: int, *, subsequent_indent: str = "") -> list[str]:
    """`textwrap.wrap` by display columns: Latin text breaks at spaces exactly as textwrap does; a line with wide
    characters also breaks between them (Chinese has no spaces), so no line is wider than `columns`."""
    if not has_cjk(text) and width(text) == len(text):
        return textwrap.wrap(text, columns, subsequent_indent=subsequent_indent)
    lines: list[str] = []
    rest = text.strip()
    while rest:
        room = columns - (width(subsequent_indent) if lines else 0)
        head = cut(rest, max(room, 2))
        if len(head) < len(rest) and rest[len(head)] != " " and " " in head.rstrip() and not has_cjk(
                head[-1] + rest[len(head)]):
            head = head[:head.rstrip().rfind(" ")]  # break a Latin word at its space, not inside it
        lines.append((subsequent_indent if lines else "") + head.rstrip())
        rest = rest[len(head):].lstrip()
    return lines


@functools.cache
def _truetype(path: Path, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(str(path), size)


def image_font(size: int, text: str):
    """The Pillow font a renderer draws `text` with at `size` pixels: Pillow's scalable bundled font for Latin-1
    text; else the CJK font, or the symbol font where only it has every character ("• Risk"). Raises
    MissingCJKFont without a CJK font."""
    if all(ord(ch) < 0x100 for ch in text):
        from PIL import ImageFont

        return ImageFont.load_default(size=size)
    wanted = {ord(ch) for ch in text}
    fonts = [cjk_font(), *filter(None, [symbol_font()])]
    best = max(fonts, key=lambda path: (wanted <= _codepoints(path), len(wanted & _codepoints(path)),
                                        -fonts.index(path)))
    return _truetype(best, size)


@functools.cache
def common_codepoints() -> frozenset[int]:
    """What most documents need: ASCII and Latin-1, general and CJK punctuation, arrows, box drawing, full-width
    forms and the 6,763 Han characters of GB 2312 (the standard set of simplified Chinese)."""
    ranges = [(0x20, 0x7E), (0xA0, 0xFF), (0x2000, 0x206F), (0x2190, 0x21FF), (0x2500, 0x25FF), (0x3000, 0x303F),
              (0xFF00, 0xFFEF)]  # + arrows, box drawing and geometric shapes (bullets, rules)
    han = []
    for code in range(0x4E00, 0xA000):
        try:
            chr(code).encode("gb2312")
        except UnicodeEncodeError:
            continue
        han.append(code)
    return frozenset([c for lo, hi in ranges for c in range(lo, hi + 1)] + han)


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "filegram_kit" / "fonts"


@functools.cache
def common_font() -> Path:
    """The CJK font cut down to common_codepoints() (outlines only, no bitmaps, hinting or glyph names), built
    once per machine into ~/.cache/filegram_kit/fonts. Why: fpdf2 parses the whole font for every PDF it
    writes; the full 45,000-glyph WenQuanYi collection costs 0.27 s a PDF, this subset 0.06 s."""
    from fontTools import subset, ttLib

    from . import atomic

    source = cjk_font()
    key = hashlib.sha256(source.read_bytes() + f"{SUBSET_VERSION}".encode()).hexdigest()[:16]
    path = _cache_dir() / f"{source.stem}-{key}-common.ttf"
    if path.is_file():
        return path
    fonttools_log = logging.getLogger("fontTools")
    level = fonttools_log.level
    fonttools_log.setLevel(logging.ERROR)  # "BDF NOT subset" for every bitmap table it drops
    try:
        font = ttLib.TTFont(str(source), fontNumber=0, recalcTimestamp=False)
        options = subset.Options()
        options.drop_tables += ["BDF ", "EBDT", "EBLC", "EBSC", "hdmx", "gasp", "GSUB", "GPOS", "kern"]
        options.hinting, options.glyph_names, options.notdef_outline, options.layout_features = False, False, True, []
        cutter = subset.Subsetter(options)
        cutter.populate(unicodes=sorted(common_codepoints()))
        cutter.subset(font)
    finally:
        fonttools_log.setLevel(level)
    font["post"].formatType = 3.0
    buffer = io.BytesIO()
    font.save(buffer)
    atomic.write_bytes(path, buffer.getvalue())
    return path


@functools.cache
def _codepoints(path: Path) -> frozenset[int]:
    from fontTools import ttLib

    return frozenset(ttLib.TTFont(str(path), fontNumber=0, lazy=True).getBestCmap())


@functools.cache
def symbol_font() -> Path | None:
    """DejaVu Sans, which has the bullets and marks WenQuanYi lacks (None where it is not installed)."""
    return next((Path(p) for p in SYMBOL_FONTS if Path(p).is_file()), None)


_ASCII = frozenset(range(0x20, 0x7F))


class _Cuts:
    """This process's growing cut of each font file (embedding_font), in a temporary folder removed at exit."""

    lock = threading.Lock()
    folder: Path | None = None
    made = 0
    fonts: dict[Path, tuple[frozenset[int], Path]] = {}  # font file -> (code points its cut covers, the cut)

    @classmethod
    def new_path(cls, source: Path) -> Path:
        import atexit
        import tempfile

        if cls.folder is None:
            cls.folder = Path(tempfile.mkdtemp(prefix="filegram-font-cuts-"))
            atexit.register(shutil.rmtree, cls.folder, ignore_errors=True)
        cls.made += 1
        return cls.folder / f"{source.stem}-{cls.made}.ttf"


def embedding_font(path: Path, text: str) -> Path:
    """A cut of the font file `path` that holds every character of `text`, for fpdf2 to load instead of the
    whole font. Why: fpdf2 parses and subsets the font it loads once per PDF, in time that grows with the font's
    glyphs: about 0.1 s a PDF for the 7,700-glyph common subset, a quarter of that for a cut of a few hundred.
    The PDF's bytes do not change: the cut is made as fpdf2 makes its own subset (its options, by glyph, with the
    original's bounding box and timestamps), and fpdf2 then embeds its subset of the characters drawn
    (tests/test_cjk.py compares the bytes). One cut per font file and process, grown by the characters a text
    brings that it lacks: a few hundred PDFs share a handful of cuts."""
    wanted = frozenset(ord(ch) for ch in text) | _ASCII
    with _Cuts.lock:
        covered, cut = _Cuts.fonts.get(path, (frozenset(), None))
        if cut is not None and wanted <= covered:
            return cut
        from fontTools import subset, ttLib

        covered |= wanted
        font = ttLib.TTFont(str(path), fontNumber=0, recalcTimestamp=False, recalcBBoxes=False, lazy=True)
        cmap = font.getBestCmap()  # cut by glyph, as fpdf2 does: every code point of a kept glyph stays mapped
        kept = {cmap[code] for code in covered if code in cmap} | set(font.getGlyphOrder()[:4])  # + .notdef, .null
        fonttools_log = logging.getLogger("fontTools")
        level = fonttools_log.level
        fonttools_log.setLevel(logging.ERROR)  # "BDF NOT subset" (fpdf2's own subset drops it too)
        try:
            cutter = subset.Subsetter(subset.Options(notdef_outline=True, recommended_glyphs=True))  # fpdf2's
            cutter.populate(glyphs=sorted(kept))
            cutter.subset(font)
        finally:
            fonttools_log.setLevel(level)
        cut = _Cuts.new_path(path)
        font.save(str(cut))
        _Cuts.fonts[path] = (covered, cut)
        return cut


def pdf_fonts(text: str) -> list[Path]:
    """The font files a PDF showing `text` embeds, main font first: the common subset when it covers every
    character (nearly always; else the full CJK font, so a rare character is never dropped for speed), then the
    symbol font where the main one lacks a character the symbol font has ("•")."""
    wanted = {ord(ch) for ch in text if ch not in "\t\n\r"}
    rare = wanted - common_codepoints()
    main = cjk_font() if rare and rare & _codepoints(cjk_font()) else common_font()
    missing = wanted - _codepoints(main)
    symbols = symbol_font()
    return [main, symbols] if missing and symbols and missing & _codepoints(symbols) else [main]
