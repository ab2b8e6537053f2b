"""Task workspaces: Table 10 compositions, real openable files, determinism, the template cache, planted structure."""

from __future__ import annotations

import csv
import email
import email.policy
import hashlib
import json
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from filegram_kit.traces.documents import is_text_format, read_text
from filegram_kit.traces.tasks import get_task, load_tasks
from filegram_kit.workspace import build_workspace, ensure_template, plan_workspace

TASKS = load_tasks()


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files_under(root)}


def squash(text: str) -> str:
    return " ".join(text.replace("\r\n ", "").split())


@pytest.fixture(scope="module")
def all_built(tmp_path_factory) -> dict[str, Path]:
    """All 32 workspaces, built once for the module (seed 0)."""
    base = tmp_path_factory.mktemp("workspaces")
    roots = {}
    for tid, task in TASKS.items():
        roots[tid] = base / tid
        build_workspace(task, roots[tid])
    return roots


# -- composition and real formats -------------------------------------------------------------------------
def test_every_task_matches_table10_composition(all_built):
    total = 0
    for tid, task in TASKS.items():
        got = Counter(p.suffix[1:].lower() for p in files_under(all_built[tid]))
        assert got == Counter(task.input_files), tid
        total += sum(got.values())
    assert total == 578  # Table 10's "In" column


def _open_standard(path: Path) -> None:
    """Open a file with its format's usual reader and check it holds something."""
    ext, data = path.suffix[1:].lower(), path.read_bytes()
    if ext in ("png", "jpg", "jpeg", "gif"):
        from PIL import Image

        with Image.open(path) as img:
            img.verify()
        with Image.open(path) as img:
            assert img.format == {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG", "gif": "GIF"}[ext]
            assert img.size == (160, 120)
    elif ext == "pdf":
        from pypdf import PdfReader

        assert PdfReader(path).pages[0].extract_text().strip()
    elif ext == "docx":
        import docx

        assert any(p.text.strip() for p in docx.Document(path).paragraphs)
    elif ext == "xlsx":
        import openpyxl

        wb = openpyxl.load_workbook(path)
        assert sum(ws.max_row for ws in wb.worksheets) >= 3
    elif ext == "pptx":
        import pptx

        assert len(pptx.Presentation(path).slides) >= 2
    elif ext == "eml":
        msg = email.message_from_bytes(data, policy=email.policy.default)
        assert all(msg[h] for h in ("From", "To", "Subject", "Date", "Message-ID")) and not msg.defects
        assert msg.get_content().strip()
    elif ext == "ics":
        text = data.decode("utf-8")
        lines = text.split("\r\n")
        assert lines[0] == "BEGIN:VCALENDAR" and lines[-2] == "END:VCALENDAR" and "BEGIN:VEVENT" in lines
        assert text.count("BEGIN:VEVENT") == text.count("END:VEVENT") and max(len(x.encode()) for x in lines) <= 75
    elif ext == "csv":
        rows = list(csv.reader(data.decode("utf-8").splitlines()))
        assert len(rows) >= 3 and len({len(r) for r in rows}) == 1
    elif ext in ("mp3", "mp4", "mkv"):
        import av

        with av.open(str(path)) as container:
            assert container.duration and container.duration > 0
            if ext == "mp3":
                assert data[:3] == b"ID3" and container.streams.audio[0].codec_context.name.startswith("mp3")
            else:
                frame = next(container.decode(video=0))
                assert (frame.width, frame.height) == (64, 48)
    else:
        assert ext in ("md", "txt", "tmp", "bak") and data.decode("utf-8").strip()


def test_every_file_opens_in_its_standard_reader(all_built):
    seen = Counter()
    for tid in TASKS:
        for path in files_under(all_built[tid]):
            _open_standard(path)
            seen[path.suffix] += 1
    assert {".pdf", ".docx", ".xlsx", ".pptx", ".eml", ".ics", ".mp3", ".mp4", ".mkv", ".gif", ".jpeg"} <= set(seen)


def test_read_text_recovers_each_planned_title(all_built):
    for tid, task in TASKS.items():
        for f in plan_workspace(task):
            seen = squash(read_text(all_built[tid] / f.path))
            expected = f.text.splitlines()[0] if f.ext == "csv" else f.title  # CSV starts with its header row
            assert squash(expected) in seen, (tid, f.path)
            if f.ext in ("png", "jpg", "jpeg", "gif", "mp3", "mp4", "mkv"):
                assert squash(f.text)[:40] in seen, (tid, f.path)  # the caption / transcript too


# -- determinism ---------------------------------------------------------------------------------------------
def test_same_seed_gives_identical_bytes(tmp_path, all_built):
    for tid in ("T-02", "T-22", "T-26", "T-29"):
        build_workspace(get_task(tid), tmp_path / tid)
        assert digests(tmp_path / tid) == digests(all_built[tid]), tid


def test_bytes_do_not_depend_on_the_process(tmp_path, all_built):
    code = ("import sys; from filegram_kit.traces.tasks import get_task; "
            "from filegram_kit.workspace import build_workspace;"
            "build_workspace(get_task('T-32'), sys.argv[1])")
    env = {"PYTHONHASHSEED": "12345", "PATH": ""}
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "w")], check=True, env=env, timeout=120)
    assert digests(tmp_path / "w") == digests(all_built["T-32"])


