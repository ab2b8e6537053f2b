"""Chinese in rendered outputs: the CJK font draws what Latin-only fonts lose, PDFs keep it, tesseract reads it
back, and a machine without the font or the OCR data is told which package to install."""

from __future__ import annotations

import io
import re
import subprocess
from difflib import SequenceMatcher

import pytest

from filegram_kit.util import cjk

TEXT = "季度报告：收入增长了百分之十二"  # a Chinese persona's kind of sentence


def _draw(text: str, font) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("L", (40 * len(text) + 20, 64), 255)
    ImageDraw.Draw(image).text((10, 10), text, fill=0, font=font)
    return image.tobytes()


def test_the_cjk_font_draws_chinese_that_the_bundled_font_turns_into_identical_boxes():
    from PIL import ImageFont

    bundled = ImageFont.load_default(size=32)
    assert _draw("报", bundled) == _draw("告", bundled)  # the failure this module exists for: tofu
    font = ImageFont.truetype(str(cjk.cjk_font()), 32)
    one, other = _draw("报", font), _draw("告", font)
    assert one != other and min(one) < 128  # two different glyphs, with ink


def test_a_pdf_written_with_the_cjk_font_gives_its_chinese_back():
    import pypdf
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.add_font("cjk", fname=str(cjk.cjk_font()))
    pdf.set_font("cjk", size=12)
    pdf.multi_cell(0, 8, f"{TEXT} (Quarterly report, v2)")
    text = pypdf.PdfReader(io.BytesIO(bytes(pdf.output()))).pages[0].extract_text()
    assert TEXT in text and "Quarterly report" in text and "?" not in text


def test_tesseract_reads_back_the_chinese_a_page_shows(tmp_path):
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(cjk.cjk_font()), 40)
    image = Image.new("L", (60 * len(TEXT), 100), 255)
    ImageDraw.Draw(image).text((20, 25), TEXT, fill=0, font=font)
    image.save(tmp_path / "page.png")
    languages = cjk.ocr_languages(TEXT)
    assert languages.startswith("chi_sim")
    read = subprocess.run(["tesseract", str(tmp_path / "page.png"), "-", "-l", languages, "--psm", "7"],
                          capture_output=True, text=True, check=True).stdout
    read = "".join(ch for ch in read if cjk.has_cjk(ch) or ch == "：")
    assert SequenceMatcher(None, read, TEXT).ratio() >= 0.8, read


def test_a_missing_font_or_ocr_language_names_the_package(monkeypatch, tmp_path):
    cjk.cjk_font.cache_clear()
    monkeypatch.setattr(cjk, "KNOWN_FONTS", ())
    monkeypatch.setattr(cjk, "_fontconfig_fonts", lambda: [])
    monkeypatch.delenv(cjk.FONT_ENV, raising=False)
    try:
        with pytest.raises(cjk.MissingCJKFont, match=cjk.FONT_PACKAGE):
            cjk.cjk_font()
        monkeypatch.setenv(cjk.FONT_ENV, str(tmp_path / "nope.ttf"))
        with pytest.raises(cjk.MissingCJKFont, match="nope.ttf"):
            cjk.cjk_font()
    finally:
        cjk.cjk_font.cache_clear()
    monkeypatch.setattr(cjk, "tesseract_languages", lambda: frozenset({"eng", "osd"}))
    with pytest.raises(cjk.MissingOCRLanguage, match=cjk.OCR_PACKAGE):
        cjk.ocr_languages(TEXT)
    with pytest.raises(cjk.MissingOCRLanguage, match=cjk.OCR_PACKAGE):
        cjk.ocr_languages()  # a page of unknown language is never silently read in English alone
    assert cjk.ocr_languages("an English page") == "eng"


def test_languages_follow_the_text():
    assert cjk.has_cjk(TEXT) and cjk.has_cjk("v2 报告.pdf") and not cjk.has_cjk("report_v2.pdf")
    if "chi_sim" in cjk.tesseract_languages():
        assert cjk.ocr_languages(TEXT) == "chi_sim+eng" and cjk.ocr_languages("plain") == "eng"
        assert cjk.ocr_languages() == "eng+chi_sim"


