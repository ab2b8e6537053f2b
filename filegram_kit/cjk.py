"""Chinese text in rendered outputs: the CJK font every renderer needs and the OCR languages that read it back.

Half the personas write Chinese. A renderer with a Latin-only font (fpdf2's core Helvetica, Pillow's bundled
font) destroys those characters when it draws them ("?" in a PDF, empty boxes in an image), so what a memory
later parses or OCRs measures a missing font, not the memory. This module finds a font with CJK glyphs and
says which tesseract languages read a text, and fails loudly, naming the Debian package, when either is missing
(`make setup` installs both: `fonts-wqy-zenhei`, `tesseract-ocr-chi-sim`).

    cjk_font()                    # Path of a TrueType font (or collection) with CJK glyphs
    ocr_languages("报告 report")   # "chi_sim+eng" (only the languages tesseract has; raises if Chinese is missing)
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from pathlib import Path

FONT_PACKAGE = "fonts-wqy-zenhei"
OCR_PACKAGE = "tesseract-ocr-chi-sim"
FONT_ENV = "FILEGRAM_CJK_FONT"  # a font file to use instead of the one fontconfig finds
KNOWN_FONTS = (  # Debian's paths, tried when fontconfig is not there
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
)
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


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


def ocr_languages(text: str = "") -> str:
    """tesseract's -l argument for a page that shows `text`: English, and Chinese first where `text` has Han
    characters (or where `text` is unknown, "", and Chinese data is installed). Raises MissingOCRLanguage when
    the text is Chinese and tesseract cannot read it."""
    have = tesseract_languages()
    if has_cjk(text) and "chi_sim" not in have:
        raise MissingOCRLanguage(f"tesseract cannot read Chinese: install Debian's {OCR_PACKAGE} (`make setup` "
                                 f"does, or `apt-get install {OCR_PACKAGE}`)")
    wanted = ["chi_sim", "eng"] if has_cjk(text) or (not text and "chi_sim" in have) else ["eng"]
    return "+".join(lang for lang in wanted if lang in have) or "eng"
