"""The multimodal setting: sections, every renderer's round trip through the shared parser, and the build."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from filegram_kit.cli import main
from filegram_kit.engine import build_corpus
from filegram_kit.multimodal import (
    MultimodalError,
    Section,
    build_multimodal,
    choose_format,
    loss_summary,
    measure,
    parse_files,
    parse_report,
    render_section,
    split_output,
)
from filegram_kit.multimodal.build import render_targets
from filegram_kit.multimodal.parse import tokens
from filegram_kit.multimodal.render import TABLE_FORMATS, TEXT_FORMATS, markup, narration_text
from filegram_kit.multimodal.sections import MAX_CHARS
from filegram_kit.traces.load import load_trajectories

pytestmark = pytest.mark.skipif(not (shutil.which("tesseract") and shutil.which("espeak-ng")),
                                reason="needs Debian's tesseract-ocr and espeak-ng (`make setup` installs them)")

PROSE = Section(0, "Quarterly review", "## Quarterly review\n\nRevenue grew twelve percent in the third quarter "
                "while costs fell.\n\n- Follow up with Alice Wong about the Orion merger\n- Archive the signed "
                "contracts before Friday\n\nThe board approved the budget for the new Jakarta office.\n")
TABLE_TEXT = "## Units by region\n\nIntro line about the regions.\n\n| Region | Units |\n|---|---|\n| North | 12 |\n" \
             "| South | 30 |\n| East | 7 |\n"
TABLE = split_output(TABLE_TEXT, "report.md")[0]


def _parsed(section: Section, fmt: str, **kw) -> str:
    return parse_files([(render_section(section, fmt), fmt)], **kw)[0]


@pytest.mark.parametrize(("fmt", "floor"), [("pdf", 0.95), ("docx", 0.95), ("pptx", 0.95), ("page.png", 0.8)])
def test_text_renders_give_their_words_back_through_the_parser(fmt, floor):
    view = _parsed(PROSE, fmt)
    loss = measure(PROSE, fmt, view)
    assert loss.recovered >= floor, (fmt, view)
    assert "orion" in view.lower() and "jakarta" in view.lower()


@pytest.mark.parametrize("fmt", ["docx", "pptx"])
def test_the_fast_office_writers_read_back_like_the_library_encoders(fmt):
    import docx
    import pptx

    from filegram_kit.multimodal.render import markup
    from filegram_kit.traces.documents import text_of_bytes
    from filegram_kit.workspace.content import InputFile
    from filegram_kit.workspace.formats import render

    section = Section(0, "Q3 <review> & plan", "## Q3 <review> & plan\n\nIntro.\n\n## Risks\n\n- churn & cost\n")
    ours = render_section(section, fmt)
    library = render(InputFile(f"x.{fmt}", fmt, section.title, markup(section)))
    assert text_of_bytes(ours, fmt) == text_of_bytes(library, fmt)
    opened = docx.Document(io.BytesIO(ours)) if fmt == "docx" else pptx.Presentation(io.BytesIO(ours))
    assert opened.core_properties.title == section.title
    assert render_section(section, fmt) == ours  # same bytes every time


def test_a_page_image_carries_no_text_of_its_own_only_ocr_recovers_it():
    from PIL import Image

    data = render_section(PROSE, "page.png")
    with Image.open(io.BytesIO(data)) as img:
        assert not (img.text or {}), "a page image with its text in the metadata would need no OCR"
    assert b"Jakarta" not in data


def test_ocr_reads_each_image_on_its_own_whatever_the_batch_and_repeats_once(monkeypatch):
    from filegram_kit.multimodal import parse

    pages = [render_section(PROSE, "page.png"), render_section(TABLE, "chart.png")]
    alone = [parse.ocr([page])[0] for page in pages]
    assert "jakarta" in alone[0].lower() and "north" in alone[1].lower()
    assert parse.ocr(pages[::-1]) == alone[::-1]  # a page's text does not depend on its neighbours
    read: list[int] = []
    real = parse._tesseract
    monkeypatch.setattr(parse, "_tesseract", lambda images: read.append(len(images)) or real(images))
    assert parse.ocr([pages[0], pages[1], pages[0], pages[0]]) == [alone[0], alone[1], alone[0], alone[0]]
    assert read == [2]  # one process, each distinct image once


def test_a_sheet_keeps_the_grid_and_the_notes_and_a_chart_its_labels():
    sheet = _parsed(TABLE, "xlsx")
    assert "North,12" in sheet and "South,30" in sheet and "Intro line about the regions." in sheet
    assert measure(TABLE, "xlsx", sheet).recovered == 1.0
    chart = _parsed(TABLE, "chart.png").lower()
    assert "units by region" in chart and "north" in chart and "south" in chart


def test_a_table_rendered_as_a_document_is_reported_flattened():
    view = _parsed(TABLE, "pdf")
    assert "North | 12" in view
    assert measure(TABLE, "pdf", view).table_flattened and not measure(TABLE, "xlsx", _parsed(TABLE, "xlsx")
                                                                       ).table_flattened


def test_narration_is_real_speech_that_offline_parsing_cannot_read():
    import av

    data = render_section(PROSE, "mp3")
    with av.open(io.BytesIO(data)) as container:
        seconds = container.duration / 1_000_000
        assert container.metadata.get("title") == "Quarterly review"
        samples = np.concatenate([f.to_ndarray().ravel() for f in container.decode(audio=0)])
    words = len(narration_text(PROSE).split())
    assert 0.15 * words < seconds < 1.0 * words  # spoken at about 220 words a minute, not a tone or silence
    assert np.abs(samples).max() > 0.05
    offline = _parsed(PROSE, "mp3")
    loss = measure(PROSE, "mp3", offline)
    assert loss.audio_without_transcript and loss.recovered < 0.3 and "Quarterly review" in offline
    heard = _parsed(PROSE, "mp3", transcribe=lambda _: narration_text(PROSE))
    assert measure(PROSE, "mp3", heard, transcribed=True).recovered > 0.6


ZH = Section(0, "资料梳理", "## 资料梳理\n\n本文档基于三份资料，对文件系统健康检查进行了系统的梳理与说明。\n\n"
             "- 整理归档目录结构\n- 删除过期的临时文件\n\n季度报告显示收入增长了百分之十二，成本有所下降。\n")
MIXED = Section(0, "Orion 项目周报", "## Orion 项目周报\n\n本周与 Alice Wong 确认了 Jakarta 办公室的预算。\n\n"
                "- Archive the signed contracts 已完成\n- 下周 Friday 前提交 quarterly review\n")
ZH_TABLE = split_output("## 各地区销量\n\n| 地区 | 销量 |\n|---|---|\n| 华北 | 12 |\n| 华南 | 30 |\n| 华东 | 7 |\n",
                        "report.md")[0]


def _han(text: str) -> list[str]:
    return [ch for ch in text if "\u4e00" <= ch <= "\u9fff"]


@pytest.mark.parametrize("section", [ZH, MIXED], ids=["chinese", "mixed"])
@pytest.mark.parametrize("fmt", ["pdf", "docx", "pptx"])
def test_chinese_and_mixed_text_survive_every_document_format(section, fmt):
    view = _parsed(section, fmt)
    assert measure(section, fmt, view).recovered >= 0.95, view
    assert "?" not in view  # a Latin-only font turned every Chinese character into "?"
    assert len(_han(view)) >= 0.95 * len(_han(markup(section)))


def test_a_chinese_table_survives_the_sheet_and_its_chart_is_labelled_in_chinese():
    assert measure(ZH_TABLE, "xlsx", _parsed(ZH_TABLE, "xlsx")).recovered >= 0.95
    chart = _parsed(ZH_TABLE, "chart.png")
    assert sum(label in chart for label in ("华北", "华南", "华东")) >= 2, chart


@pytest.mark.parametrize("section", [ZH, MIXED], ids=["chinese", "mixed"])
def test_ocr_reads_the_chinese_a_page_image_shows(section):
    view = _parsed(section, "page.png")
    assert measure(section, "page.png", view).recovered >= 0.8, view
    assert "本文档" in view or "项目周报" in view


def test_a_chinese_page_loses_no_more_than_an_english_one():
    """What the issue's done-when asks of every text format: Chinese loss within 10 points of English."""
    for fmt in ("pdf", "docx", "pptx", "page.png"):
        english, chinese = (measure(s, fmt, _parsed(s, fmt)).recovered for s in (PROSE, ZH))
        assert chinese >= english - 0.10, (fmt, english, chinese)


