"""Bench item files: our parquet round trip, the official bank's string forms, errors, counts, CLI and Figure 4.

Release-schema fixtures are written here by hand (all-string columns, spec 9.3), not by `to_frame`.
"""

import json
import re
import sys
import types

import polars as pl
import pytest

from filegram_kit.bench import FIELDS, SUB_TRACKS, Item
from filegram_kit.bench.items import (
    APART,
    ItemError,
    from_frame,
    item_files,
    load_items,
    paper_comparison,
    summary,
    to_frame,
    write_items,
)
from filegram_kit.cli import main


def item(qid: str, sub_track: str = "behavioral_inference", *, choices=("one", "two", "three", "four"),
         correct: str = "A", channel: str = "procedural", metadata=None, **kw) -> Item:
    track = SUB_TRACKS[sub_track][0] if sub_track in SUB_TRACKS else kw.pop("track", "T9_other")
    fields = dict(question_id=qid, track=track, sub_track=sub_track, sub_class=kw.pop("sub_class", ""),
                  channel=channel, profile_id="p3", input_trajectories=("p3_T-01", "p3_T-02"),
                  question=f"Question {qid}?", choices=tuple(choices), correct=correct, metadata=metadata or {})
    return Item(**{**fields, **kw})


ITEMS = [
    item("t1_0001", "attribute_recognition", choices=("lean", "moderate", "exhaustive"), correct="C",
         channel="semantic", sub_class="dimension", metadata={"dimension": "A", "tiers": ["L", "M", "R"]}),
    item("t1_0002", "profile_reconstruction", choices=(), correct="Reads widely before writing; ünïcode kept.",
         channel="semantic", metadata={"attributes": 16}),
    item("t3_0001", "anomaly_detection", choices=tuple(f"Session {x}" for x in "ABCDEF"), correct="F",
         channel="episodic", metadata={"impostor": "p7", "sessions": {"B": "p3_T-02", "A": "p3_T-01"}}),
    item("t2_0001", "trace_disentanglement", choices=("x", "y"), correct="B", input_trajectories=()),
]


def release_row(qid: str, **overrides) -> dict[str, str]:
    """One row as the official bank stores it: eleven strings."""
    row = {"question_id": qid, "track": "T2_reasoning", "sub_track": "behavioral_inference", "sub_class": "",
           "channel": "procedural", "profile_id": "p1", "input_trajectories": '["p1_methodical_T-05"]',
           "question": "What will p1 do?", "choices": '["read first", "write first", "skim", "ask"]',
           "correct": "A", "metadata": "{}"}
    return {**row, **overrides}


