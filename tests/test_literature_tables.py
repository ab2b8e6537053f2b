"""Tables 1, 4 and 7: the paper's rows as printed (checked against spec values typed here), and our rows
checked against what the code really does."""

from pathlib import Path

import polars as pl
import pytest

from filegram_kit.bench.schema import SUB_TRACKS
from filegram_kit.report import ARTIFACTS, literature_tables, reproduce
from filegram_kit.report.baseline_tables import typed_tasks
from filegram_kit.report.literature_tables import (
    LiteratureError,
    differences,
    table01_benchmarks,
    table04_memory_frameworks,
    table07_dimension_derivation,
)
from filegram_kit.util import code_closure

ROOT = Path(__file__).resolve().parents[1]
OURS = "this workbench"


def row(frame: pl.DataFrame, column: str, startswith: str) -> dict:
    found = frame.filter(pl.col(column).str.starts_with(startswith))
    assert found.height == 1, startswith
    return found.row(0, named=True)


def test_table01_has_the_papers_rows_and_ours_flagged():
    t1 = table01_benchmarks()
    assert t1.filter(pl.col("source") == "paper").height == 16  # 15 benchmarks + the paper's FileGramBench
    assert t1.filter(pl.col("source") == OURS)["Benchmark"].to_list() == ["filegram_kit FileGramBench (this workbench)"]
    assert t1.columns == ["Benchmark", "Type", "#QA", "MS", "MM", "UP", "Me", "FR", "Re", "KM", "Pe", "source"]
    paper_fgb = row(t1, "Benchmark", "FileGramBench (")
    assert paper_fgb["#QA"] == "4.6K" and paper_fgb["Type"] == "File" and paper_fgb["source"] == "paper"
    assert all(paper_fgb[c] is True for c in ("MS", "MM", "UP", "Me", "FR", "Re", "KM", "Pe"))
    longmem = row(t1, "Benchmark", "LongMemEval")
    assert (longmem["#QA"], longmem["Re"], longmem["Pe"], longmem["UP"]) == ("500", True, False, True)
    osworld = row(t1, "Benchmark", "OSWorld")
    assert (osworld["Type"], osworld["MM"], osworld["Me"], osworld["MS"]) == ("GUI", True, False, False)
    assert row(t1, "Benchmark", "MMRC")["#QA"] == "28.7K"


def test_table01_our_row_matches_the_bench_code():
    ours = row(table01_benchmarks(), "Benchmark", "filegram_kit")
    multimodal_built = any(track == "T4_multimodal" for track, *_ in SUB_TRACKS.values())
    assert multimodal_built and ours["MM"] is True  # Track 4 is among the built sub-tasks
    committed = pl.read_csv(ROOT / "figures" / "figure04_qa_distribution.csv")
    built = int(committed["ours"].sum())
    assert built == sum(count for _, _, count, _ in SUB_TRACKS.values())  # every sub-task reached its target
    assert ours["#QA"] == f"{built / 1000:.1f}K"
    assert {d["column"] for d in differences("table01_benchmarks")} == {"#QA"}  # 4.7K: the paper prints 4.6K


def test_table04_has_the_papers_rows_and_ours_flagged():
    t4 = table04_memory_frameworks()
    assert t4.height == 18 and t4.filter(pl.col("source") == OURS).height == 1
    memp = row(t4, "System", "Memp")
    assert (memp["Src."], memp["Proc."], memp["Sem."], memp["Epi."]) == ("Trajectory", "✓", False, "✗")
    assert row(t4, "System", "MemGPT")["Epi."] == "partial"
    assert row(t4, "System", "VimRAG")["Cons."] == "partial"
    assert row(t4, "System", "EventMemAgent")["Proc."] == "partial"
    paper_fos = row(t4, "System", "FileGramOS (FileGram")
    assert (paper_fos["Src."], paper_fos["MM"], paper_fos["Str."]) == ("File Sys.", True, "Hier.")


def test_table04_our_row_matches_the_filegramos_code():
    from filegram_kit.memory.filegramos.retrieve import CHANNELS

    ours = row(table04_memory_frameworks(), "System", "FileGramOS (this")
    assert ours["source"] == OURS
    reads_images = "embed_image" in typed_tasks("filegram_kit.memory.filegramos")
    assert ours["MM"] is reads_images is False
    columns = {"procedural": "Proc.", "semantic": "Sem.", "episodic": "Epi."}
    assert all(ours[columns[c]] in (True, "✓") for c in CHANNELS)
    assert [d["column"] for d in differences("table04_memory_frameworks")] == ["MM"]