def test_chinese_characters_are_counted_apart_in_the_loss():
    loss = measure(MIXED, "pdf", "Orion 项目 Alice Wong 本周")
    assert loss.source_han == len(_han(markup(MIXED))) and loss.recovered_han == 4  # 项 目 本 周
    assert loss.recovered_words == loss.recovered_han + 3  # orion, alice, wong


def test_a_mostly_chinese_text_is_narrated_in_mandarin():
    from filegram_kit.util.cjk import language

    assert language(markup(ZH)) == "zh" and language(markup(PROSE)) == "en"
    assert language("a long English paragraph that quotes one name, 王芳, and goes on in English") == "en"


def test_sections_keep_every_word_and_stay_small():
    text = "# Title\n\nIntro.\n\n" + "".join(f"## Part {i}\n\n" + "word " * 60 + "\n\n" for i in range(8))
    sections = split_output(text, "notes.md")
    assert len(sections) >= 4
    assert sum((tokens(s.text) for s in sections), start=tokens("")) == tokens(text)
    assert all(len(s.text) <= MAX_CHARS + 80 for s in sections)
    assert [s.index for s in sections] == list(range(len(sections)))
    csv = split_output("name,qty\napple,3\npear,4\n", "data.csv")
    assert len(csv) == 1 and csv[0].rows == (("name", "qty"), ("apple", "3"), ("pear", "4"))


