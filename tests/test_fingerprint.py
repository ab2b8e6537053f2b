"""The 17-D fingerprint (spec 8.1), z-scores and deviation (spec 8.2), on trajectories built by hand.

Every expected value below is worked out from the events in the test itself, never read off the code.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import polars as pl
import pytest

from filegram_kit.behaviour.fingerprint import (
    FEATURE_DEFINITIONS,
    FEATURE_DIMENSION,
    FEATURES,
    deviations,
    extended_features,
    fingerprint_frame,
    fingerprints,
    zscores,
)
from filegram_kit.cli import main
from filegram_kit.traces.frames import events_frame
from filegram_kit.traces.load import load_trajectories, save_trajectories
from tests.builders import browse, delete, edit, make, mkdir, move, read, search, write  # noqa: F401


def one(root: Path, specs, tid="p1_methodical_T-01") -> dict:
    return fingerprints(make(root, tid, specs)).row(0, named=True)


# -- the 17 features ---------------------------------------------------------------------------------------


def test_feature_keys_order_and_dimensions():
    assert FEATURES == ("search_ratio", "browse_ratio", "revisit_ratio", "avg_output_length", "files_created",
                        "total_output_chars", "dirs_created", "max_dir_depth", "files_moved", "total_edits",
                        "avg_lines_changed", "small_edit_ratio", "total_deletes", "delete_to_create",
                        "structured_files", "md_table_rows", "image_files")
    assert "".join(FEATURE_DIMENSION[k] for k in FEATURES) == "AAABBBCCCDDDEEFFF"
    assert all(d.source and d.computation and d.interpretation for d in FEATURE_DEFINITIONS.values())


def test_consumption_ratios(tmp_path):
    fp = one(tmp_path, [search(), search("q2"), read(), read("b.md", view=2), read("a.md", view=3), browse()])
    assert fp["search_ratio"] == round(2 / 6, 3)
    assert fp["browse_ratio"] == round(1 / 6, 3)
    assert fp["revisit_ratio"] == round(2 / 3, 3)


def test_production_counts_only_creates(tmp_path):
    fp = one(tmp_path, [write("a.md", length=100), write("b.md", length=250), write("c.md", length=31),
                        write("a.md", length=999, operation="overwrite"), edit("a.md", 40, 0)])
    assert (fp["files_created"], fp["total_output_chars"]) == (3, 381)
    assert fp["avg_output_length"] == 127.0


def test_organization(tmp_path):
    fp = one(tmp_path, [mkdir(1), mkdir(3, "a/b/c"), mkdir(2, "a/b"), move(), move("b.md", "x/b.md"),
                        ("file_rename", {"old_path": "c.md", "new_path": "d.md", "naming_pattern_change": "other"})])
    assert (fp["dirs_created"], fp["max_dir_depth"], fp["files_moved"]) == (3, 3, 2)


def test_edits_small_means_under_ten_lines(tmp_path):
    fp = one(tmp_path, [edit("a.md", 3, 2), edit("a.md", 10, 0), edit("a.md", 4, 5), edit("b.md", 20, 15)])
    assert fp["total_edits"] == 4
    assert fp["avg_lines_changed"] == (5 + 10 + 9 + 35) / 4
    assert fp["small_edit_ratio"] == 0.5  # 5 and 9 lines are small, 10 is not


def test_curation(tmp_path):
    fp = one(tmp_path, [write(f"f{i}.md", length=10) for i in range(4)] + [delete(), delete("b.bak")])
    assert (fp["total_deletes"], fp["delete_to_create"]) == (2, 0.5)


def test_extension_sets_are_the_spec_sets_case_insensitive(tmp_path):
    names = ["a.CSV", "b.json", "c.yml", "d.tsv", "e.Xlsx", "f.xml", "g.yaml", "x.PNG", "y.jpeg", "z.webp",
             "w.svg", "v.GIF", "u.jpg", "t.bmp", "data/csv", "notes.csv.md"]
    specs = [write(n, length=5) for n in names] + [write("o.csv", length=5, operation="overwrite"),
                                                   write("o.png", length=5, operation="overwrite")]
    fp = one(tmp_path, specs)
    assert fp["structured_files"] == 6  # CSV json tsv Xlsx xml yaml; not yml, not an overwrite
    assert fp["image_files"] == 5  # PNG jpeg svg GIF jpg; not webp or bmp


def test_md_table_rows_count_lines_of_created_files_only(tmp_path):
    report = ("# R\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"  # 3 table lines, separator included
              "|only one pipe\n  | indented | row |\ntext | with | pipes\n| last |")  # only "| last |" counts
    table = "| x | y |\n|---|---|\n"
    fp = one(tmp_path, [write("r.md", report), write("t.md", table, operation="overwrite"),
                        edit("r.md", 2, 0, text=report + "\n" + table)])
    assert fp["md_table_rows"] == 4


def test_zero_denominators_and_empty_trajectories(tmp_path):
    only_dir = make(tmp_path, "p1_methodical_T-01", [mkdir(2)])
    empty = make(tmp_path, "p1_methodical_T-02", [])
    fp = fingerprints([only_dir, empty])
    assert fp["trajectory_id"].to_list() == ["p1_methodical_T-01", "p1_methodical_T-02"]
    first, second = fp.row(0, named=True), fp.row(1, named=True)
    assert {k: first[k] for k in FEATURES} == {k: (1.0 if k == "dirs_created" else 2.0 if k == "max_dir_depth"
                                                    else 0.0) for k in FEATURES}
    assert all(second[k] == 0.0 for k in FEATURES) and second["profile_id"] == "p1_methodical"
    assert fp.schema["search_ratio"] == pl.Float64


def test_frame_and_trajectory_inputs_agree_and_rows_are_sorted(tmp_path):
    trajs = [make(tmp_path, "p2_thorough_reviser_T-03", [read(), search(), write("a.md", "| a |\n")]),
             make(tmp_path, "p1_methodical_T-09", [browse(), edit("a.md", 1, 1)])]
    frame = events_frame(trajs, with_content=True)
    by_trajs, by_frame = fingerprints(trajs), fingerprint_frame(frame)
    assert by_trajs.equals(by_frame) and fingerprints(frame).equals(by_frame)
    assert by_trajs["trajectory_id"].to_list() == ["p1_methodical_T-09", "p2_thorough_reviser_T-03"]
    assert by_trajs.columns == ["trajectory_id", "profile_id", "task_id", *FEATURES]
    assert fingerprints(trajs[0]).equals(by_trajs.slice(1, 1))


def test_frame_without_content_is_a_clear_error(tmp_path):
    frame = events_frame([make(tmp_path, "p1_methodical_T-01", [read()])])
    with pytest.raises(ValueError, match="content.*with_content=True"):
        fingerprint_frame(frame)


# -- extended features -------------------------------------------------------------------------------------


def test_extended_features_by_hand(tmp_path):
    final = "# Title\n## Part\n### Deep\n- one\n- two\n1. three\nA sentence here. Another one!\n| a | b |\n"
    specs = [read("a.md"), read("b.md"), read("a.md", view=2), browse(),
             write("2024-01-05_notes.md", "draft\n"), write("01_intro.csv", "x,y\n"),
             edit("2024-01-05_notes.md", 3, 1, text=final), edit("2024-01-05_notes.md", 1, 1, text=final),
             edit("01_intro.csv", 12, 0), write("01_intro.csv", "z\n", operation="overwrite"),
             ("file_copy", {"source_path": "a.md", "dest_path": "a.md.bak", "is_backup": True}),
             ("file_copy", {"source_path": "a.md", "dest_path": "copy.md", "is_backup": False}),
             ("context_switch", {"from_file": "a.md", "to_file": "b.md", "trigger": "file_read", "switch_count": 1})]
    ex = extended_features(make(tmp_path, "p1_methodical_T-01", specs)).row(0, named=True)
    assert (ex["total_reads"], ex["total_browses"], ex["unique_files_read"]) == (3, 1, 2)
    assert ex["read_ratio"] == 0.75 and ex["context_switch_rate"] == round(1 / 3, 3)
    assert ex["edits_per_file"] == 1.5 and ex["max_lines_changed"] == 12  # 3 edits over 2 files
    assert (ex["total_copies"], ex["backup_copies"], ex["has_backup_behavior"], ex["total_overwrites"]) == (2, 1, 1, 1)
    assert (ex["has_date_prefix"], ex["has_numeric_prefix"], ex["has_hyphens"], ex["has_underscores"]) == (1, 1, 1, 1)
    assert (ex["primary_files_created"], ex["supplementary_ratio"], ex["has_structured_data"]) == (1, 0.5, 1)
    # tone reads the last text of each file: the notes' final edit and the csv's overwrite ("z")
    assert (ex["heading_count"], ex["heading_max_depth"], ex["list_item_count"], ex["table_row_count"]) == (3, 3, 3, 1)
    assert ex["final_fs_max_depth"] is None and ex["total_iterations"] is None  # metadata events absent


def test_extended_features_read_metadata_when_present(tmp_path):
    specs = [("fs_snapshot", {"file_count_by_type": {}, "max_depth": 1, "total_files": 2}),
             ("iteration_end", {"iteration_number": 1, "duration_ms": 5, "tools_called": 3, "has_tool_error": True}),
             ("iteration_end", {"iteration_number": 2, "duration_ms": 5, "tools_called": 1, "has_tool_error": False}),
             ("fs_snapshot", {"file_count_by_type": {}, "max_depth": 4, "total_files": 3})]
    ex = extended_features(make(tmp_path, "p1_methodical_T-01", specs)).row(0, named=True)
    assert (ex["final_fs_max_depth"], ex["total_iterations"]) == (4, 2)
    assert (ex["avg_tools_per_iteration"], ex["iteration_error_rate"]) == (2.0, 0.5)


# -- z-scores and deviation ----------------------------------------------------------------------------------


def fp_frame(rows: list[dict], profile="p1") -> pl.DataFrame:
    """A fingerprint frame: given features, every other feature 0."""
    return pl.DataFrame([{"trajectory_id": f"{profile}_T-{i:02d}", "profile_id": profile, "task_id": f"T-{i:02d}",
                          **{k: float(r.get(k, 0.0)) for k in FEATURES}} for i, r in enumerate(rows)])


def test_zscores_sample_std_within_profile_and_zero_without_spread():
    fp = pl.concat([fp_frame([{"files_created": v, "total_edits": 5} for v in (1, 2, 3)], "p1"),
                    fp_frame([{"files_created": 7}], "p2")])
    z = zscores(fp)
    assert z["z_files_created"].to_list() == [-1.0, 0.0, 1.0, 0.0]  # mean 2, sample std 1; p2 has one session
    assert z["z_total_edits"].to_list() == [0.0] * 4  # std 0
    assert zscores(fp, by=None)["z_files_created"][3] == pytest.approx((7 - 13 / 4) / statistics.stdev([1, 2, 3, 7]))


def test_deviation_distance_threshold_and_largest_first_shift():
    fp = fp_frame([{"image_files": x, "search_ratio": y} for x, y in ((0, 0), (0, 1), (0, 0), (3, 1))])
    dev = deviations(fp)
    # image_files: mean .75, std 1.5 -> z of the last = 1.5; search_ratio: mean .5, std sqrt(1/3) -> z = sqrt(.75)
    assert dev["deviation"][3] == pytest.approx(math.sqrt(1.5 ** 2 + 0.75), abs=1e-6)
    assert dev["shifted_features"][3].to_list() == ["image_files", "search_ratio"]  # larger gap first
    values = dev["deviation"].to_list()
    assert dev["threshold"][0] == pytest.approx(statistics.mean(values) + 1.5 * statistics.stdev(values), abs=1e-6)
    assert dev["flagged"].to_list() == [v > dev["threshold"][0] for v in values]


def test_a_planted_outlier_is_flagged_and_its_features_named():
    planted = {"dirs_created", "total_deletes", "image_files"}
    rows = [{"files_created": 1 + i % 3, "total_output_chars": 100 * (1 + i % 2)} for i in range(8)]
    rows.append({"files_created": 2, "total_output_chars": 150, **dict.fromkeys(planted, 5)})
    dev = deviations(fp_frame(rows))
    assert dev["flagged"].to_list() == [False] * 8 + [True]
    assert dev["shifted_features"][8].to_list() == [k for k in FEATURES if k in planted]  # a tie: FEATURES order
    assert dev.columns == ["trajectory_id", "profile_id", "task_id", "deviation", "threshold", "flagged",
                           "shifted_features"]
    assert deviations(zscores(fp_frame(rows))).equals(dev)  # precomputed z-scores are reused, same result


def test_flagging_needs_min_sessions_and_spread():
    two = fp_frame([{"total_edits": 0}, {"total_edits": 9}], "p2")
    square = fp_frame([{"total_edits": a, "files_moved": b} for a, b in ((0, 0), (0, 1), (1, 0), (1, 1))], "p3")
    single = fp_frame([{"total_edits": 4}], "p4")
    dev = deviations(pl.concat([two, square, single]))
    assert not dev["flagged"].any()
    assert dev["threshold"][:2].is_null().all() and dev["threshold"][6] is None  # under 3 sessions
    assert dev["deviation"][2:6].n_unique() == 1  # every corner equally far: std of deviations 0
    assert dev["shifted_features"][6].to_list() == []  # one session: no gap to name
    lowered = deviations(pl.concat([two, square]), min_sessions=2, tau=-1.0)
    assert not lowered["flagged"][2:].any()  # even a negative tau flags nothing without spread


# -- CLI and the Table 6 artifact ------------------------------------------------------------------------------


def test_cli_prints_trajectory_id_and_the_17_columns(tmp_path, capsys):
    trajs = [make(tmp_path, "p1_methodical_T-01", [search(), read(), write("a.md", "| a |\n")]),
             make(tmp_path, "p4_structured_analyst_T-02", [browse(), mkdir(2)])]
    save_trajectories(trajs, tmp_path / "corpus", progress=False)
    assert main(["fingerprint", str(tmp_path / "corpus"), "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    assert printed.columns == ["trajectory_id", *FEATURES]
    expected = fingerprints(load_trajectories(tmp_path / "corpus", progress=False)).drop("profile_id", "task_id")
    assert printed.equals(expected)
    assert printed.row(0, named=True)["search_ratio"] == 0.5
    assert main(["fingerprint", str(tmp_path / "corpus"), "--out", str(tmp_path / "fp.md")]) == 0
    assert (tmp_path / "fp.md").read_text().startswith("| trajectory_id | search_ratio |")


def test_cli_folder_without_trajectories(tmp_path, capsys):
    assert main(["fingerprint", str(tmp_path)]) == 2
    assert "no trajectories found" in capsys.readouterr().err


def test_table06_means_per_tier_on_a_tiny_corpus(tmp_path):
    from filegram_kit.report.tables import table06_fingerprint

    # paper personas: p1 has A=L, p4 A=M, p5 A=R; p1's T-22 is perturbed to A=M
    runs = {"p1_methodical_T-01": [read(), read()],  # search_ratio 0
            "p1_methodical_T-22": [search(), read()],  # 0.5, counted under M
            "p4_structured_analyst_T-01": [search(), search(), read(), read()],  # 0.5
            "p5_balanced_organizer_T-01": [browse(), read(), read(), read()]}  # 0, browse 0.25
    save_trajectories([make(tmp_path, tid, specs) for tid, specs in runs.items()], tmp_path / "c", progress=False)
    (tmp_path / "c" / "perturbations.json").write_text(json.dumps([
        {"trajectory_id": "p1_methodical_T-22", "profile_id": "p1_methodical", "task_id": "T-22",
         "dimension": "A", "from_tier": "L", "to_tier": "M"}]))
    table = table06_fingerprint(corpus=tmp_path / "c")
    assert table["key"].to_list() == list(FEATURES)
    rows = {r["key"]: r for r in table.iter_rows(named=True)}
    assert (rows["search_ratio"]["mean_L"], rows["search_ratio"]["mean_M"], rows["search_ratio"]["mean_R"]) == \
        (0.0, 0.5, 0.0)
    assert rows["search_ratio"]["expected"] == "M > L" and rows["search_ratio"]["auc"] == 1.0
    assert rows["browse_ratio"]["mean_R"] == 0.25 and rows["browse_ratio"]["auc"] == 1.0  # R > L
    assert rows["search_ratio"]["group"] == "A Consumption Pattern"