@pytest.mark.parametrize("text", [TEXT * 4, "a plain English sentence that goes on for a while " * 3,
                                  "季度报告 quarterly revenue report：收入增长了 twelve percent 百分之十二 " * 3])
def test_wrapping_counts_a_chinese_character_as_two_columns_and_loses_nothing(text):
    lines = cjk.wrap(text, 30)
    assert all(cjk.width(line) <= 30 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    words = [w for line in lines for w in re.findall("[a-z]+", line)]
    assert words == re.findall("[a-z]+", text)  # no English word split across two lines


def test_a_line_is_cut_to_its_columns_not_its_characters():
    assert cjk.cut("报告abc", 5) == "报告a" and cjk.cut("report", 3) == "rep" and cjk.width("报告 ab") == 7


def test_a_pdf_embeds_the_small_subset_unless_a_character_needs_the_full_font_or_a_symbol_font():
    common, full = cjk.common_font(), cjk.cjk_font()
    assert cjk.pdf_fonts("季度报告 — Q3 review") == [common]
    assert "喆" not in "".join(map(chr, cjk.common_codepoints()))
    assert cjk.pdf_fonts("王喆的报告") == [full]  # a name outside GB 2312: never dropped for speed
    if cjk.symbol_font() is not None:
        assert cjk.pdf_fonts("• 报告") == [common, cjk.symbol_font()]  # WenQuanYi has no bullet


def test_a_document_beyond_latin1_keeps_its_bullets_dashes_and_chinese():
    from filegram_kit.traces.documents import text_of_bytes
    from filegram_kit.workspace.content import InputFile
    from filegram_kit.workspace.formats import render

    text = "王喆的季度报告\n## 议程 — Agenda\n- ━━ rule ━━\n• Risk: the vendor slipped\n"
    parsed = text_of_bytes(render(InputFile("r.pdf", "pdf", "王喆的季度报告", text, kind="report")), "pdf")
    assert "?" not in parsed and "王喆的季度报告" in parsed and "议程 — Agenda" in parsed and "━━ rule ━━" in parsed
    if cjk.symbol_font() is not None:
        assert "• Risk" in parsed


CUT_DOCUMENTS = ("季度报告 — Q3 review\n## 总结\n- 完成 • 进度 12%",  # the common subset and the symbol font
                 "王喆的报告\n## 鿏 元素\n内容 㐀 字",  # the full font (a name outside GB 2312), and a glyph it lacks
                 "Plain • bullets — dashes “quotes”\n## Heading\n- item",  # beyond Latin-1, no Chinese
                 "计划 📌 ✅ ⬜ 任务\n- 一 二 三",  # emoji no font here draws
                 "表格 | 数据 | 12.5\n## 标题 ─── ┃ ▶ →\n全角：ＡＢＣ１２３")


def test_a_pdf_is_the_same_bytes_whether_fpdf_loads_the_whole_font_or_a_cut(monkeypatch):
    """embedding_font's promise: the cut only saves time. Each document is rendered from the whole font, then from
    cuts grown in two orders (a cut made for it alone, and one that already holds other documents' glyphs)."""
    from filegram_kit.workspace.content import InputFile
    from filegram_kit.workspace.formats import render

    docs = [InputFile(f"d{n}.pdf", "pdf", text.split("\n")[0], text, kind="report")
            for n, text in enumerate(CUT_DOCUMENTS)]
    cutting = cjk.embedding_font
    monkeypatch.setattr(cjk._Cuts, "fonts", {})
    monkeypatch.setattr(cjk, "embedding_font", lambda path, text: path)
    whole = [render(doc) for doc in docs]
    monkeypatch.setattr(cjk, "embedding_font", cutting)
    for order in (range(len(docs)), reversed(range(len(docs)))):
        cjk._Cuts.fonts.clear()
        cut = {n: render(docs[n]) for n in order}
        assert [cut[n] for n in range(len(docs))] == whole
    grown = dict(cjk._Cuts.fonts)
    assert all(path.stat().st_size < main.stat().st_size / 10 for main, (_, path) in grown.items())  # a real cut
    assert cjk.embedding_font(cjk.common_font(), "总结 review") == grown[cjk.common_font()][1]  # covered: no new cut