def test_different_seed_gives_different_text():
    task = get_task("T-01")
    a, b = plan_workspace(task, seed=0), plan_workspace(task, seed=1)
    assert Counter(f.ext for f in a) == Counter(f.ext for f in b)
    texts_a, texts_b = {f.text for f in a}, {f.text for f in b}
    assert len(texts_a & texts_b) == 0
    assert plan_workspace(task, seed=1) == b


# -- building and the template cache ---------------------------------------------------------------------------
def test_build_refuses_a_non_empty_root_and_accepts_an_empty_one(tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not an empty directory"):
        build_workspace(get_task("T-09"), tmp_path / "busy")
    (tmp_path / "empty").mkdir()
    assert [p.name for p in build_workspace(get_task("T-09"), tmp_path / "empty")] == ["market_assessment_report.md"]


@pytest.mark.parametrize("tid", ["T-03", "T-04", "T-20"])
def test_tasks_without_inputs_get_an_empty_workspace(tmp_path, tid):
    assert plan_workspace(get_task(tid)) == []
    assert build_workspace(get_task(tid), tmp_path / tid) == [] and (tmp_path / tid).is_dir()


def test_ensure_template_builds_once_and_reuses(tmp_path):
    task = get_task("T-15")
    first = ensure_template(task, tmp_path)
    assert first == tmp_path / "0" / "T-15" and (tmp_path / "0" / "T-15.complete.json").is_file()
    assert sorted(p.relative_to(first).as_posix() for p in files_under(first)) == [f.path for f in plan_workspace(task)]
    inode = first.stat().st_ino
    assert ensure_template(task, tmp_path) == first and first.stat().st_ino == inode  # reused, not rebuilt
    assert [p.name for p in (tmp_path / "0").iterdir() if p.name.startswith(".T-15.build")] == []


def test_ensure_template_rebuilds_a_half_built_dir(tmp_path):
    task = get_task("T-13")
    half = tmp_path / "3" / "T-13"
    half.mkdir(parents=True)
    (half / "feedback_reviewer1.md").write_text("partial")
    out = ensure_template(task, tmp_path, seed=3)
    assert digests(out) == {f.path: hashlib.sha256(f.text.encode()).hexdigest() for f in plan_workspace(task, seed=3)}
    marker = tmp_path / "3" / "T-13.complete.json"
    info = json.loads(marker.read_text())
    info["generator_version"] = -1  # a template from an older generator is rebuilt too
    marker.write_text(json.dumps(info))
    (out / "original_report.md").write_text("stale")
    ensure_template(task, tmp_path, seed=3)
    assert read_text(out / "original_report.md") != "stale"


def test_ensure_template_is_safe_when_callers_race(tmp_path):
    task = get_task("T-28")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: ensure_template(task, tmp_path), range(4)))
    assert len(set(results)) == 1
    assert sorted(p.name for p in (tmp_path / "0").iterdir() if not p.name.startswith(".")) == [
        "T-28", "T-28.complete.json"]
    assert len(files_under(results[0])) == 18