@pytest.mark.parametrize("name", ["table01_benchmarks", "table04_memory_frameworks"])
def test_every_difference_from_the_papers_row_is_explained_in_the_note(name):
    diffs = differences(name)
    assert diffs and all(d["why"] for d in diffs)
    for d in diffs:
        assert f"{d['column']} ({d['ours']} here, {d['paper']} in the paper)" in ARTIFACTS[name].note


def test_table07_is_seven_use_cases_by_six_dimensions():
    t7 = table07_dimension_derivation()
    dims = ["A: Consump.", "B: Product.", "C: Organiz.", "D: Iteration", "E: Curation", "F: Cross-M."]
    assert t7.height == 7 and t7.columns[1:7] == dims
    assert t7["Use case"].to_list()[0] == "UC1 Proactive" and t7["Use case"].to_list()[-1] == "UC7 Delegation"
    blanks = {(r["Use case"], d) for r in t7.iter_rows(named=True) for d in dims if r[d] == "-"}
    assert blanks == {("UC1 Proactive", "D: Iteration"), ("UC2 Defaults", "E: Curation"),
                      *(("UC3 Smart Org.", d) for d in (dims[0], dims[1], dims[3], dims[5])),
                      ("UC4 Recovery", "E: Curation"), ("UC4 Recovery", "F: Cross-M."), ("UC6 Conflict", "F: Cross-M.")}
    assert row(t7, "Use case", "UC3")["C: Organiz."] == "Maintain hierarchy"


def test_table07_names_only_real_sub_tasks():
    t7 = table07_dimension_derivation()
    abbrs = {abbr for _, abbr, _, _ in SUB_TRACKS.values()}
    named = {a for cell in t7["exercised here by"] if cell != "-" for a in cell.split(", ")}
    assert named and named <= abbrs
    assert row(t7, "Use case", "UC6")["exercised here by"] == "AnomDet, ShiftAna"
    assert all(t7["why (this workbench)"].str.len_chars() > 0)


def test_a_row_missing_a_field_is_a_clear_error(monkeypatch):
    broken = {"table01_benchmarks": {"columns": ["Benchmark", "MM"], "paper": [{"Benchmark": "X"}], "ours": []}}
    monkeypatch.setattr(literature_tables, "literature", lambda: broken)
    with pytest.raises(LiteratureError, match=r"table01_benchmarks: paper row 0 \('X'\): missing field\(s\) \['MM'\]"):
        literature_tables.comparison_frame("table01_benchmarks")


def test_a_use_case_naming_an_unknown_sub_task_is_a_clear_error(monkeypatch):
    data = {"table07_dimension_derivation": {"bench_sub_tasks": {"UC9": {"sub_tracks": ["mind_reading"],
                                                                         "why": ""}}}}
    monkeypatch.setattr(literature_tables, "literature", lambda: data)
    with pytest.raises(LiteratureError, match="mind_reading"):
        literature_tables.exercised_by("UC9")


def test_reproduce_writes_the_marks(tmp_path):
    reproduce(tmp_path, only=["table01_benchmarks", "table04_memory_frameworks"], progress=False)
    t1 = pl.read_csv(tmp_path / "table01_benchmarks.csv")
    assert t1.filter(pl.col("source") == OURS)["MM"].to_list() == [True]
    md = (tmp_path / "table04_memory_frameworks.md").read_text(encoding="utf-8")
    assert "| FileGramOS (this reimplementation) | File Sys. | ✗ | Hier. | ✓ | ✓ | ✓ | ✓ | this workbench |" in md


def test_literature_data_is_not_an_engine_input():
    """The engine fingerprints data/*.json; a file there that it never reads would mark every corpus stale."""
    from filegram_kit.engine import corpus

    path = (Path(literature_tables.__file__).parents[1] / "data" / literature_tables.DATA_DIR /
            literature_tables.DATA_FILE).resolve()
    assert path.is_file()
    fingerprinted = {p.resolve() for pattern in corpus.FINGERPRINT_SOURCES for p in code_closure.PACKAGE.glob(pattern)}
    assert path not in fingerprinted