def test_format_choice_follows_the_content_and_the_seed():
    draws = [choose_format(PROSE, np.random.default_rng(s)) for s in range(200)]
    assert set(draws) == set(TEXT_FORMATS) and not {"xlsx", "chart.png"} & set(draws)
    assert {choose_format(TABLE, np.random.default_rng(s)) for s in range(200)} == set(TABLE_FORMATS)
    words = split_output("## Names\n\n| a | b |\n|---|---|\n| x | y |\n", "t.md")[0]
    assert "chart.png" not in {choose_format(words, np.random.default_rng(s)) for s in range(200)}  # no numbers
    assert draws == [choose_format(PROSE, np.random.default_rng(s)) for s in range(200)]


# -- the build -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def text_corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("text") / "corpus"
    build_corpus(out, profiles=["p1", "p3"], tasks=["T-12", "T-18"], workers=1, progress=False)
    return out


@pytest.fixture(scope="module")
def mm_corpus(text_corpus, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mm") / "corpus_multimodal"
    build_multimodal(text_corpus, out, seed=0, workers=1, progress=False)
    return out


def _files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_event_logs_are_byte_identical_and_only_media_changes(text_corpus, mm_corpus):
    for src in sorted((text_corpus / "signal").iterdir()):
        dest = mm_corpus / "signal" / src.name
        for name in ("events.json", "summary.json"):
            assert (dest / name).read_bytes() == (src / name).read_bytes()
    changed = {k for k, v in _files(text_corpus / "signal").items() if _files(mm_corpus / "signal").get(k) != v}
    assert changed and all("/media/" in k for k in changed)


def test_every_text_output_is_replaced_by_the_parse_of_its_renders(text_corpus, mm_corpus):
    report = parse_report(mm_corpus)
    for src in sorted((text_corpus / "signal").iterdir()):
        events = json.loads((src / "events.json").read_text(encoding="utf-8"))
        blobs, diffs = render_targets(events)
        manifest = json.loads((mm_corpus / "signal" / src.name / "media" / "manifest.json").read_text())
        assert manifest["setting"] == "multimodal"
        for digest in blobs:
            original = (src / "media" / "blobs" / f"{digest}.blob").read_text(encoding="utf-8")
            now = (mm_corpus / "signal" / src.name / "media" / "blobs" / f"{digest}.blob").read_text(encoding="utf-8")
            entry = manifest["entries"][digest]
            assert entry["rendered"] and now != original
            media = mm_corpus / "signal" / src.name / "media"
            files = [((media / r["path"]).read_bytes(), r["format"]) for r in entry["rendered"]]
            assert now == "\n".join(parse_files(files))
        assert set(report.filter(report["trajectory_id"] == src.name)["blob"]) == set(blobs)
        for digest in diffs:
            assert manifest["entries"][digest]["parsed_diff"]
    files = report.unique(["trajectory_id", "path"]).height
    assert report.height >= files >= 10 and loss_summary(report)["files"].sum() == files


def test_a_chinese_personas_rendered_documents_keep_their_chinese(text_corpus, mm_corpus):
    """p1 writes Chinese: no rendered document of hers may hold a "?" where its section had a Chinese character
    (what fpdf2's core font did to every one of them), and her sections lose about what English ones lose."""
    report = parse_report(mm_corpus).unique(["trajectory_id", "path"], keep="first", maintain_order=True)
    mine = report.filter(report["trajectory_id"].str.starts_with("p1_"))
    assert (mine["source_han"] > 0).mean() > 0.5  # her outputs hold Chinese (headings and notes at least)
    checked = 0
    for row in mine.filter(mine["format"].is_in(["pdf", "docx", "pptx", "xlsx"])).iter_rows(named=True):
        source = (text_corpus / "signal" / row["trajectory_id"] / "media" / "blobs" / f"{row['blob']}.blob")
        section = split_output(source.read_text(encoding="utf-8"), row["original_path"])[row["section"]]
        data = (mm_corpus / "signal" / row["trajectory_id"] / "media" / row["path"]).read_bytes()
        view = parse_files([(data, row["format"])])[0]
        han = len(_han(markup(section)))
        assert view.count("?") <= markup(section).count("?"), (row["path"], view[:200])
        assert len(_han(view)) >= 0.95 * han, (row["path"], view[:200])
        checked += han > 0
    assert checked >= 5
    for row in loss_summary(report).filter(pl.col("format").is_in(["pdf", "docx", "pptx", "page.png"])).iter_rows(
            named=True):
        if row["recovered_zh"] is not None:
            assert row["recovered_zh"] >= row["recovered_en"] - 0.10, row


def test_the_setting_loads_like_any_corpus_and_methods_read_the_parse(text_corpus, mm_corpus):
    text = {t.id: t for t in load_trajectories(text_corpus, progress=False)}
    trajs = load_trajectories(mm_corpus, progress=False)
    assert len(trajs) == len(text) == 4 and not trajs.quarantine
    rendered = kept = 0
    for traj in trajs:
        for event in traj.events:
            ref = event.fields.get("media_ref")
            if event.event_type != "file_write" or not ref:
                continue
            if str(event.fields["file_path"]).endswith((".md", ".txt", ".csv")):
                assert traj.content(ref) != text[traj.id].content(ref)
                rendered += 1
            else:  # drafts, code, snapshots: not rendered, unchanged
                assert traj.content(ref) == text[traj.id].content(ref)
                kept += 1
    assert rendered and kept


def test_the_build_is_deterministic_resumes_and_refuses_another_seed(text_corpus, mm_corpus, tmp_path):
    again = tmp_path / "again"
    build_multimodal(text_corpus, again, seed=0, workers=2, progress=False)
    assert _files(again) == _files(mm_corpus)
    victim = sorted((again / "signal").iterdir())[1]
    shutil.rmtree(victim)
    report = build_multimodal(text_corpus, again, seed=0, workers=1, progress=False)
    assert report.built == 1 and _files(again) == _files(mm_corpus)
    with pytest.raises(MultimodalError, match="another corpus, seed or renderer code"):
        build_multimodal(text_corpus, again, seed=1, workers=1, progress=False)
    manifest = json.loads((again / "corpus.json").read_text())
    manifest["render"]["code"] = "0" * 16  # as if an older renderer had built it
    (again / "corpus.json").write_text(json.dumps(manifest))
    with pytest.raises(MultimodalError, match="renderer code"):
        build_multimodal(text_corpus, again, seed=0, workers=1, progress=False)
    other = tmp_path / "seed1"
    build_multimodal(text_corpus, other, seed=1, workers=1, progress=False)
    assert parse_report(other)["format"].to_list() != parse_report(mm_corpus)["format"].to_list()
    with pytest.raises(MultimodalError, match="already the multimodal setting"):
        build_multimodal(mm_corpus, tmp_path / "twice", workers=1, progress=False)


def test_a_build_of_some_trajectories_renders_only_those_and_the_rest_later_gives_the_full_bytes(
        text_corpus, mm_corpus, tmp_path):
    names = sorted(d.name for d in (text_corpus / "signal").iterdir())
    part = tmp_path / "part"
    report = build_multimodal(text_corpus, part, seed=0, workers=1, progress=False, only=names[:1])
    assert sorted(d.name for d in (part / "signal").iterdir()) == names[:1]
    assert report.trajectories == report.built == 1
    assert set(parse_report(part)["trajectory_id"]) == {names[0]}
    rest = build_multimodal(text_corpus, part, seed=0, workers=1, progress=False)
    assert rest.built == len(names) - 1 and _files(part) == _files(mm_corpus)
    with pytest.raises(MultimodalError, match="no trajectory nobody_T-01 to render"):
        build_multimodal(text_corpus, part, seed=0, workers=1, progress=False, only=["nobody_T-01"])


def test_a_rendered_file_opens_beside_its_source_section(mm_corpus):
    from filegram_kit.multimodal import examples, open_rendered

    shown = examples(parse_report(mm_corpus), per_format=1)
    assert shown["format"].n_unique() == shown.height >= 4
    for row in shown.iter_rows(named=True):
        opened = open_rendered(mm_corpus, row)
        assert opened.loss.source_words == row["source_words"] and opened.loss.recovered_words == row["recovered_words"]
        assert row["title"] in opened.source


def test_cli_builds_the_setting_and_checks_its_arguments(text_corpus, tmp_path, capsys):
    out = tmp_path / "cli_mm"
    assert main(["corpus", "--setting", "multimodal", "--from", str(text_corpus), "--out", str(out),
                 "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "section renders" in printed and "of words recovered" in printed
    assert (out / "parse_report.csv").is_file()
    assert main(["corpus", "--from", str(text_corpus), "--out", str(tmp_path / "x")]) == 2
    assert "--setting multimodal" in capsys.readouterr().err


def test_bad_source_data_is_refused_naming_the_file_event_and_field(text_corpus, tmp_path):
    from filegram_kit.multimodal.build import render_targets

    events = [{"event_type": "file_write", "file_path": "out/a.md", "media_ref": {"type": "blob", "hash": 7}}]
    with pytest.raises(MultimodalError, match=r"x/events.json: event 0, field 'media_ref'"):
        render_targets(events, "x/events.json")
    broken = tmp_path / "broken"
    shutil.copytree(text_corpus, broken)
    victim = next(p for p in sorted((broken / "signal").glob("*/media/blobs/*.blob"))
                  if p.stem in render_targets(json.loads((p.parents[2] / "events.json").read_text()))[0])
    victim.unlink()
    with pytest.raises(MultimodalError, match=f"{victim.name}.*cannot be read"):
        build_multimodal(broken, tmp_path / "out", workers=1, progress=False)


def test_a_missing_system_tool_is_named_with_its_install_command(monkeypatch):
    import filegram_kit.multimodal.parse as parse_module
    import filegram_kit.multimodal.render as render_module
    from filegram_kit.multimodal import ParseError, RenderError

    monkeypatch.setattr(render_module.shutil, "which", lambda _: None)
    with pytest.raises(RenderError, match="apt-get install espeak-ng"):
        render_section(PROSE, "mp3")
    monkeypatch.setattr(parse_module.shutil, "which", lambda _: None)
    with pytest.raises(ParseError, match="apt-get install tesseract-ocr"):
        parse_files([(b"png", "page.png")])


def test_a_folder_of_trajectories_without_a_manifest_renders_too(text_corpus, tmp_path):
    foreign = tmp_path / "release"
    shutil.copytree(text_corpus / "signal", foreign / "signal")  # the official release has no corpus.json
    report = build_multimodal(foreign, tmp_path / "out", workers=1, progress=False)
    assert report.trajectories == 4 and report.report.height > 0
    assert json.loads((tmp_path / "out" / "corpus.json").read_text())["setting"] == "multimodal"
    with pytest.raises(MultimodalError, match="no signal/ folder"):
        build_multimodal(tmp_path / "nowhere", tmp_path / "out2", workers=1, progress=False)


def test_a_build_counts_the_characters_its_fonts_lack_instead_of_printing_a_line_per_pdf(caplog):
    """fpdf logs a line for each PDF whose fonts lack a character (📌 in a CJK-font document: ~54 lines per
    full build); inside MissingGlyphs the line is counted, and nothing reaches the log."""
    from filegram_kit.multimodal.build import MissingGlyphs, missing_glyphs_line

    section = Section(0, "周报 📌", "## 周报 📌\n\n本周完成了 📌 两项任务。\n\n- 下周 ✅ 继续\n")
    with caplog.at_level("WARNING", logger=MissingGlyphs.LOGGER), MissingGlyphs() as missing:
        render_section(section, "pdf")
        render_section(Section(1, "Plain", "## Plain\n\nNothing beyond Latin-1 here.\n"), "pdf")
    assert "missing the following glyphs" not in caplog.text
    assert missing.documents == 1 and "📌" in missing.characters
    assert "1 PDFs" in missing_glyphs_line(missing.documents, tuple(missing.characters))
    with caplog.at_level("WARNING", logger=MissingGlyphs.LOGGER):  # outside it, fpdf's own line is back
        render_section(section, "pdf")
    assert "missing the following glyphs" in caplog.text