# -- planted structure ---------------------------------------------------------------------------------------
def test_t21_has_identical_duplicates_under_other_names_and_temp_files(all_built):
    root = all_built["T-21"]
    by_hash: dict[str, list[str]] = {}
    for rel, digest in digests(root).items():
        by_hash.setdefault(digest, []).append(rel)
    groups = [names for names in by_hash.values() if len(names) > 1]
    assert len(groups) >= 8
    assert sum(len({n.rsplit("/", 1)[-1] for n in g}) > 1 for g in groups) >= 7  # same bytes, different names
    names = [p.name for p in files_under(root)]
    assert any(n.endswith(".tmp") for n in names) and any(n.endswith(".bak") for n in names)
    assert any("Untitled Document" in n for n in names)
    for f in plan_workspace(get_task("T-21")):
        for flag in f.flags:
            if flag.startswith("duplicate-of:"):
                assert (root / f.path).read_bytes() == (root / flag.split(":", 1)[1]).read_bytes()


def test_t18_and_t19_have_their_topic_folders(all_built):
    t18 = all_built["T-18"]
    for folder in ("case_law", "criminal_law", "court_procedures", "client_matters", "updates"):
        assert (t18 / folder).is_dir() and any((t18 / folder).iterdir()), folder
    assert sorted(p.name for p in (t18 / "updates").iterdir()) == ["batch_1.md", "batch_2.md", "batch_3.md"]
    index = read_text(t18 / "index.md")
    assert all(p.relative_to(t18).as_posix() in index for p in (t18 / "case_law").iterdir())
    t19 = all_built["T-19"]
    assert sorted(p.name for p in t19.iterdir()) == ["audio_memos", "case_reports", "client_communications",
                                                     "context", "legal_reference"]
    assert {p.suffix for p in (t19 / "case_reports").iterdir()} == {".docx"}


def test_t11_plants_five_cross_file_errors():
    files = plan_workspace(get_task("T-11"))
    planted = [(f, flag) for f in files for flag in f.flags if flag.startswith("planted-error:")]
    assert len(planted) == 5
    for f, flag in planted:
        wrong, right = flag.split(":", 2)[2].removesuffix(")").split(" (correct: ")
        assert wrong in f.text and any(right in g.text for g in files if g is not f)


def test_t32_has_duplicate_media_and_a_dangling_reference(all_built):
    root = all_built["T-32"]
    files = plan_workspace(get_task("T-32"))
    dups = [f for f in files if any(x.startswith("duplicate-of:") for x in f.flags)]
    assert {f.ext for f in dups} >= {"png", "mp3", "mp4"}
    missing = next(x.split(":", 1)[1] for f in files for x in f.flags if x.startswith("missing-reference:"))
    assert not (root / missing).exists()
    assert any(missing in read_text(p) for p in files_under(root) if p.suffix == ".docx")


def test_t09_is_one_long_report_and_t10_a_kb_without_the_new_modules():
    (report,) = plan_workspace(get_task("T-09"))
    assert 1500 <= len(report.text.split()) <= 2600
    kb = plan_workspace(get_task("T-10"))
    index = next(f for f in kb if f.path == "index.md")
    assert len(kb) == 5 and all(f.path in index.text for f in kb if f is not index)
    assert not any("RSI" in f.text or "Discounted Cash Flow" in f.text for f in kb)


# -- documents.read_text edge cases ------------------------------------------------------------------------
def test_read_text_headers_and_edge_cases(tmp_path, all_built):
    png = next(p for p in files_under(all_built["T-28"]) if p.suffix == ".png")
    assert read_text(png).startswith("[image png 160x120] Shadow")
    mp3 = next(p for p in files_under(all_built["T-30"]) if p.suffix == ".mp3")
    assert read_text(mp3).startswith("[audio mp3 ") and " s] " in read_text(mp3)
    mkv = next(p for p in files_under(all_built["T-26"]) if p.suffix == ".mkv")
    assert read_text(mkv).startswith("[video mkv 1.0 s]")
    (tmp_path / "blob.xyz").write_bytes(b"\x00\x01\x02" * 10)
    assert read_text(tmp_path / "blob.xyz") == "[binary xyz 30 bytes]"
    (tmp_path / "README").write_text("plain words")
    assert read_text(tmp_path / "README") == "plain words"
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    assert read_text(tmp_path / "broken.pdf").startswith("[unreadable pdf")
    with pytest.raises(FileNotFoundError):
        read_text(tmp_path / "missing.md")
    assert all(is_text_format(f"x.{e}") for e in ("md", "txt", "csv", "json", "eml", "ics", "tmp", "bak", "log"))
    assert not any(is_text_format(f"x.{e}") for e in ("pdf", "docx", "png", "mp3", "mp4"))