def write_release(path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pl.DataFrame(rows, schema=dict.fromkeys(rows[0], pl.String)).write_parquet(path)


# -- our files ----------------------------------------------------------------------------------------


def test_round_trip_through_parquet(tmp_path):
    path = write_items(ITEMS, tmp_path / "bench" / "items.parquet")
    assert load_items(path) == ITEMS
    assert sorted(p.name for p in path.parent.iterdir()) == ["items.parquet"]  # no temp file left behind


def test_release_schema_is_all_strings_with_sorted_json():
    frame = to_frame(ITEMS)
    assert frame.columns == list(FIELDS)
    assert set(frame.dtypes) == {pl.String}
    row = frame.row(2, named=True)
    assert row["metadata"] == '{"impostor": "p7", "sessions": {"A": "p3_T-01", "B": "p3_T-02"}}'
    assert json.loads(row["choices"]) == [f"Session {x}" for x in "ABCDEF"]
    assert frame.row(1, named=True)["choices"] == "[]"
    assert "ünïcode" in frame.row(1, named=True)["correct"]
    assert frame["question_id"].to_list() == [i.question_id for i in ITEMS]  # given order, not sorted


def test_rewrite_is_byte_identical(tmp_path):
    first = write_items(ITEMS, tmp_path / "a.parquet").read_bytes()
    write_items(list(ITEMS), tmp_path / "a.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == first
    assert write_items(ITEMS, tmp_path / "b.parquet").read_bytes() == first
    assert write_items(ITEMS[::-1], tmp_path / "c.parquet").read_bytes() != first  # order is part of the file


@pytest.mark.parametrize(("bad", "field", "reason"), [
    (item("q", correct="b"), "correct", "'b' would read back as 'B'"),
    (item("q", choices=("A. yes", "B. no"), correct="A"), "choices", "would read back as ('yes', 'no')"),
    (item("q", correct="E"), "correct", "'E' is not one of the 4 options"),
    (item("q", metadata={"when": {1, 2}}), "metadata", "not JSON-encodable"),
])
def test_write_refuses_items_that_would_not_read_back(tmp_path, bad, field, reason):
    path = write_items(ITEMS, tmp_path / "items.parquet")
    before = path.read_bytes()
    with pytest.raises(ItemError, match=rf"row 4 \(question_id 'q'\): field '{field}': .*{re.escape(reason)}"):
        write_items([*ITEMS, bad], path)
    assert path.read_bytes() == before  # the old file is untouched


# -- the official bank's forms ------------------------------------------------------------------------


ODD_ROWS = [
    release_row("r0", choices="['read first', 'write first', 'skim']", correct="(B)",
                input_trajectories="p1_methodical_T-05, p1_methodical_T-06 ,p1_methodical_T-07"),
    release_row("r1", choices="A. read first\nB. write first\n\nC) skim\n(D) ask", correct="3",
                input_trajectories="p1_methodical_T-05"),
    release_row("r2", correct="  Write First ", metadata='{"z": 1, "a": "ü"}', track="T2", sub_track="BehavInf"),
    release_row("r3", correct="d.", input_trajectories="['p1_methodical_T-05', 'p1_methodical_T-09']"),
    release_row("r4", correct="C) skim", choices='["A. read first", "B. write first", "C. skim"]'),
    release_row("r5", choices="", correct="Reads everything first.", sub_track="profile_reconstruction",
                metadata="", input_trajectories=""),
    release_row("r6", correct="4"),
]


def test_release_forms_load_and_normalise(tmp_path):
    write_release(tmp_path / "bank.parquet", ODD_ROWS)
    items = {i.question_id: i for i in load_items(tmp_path / "bank.parquet")}
    assert list(items) == [f"r{i}" for i in range(7)]
    assert items["r0"].choices == ("read first", "write first", "skim") and items["r0"].correct == "B"
    assert items["r0"].input_trajectories == ("p1_methodical_T-05", "p1_methodical_T-06", "p1_methodical_T-07")
    assert items["r1"].choices == ("read first", "write first", "skim", "ask")
    assert items["r1"].correct == "C"  # "3" is 1-based: no row of this file answers "0"
    assert items["r1"].input_trajectories == ("p1_methodical_T-05",)
    assert items["r2"].correct == "B" and items["r2"].metadata == {"a": "ü", "z": 1}
    assert (items["r2"].track, items["r2"].sub_track) == ("T2", "BehavInf")  # other spellings kept as they are
    assert items["r3"].correct == "D" and items["r3"].input_trajectories[1] == "p1_methodical_T-09"
    assert items["r4"].choices == ("read first", "write first", "skim") and items["r4"].correct == "C"
    assert not items["r5"].is_mcq and items["r5"].correct == "Reads everything first."
    assert items["r5"].metadata == {} and items["r5"].input_trajectories == ()
    assert items["r6"].correct == "D"


def test_an_index_of_zero_makes_the_file_zero_based(tmp_path):
    write_release(tmp_path / "bank.parquet", [release_row("a", correct="0"), release_row("b", correct="3")])
    assert [i.correct for i in load_items(tmp_path / "bank.parquet")] == ["A", "D"]
    write_release(tmp_path / "bad.parquet", [release_row("a", correct="0"), release_row("b", correct="4")])
    with pytest.raises(ItemError, match=r"row 1 \(question_id 'b'\): field 'correct': index '4' is not one of the "
                                        r"4 options \(indices are 0-based in this file\)"):
        load_items(tmp_path / "bad.parquet")


def test_numeric_options_are_read_as_text_unless_the_file_answers_by_index(tmp_path):
    numeric = '["2", "3", "4"]'
    write_release(tmp_path / "text.parquet", [release_row("a", choices=numeric, correct="3")])
    assert load_items(tmp_path / "text.parquet")[0].correct == "B"  # the option "3"
    write_release(tmp_path / "index.parquet", [release_row("a", choices=numeric, correct="3"),
                                               release_row("b", correct="1")])
    assert [i.correct for i in load_items(tmp_path / "index.parquet")] == ["C", "A"]  # 1-based indices


def test_a_folder_of_splits_and_jsonl(tmp_path):
    bank = tmp_path / "bank"
    write_release(bank / "data" / "T2_reasoning.parquet", [release_row("t2_1")])
    write_release(bank / "data" / "T1_understanding.parquet", [release_row("t1_1", track="T1_understanding")])
    (bank / ".cache").mkdir()
    (bank / ".cache" / "junk.jsonl").write_text("not json\n")
    assert [i.question_id for i in load_items(bank)] == ["t1_1", "t2_1"]  # file name order, hidden folders skipped
    write_release(bank / "data" / "all-00000-of-00001.parquet", [release_row("t1_1"), release_row("t2_1")])
    assert [p.name for p in item_files(bank)] == ["all-00000-of-00001.parquet"]  # the `all` split alone
    lines = [json.dumps(release_row("j1", extra_note="kept")), "",
             json.dumps({**release_row("j2"), "choices": ["a", "b"], "correct": 1, "metadata": {"k": [1]}})]
    (tmp_path / "bank.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    j1, j2 = load_items(tmp_path / "bank.jsonl")
    assert j1.metadata == {"extra_note": "kept"}  # a column beyond the eleven is kept, not dropped
    assert (j2.choices, j2.correct, j2.metadata) == (("a", "b"), "A", {"k": [1]})


# -- errors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("override", "message"), [
    ({"correct": "E"}, r"row 1 \(question_id 'q1'\): field 'correct': 'E' is not one of the 4 options"),
    ({"correct": "9"}, r"row 1 \(question_id 'q1'\): field 'correct': index '9' is not one of the 4 options"),
    ({"correct": "run away"}, r"field 'correct': 'run away' is neither an option letter \(A-D\)"),
    ({"correct": ""}, r"field 'correct': empty answer"),
    ({"choices": "", "correct": " "}, r"field 'correct': empty reference answer of a free-form item"),
    ({"choices": "['a', 'b'"}, r"row 1 \(question_id 'q1'\): field 'choices': .* neither JSON nor a Python literal"),
    ({"choices": "only one"}, r"field 'choices': one option only"),
    ({"choices": '["a", null]'}, r"field 'choices': expected a list of strings"),
    ({"metadata": "[1, 2]"}, r"row 1 \(question_id 'q1'\): field 'metadata': expected a JSON object"),
    ({"input_trajectories": '{"a": 1}'}, r"field 'input_trajectories': expected a list of trajectory ids"),
    ({"input_trajectories": '["a", ["b"]]'}, r"field 'input_trajectories': expected a list of strings"),
    ({"question": "  "}, r"row 1 \(question_id 'q1'\): field 'question': empty question"),
    ({"question_id": " "}, r"bank.parquet: row 1: field 'question_id': empty question_id"),
])
def test_malformed_rows_name_file_row_and_field(tmp_path, override, message):
    write_release(tmp_path / "bank.parquet", [release_row("q0"), release_row("q1", **override)])
    with pytest.raises(ItemError, match=message) as info:
        load_items(tmp_path / "bank.parquet")
    assert info.value.row == 1 and str(info.value).startswith(str(tmp_path / "bank.parquet"))


def test_duplicate_ids_name_both_rows(tmp_path):
    write_release(tmp_path / "bank.parquet", [release_row("q0"), release_row("q1"), release_row("q0")])
    with pytest.raises(ItemError, match=r"row 2 \(question_id 'q0'\): field 'question_id': duplicate question_id "
                                        r"\(first at .*bank.parquet: row 0\)"):
        load_items(tmp_path / "bank.parquet")
    write_release(tmp_path / "split" / "T1.parquet", [release_row("q0")])
    write_release(tmp_path / "split" / "T2.parquet", [release_row("q1"), release_row("q0")])
    with pytest.raises(ItemError, match=r"T2.parquet: row 1 .*first at .*T1.parquet: row 0"):
        load_items(tmp_path / "split")


def test_missing_columns_are_named(tmp_path):
    rows = [{k: v for k, v in release_row("q0").items() if k not in ("channel", "metadata")}]
    write_release(tmp_path / "bank.parquet", rows)
    with pytest.raises(ItemError, match=r"bank.parquet: missing columns \['channel', 'metadata'\]"):
        load_items(tmp_path / "bank.parquet")
    with pytest.raises(ItemError, match=r"<frame>: missing columns \['channel', 'metadata'\]"):
        from_frame(pl.DataFrame(rows))
    (tmp_path / "bank.jsonl").write_text(json.dumps(rows[0]) + "\n")
    with pytest.raises(ItemError, match=r"bank.jsonl: row 0: field 'channel': missing fields \['channel', 'meta"):
        load_items(tmp_path / "bank.jsonl")


def test_unreadable_inputs(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.parquet: no such file"):
        load_items(tmp_path / "nowhere.parquet")
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(ItemError, match="broken.parquet: not a readable parquet file"):
        load_items(tmp_path / "broken.parquet")
    (tmp_path / "bank.jsonl").write_text(json.dumps(release_row("a")) + "\n{oops\n")
    with pytest.raises(ItemError, match=r"bank.jsonl: row 1: not valid JSON"):
        load_items(tmp_path / "bank.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ItemError, match="no item files"):
        load_items(tmp_path / "empty")


# -- counts -------------------------------------------------------------------------------------------


def balanced() -> list[Item]:
    out = [item(f"bi{i}", correct="ABCD"[i % 4]) for i in range(8)]  # 2 of each letter
    out += [item(f"sa{i}", "shift_analysis", choices=("x", "y", "z"), correct="AAB"[i], channel="episodic")
            for i in range(3)]
    out += [item("sa6", "shift_analysis", choices=tuple("uvwxyz"), correct="F", channel="episodic")]
    out += [item("pr0", "profile_reconstruction", choices=(), correct="text", channel="semantic")]
    return out


def test_summary_counts_and_answer_positions():
    frame = summary(balanced())
    assert frame.columns == ["track", "sub_track", "channel", "options", "items", *"ABCDEF"]
    rows = {(r["sub_track"], r["options"]): r for r in frame.iter_rows(named=True)}
    assert [k for k in rows] == [("profile_reconstruction", 0), ("behavioral_inference", 4), ("shift_analysis", 3),
                                 ("shift_analysis", 6)]  # paper order
    assert rows["behavioral_inference", 4]["items"] == 8
    assert [rows["behavioral_inference", 4][x] for x in "ABCDEF"] == [0.25, 0.25, 0.25, 0.25, 0.0, 0.0]
    assert [rows["shift_analysis", 3][x] for x in "ABC"] == pytest.approx([2 / 3, 1 / 3, 0.0])
    assert rows["profile_reconstruction", 0]["A"] is None  # free-form: no answer position
    per_sub = summary(balanced(), by=["sub_track"])
    shift = per_sub.filter(pl.col("sub_track") == "shift_analysis").row(0, named=True)
    assert shift["items"] == 4 and (shift["A"], shift["B"], shift["F"]) == (0.5, 0.25, 0.25)
    assert summary([]).height == 0


def test_paper_comparison_marks_track4_and_keeps_other_sub_tracks():
    frame = paper_comparison([*balanced(), item("x1", "impersonation", track="T3_detection")])
    rows = {r["sub_track"]: r for r in frame.iter_rows(named=True)}
    assert rows["behavioral_inference"]["ours"] == 8 and rows["behavioral_inference"]["paper_count"] == 560
    assert rows["anomaly_detection"]["ours"] == 0
    assert rows["file_grounding"]["ours"] is None and rows["file_grounding"]["note"] == APART
    with_t4 = paper_comparison([*balanced(), item("f1", "file_grounding")])
    t4 = {r["sub_track"]: r for r in with_t4.iter_rows(named=True)}
    assert (t4["file_grounding"]["ours"], t4["file_grounding"]["note"]) == (1, "")
    assert t4["visual_grounding"]["ours"] is None  # a Track 4 sub-task absent from the items stays marked
    assert rows["impersonation"]["paper_count"] is None and rows["impersonation"]["track"] == "T3_detection"
    assert frame["paper_count"].sum() == 4653


# -- CLI ----------------------------------------------------------------------------------------------


def test_cli_show_and_summary(tmp_path, capsys):
    path = write_items(ITEMS, tmp_path / "items.parquet")
    assert main(["bench", "show", str(path), "--sub-track", "anomaly_detection"]) == 0
    out = capsys.readouterr().out
    assert "[t3_0001] T3_detection / anomaly_detection" in out
    assert "A. Session A\n" in out and "F. Session F\ncorrect: F" in out
    assert main(["bench", "show", str(path), "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "t1_0001" in out and "t1_0002" not in out and "(3 more; raise --limit)" in out
    assert main(["bench", "show", str(path), "--sub-track", "profile_reconstruction"]) == 0
    assert "reference answer: Reads widely" in capsys.readouterr().out
    assert main(["bench", "summary", str(path), "--format", "csv"]) == 0
    frame = pl.read_csv(capsys.readouterr().out.encode())
    assert frame["items"].sum() == len(ITEMS) and frame.height == 4


def test_cli_errors_exit_2(tmp_path, capsys):
    assert main(["bench", "summary", str(tmp_path / "missing.parquet")]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    write_release(tmp_path / "bank.parquet", [release_row("q0", correct="E")])
    assert main(["bench", "show", str(tmp_path / "bank.parquet")]) == 2
    assert "row 0 (question_id 'q0'): field 'correct': 'E' is not one of the 4 options" in capsys.readouterr().err
    path = write_items(ITEMS, tmp_path / "items.parquet")
    assert main(["bench", "show", str(path), "--sub-track", "nope"]) == 2
    assert "no items with sub_track 'nope'" in capsys.readouterr().err


@pytest.fixture
def fake_generator(monkeypatch):
    """`filegram_kit.bench.generate` replaced by a module whose build_items returns `balanced()`."""
    calls = []

    def build_items(corpus, *, seed=0, progress=None):
        calls.append((str(corpus), seed))
        return balanced()

    def build_items_with_report(corpus, *, seed=0, progress=None):
        return build_items(corpus, seed=seed, progress=progress), []

    module = types.ModuleType("filegram_kit.bench.generate")
    module.build_items = build_items
    module.build_items_with_report = build_items_with_report
    monkeypatch.setitem(sys.modules, "filegram_kit.bench.generate", module)
    return calls


def test_cli_build_writes_items_and_compares_with_the_paper(tmp_path, capsys, fake_generator):
    (tmp_path / "corpus").mkdir()
    out = tmp_path / "items.parquet"
    assert main(["bench", "build", "--corpus", str(tmp_path / "corpus"), "--out", str(out), "--seed", "3",
                 "--no-audit"]) == 0
    assert fake_generator == [(str(tmp_path / "corpus"), 3)]
    assert load_items(out) == balanced()
    printed = capsys.readouterr().out
    assert "| T2_reasoning | BehavInf | behavioral_inference | 8 | 560 |" in printed
    assert f"wrote 13 items to {out}" in printed
    assert main(["bench", "build", "--corpus", str(tmp_path / "nope"), "--out", str(out)]) == 2
    assert "no such corpus folder" in capsys.readouterr().err


def test_figure04_draws_ours_against_the_paper(tmp_path, fake_generator, monkeypatch):
    from filegram_kit.bench import track4
    from filegram_kit.report import ARTIFACTS
    from filegram_kit.report.bench_figures import figure04_qa_distribution

    monkeypatch.setattr(track4, "track4_items", lambda corpus, seed=0: [item("f1", "file_grounding")])
    assert ARTIFACTS["figure04_qa_distribution"].corpus and ARTIFACTS["figure04_qa_distribution"].figure
    result = figure04_qa_distribution(tmp_path)
    assert fake_generator == [(str(tmp_path), 0)]
    data = result.data
    assert data.columns[:2] == ["track", "sub_track"] and {"paper_count", "ours"} <= set(data.columns)
    assert dict(data.select("sub_track", "ours").iter_rows()) == {
        "attribute_recognition": 0, "behavioral_fingerprint": 0, "profile_reconstruction": 1,
        "behavioral_inference": 8, "trace_disentanglement": 0, "anomaly_detection": 0, "shift_analysis": 4,
        "file_grounding": 1, "visual_grounding": None}
    paper, ours = result.figure.data
    assert list(paper.x) == data["paper_count"].to_list()
    assert list(ours.x) == [n or 0 for n in data["ours"].to_list()]
    assert list(ours.text[-2:]) == ["1", APART]
    assert "ours 14 (tracks 1-4) vs paper 4,653" in result.figure.layout.title.text
