"""Every tool -> event rule of the recorder (spec 4.3), on a small real sandbox."""

from __future__ import annotations

import json

import numpy as np
import pytest

from filegram_kit.engine.recorder import CROSS_REFERENCE_WINDOW_MS, Recorder, SimClock, naming_pattern_change
from filegram_kit.engine.tools import ToolBox
from filegram_kit.traces.media import MediaStore, content_hash
from filegram_kit.traces.validation import parse_event

NOTE_A = "# Alpha\n\nline one\nline two\nline three\n"
NOTE_B = "# Beta\n\nrevenue: 12\nmargin: 4\n"


@pytest.fixture
def box(tmp_path):
    sandbox = tmp_path / "sandbox"
    (sandbox / "notes").mkdir(parents=True)
    (sandbox / "notes" / "a.md").write_text(NOTE_A)
    (sandbox / "notes" / "b.md").write_text(NOTE_B)
    (sandbox / "scratch.tmp").write_text("temp\n")
    (sandbox / "My_Report.md").write_text("# Report\n")
    clock = SimClock(1_000_000.0)
    rng = np.random.default_rng(0)
    recorder = Recorder(root=sandbox, trajectory_id="p9_test_T-01", profile_id="p9_test", clock=clock, rng=rng,
                        media=MediaStore(tmp_path / "media", clock=clock.now))
    return ToolBox(sandbox, recorder, clock, rng)


def events(box, event_type):
    return [e for e in box.recorder.events if e["event_type"] == event_type]


def test_read_counts_views_and_revisit_interval(box):
    box.call("read", file_path="notes/a.md")
    box.clock.advance(5000)
    box.call("read", file_path="notes/a.md", offset=2, limit=2)
    first, second = events(box, "file_read")
    assert (first["view_count"], first["revisit_interval_ms"]) == (1, None)
    assert second["view_count"] == 2
    assert second["revisit_interval_ms"] == pytest.approx(second["timestamp"] - first["timestamp"])
    assert first["view_range"] == [1, 5] and second["view_range"] == [2, 3]
    assert first["content_length"] == len(NOTE_A)
    assert first["file_path"].endswith("/sandbox/p9_test_T-01/notes/a.md")
    assert (first["file_type"], first["directory_depth"]) == ("md", 1)


def test_context_switch_only_when_the_read_file_changes(box):
    for path in ("notes/a.md", "notes/a.md", "notes/b.md", "notes/a.md"):
        box.call("read", file_path=path)
    switches = events(box, "context_switch")
    assert [(s["from_file"].rsplit("/", 1)[1], s["to_file"].rsplit("/", 1)[1]) for s in switches] == [
        ("a.md", "b.md"), ("b.md", "a.md")]
    assert [s["switch_count"] for s in switches] == [1, 2]
    assert {s["trigger"] for s in switches} == {"file_read"}


def test_cross_file_reference_types_and_window(box):
    box.call("read", file_path="notes/a.md")
    box.call("read", file_path="notes/b.md")  # read -> read
    box.call("edit", file_path="notes/a.md", old_string="line two", new_string="line 2")  # read -> edit
    box.call("grep", pattern="revenue")  # matches b.md
    box.call("read", file_path="notes/b.md")  # search -> read
    box.clock.advance(CROSS_REFERENCE_WINDOW_MS + 1)
    box.call("read", file_path="notes/a.md")  # too late: no reference
    refs = [(r["source_file"].rsplit("/", 1)[1], r["target_file"].rsplit("/", 1)[1], r["reference_type"])
            for r in events(box, "cross_file_reference")]
    assert refs == [("a.md", "b.md", "sequential_access"), ("b.md", "a.md", "read_then_edit"),
                    ("a.md", "b.md", "search_then_read")]
    search = events(box, "file_search")[0]
    assert search["files_matched"] == 1 and search["files_opened_after"][0].endswith("notes/b.md")


def test_write_create_then_overwrite_with_hashes_and_blobs(box):
    box.call("write", file_path="out/report.md", content="# v1\n")
    box.call("write", file_path="out/report.md", content="# v2\n")
    create, overwrite = events(box, "file_write")
    assert (create["operation"], create["before_hash"]) == ("create", None)
    assert overwrite["operation"] == "overwrite"
    assert overwrite["before_hash"] == content_hash("# v1\n") == create["after_hash"]
    assert box.recorder.media.read(overwrite["media_ref"]) == "# v2\n"
    assert (box.root / "out" / "report.md").read_text() == "# v2\n"
    assert (create["directory_depth"], create["content_length"]) == (1, 5)


def test_binary_write_has_no_blob(box):
    box.call("write", file_path="chart.png", content=b"\x89PNG\r\n\x1a\n\x00\x00")
    event = events(box, "file_write")[0]
    assert "media_ref" not in event and event["content_length"] == 10 and event["file_type"] == "png"


def test_edit_counts_lines_and_stores_diff(box):
    box.call("edit", file_path="notes/a.md", old_string="line two\n", new_string="line 2\nline 2b\n")
    edit = events(box, "file_edit")[0]
    assert (edit["lines_added"], edit["lines_deleted"], edit["lines_modified"]) == (2, 1, 1)
    diff = box.recorder.media.read(edit["media_ref_diff"])
    assert "-line two" in diff and "+line 2b" in diff
    assert box.recorder.media.read(edit["media_ref_old"]) == NOTE_A
    assert edit["after_hash"] == content_hash((box.root / "notes" / "a.md").read_text())


def test_failed_edit_is_an_error_then_the_retry_a_response(box):
    bad = box.call("edit", file_path="notes/a.md", old_string="not there", new_string="x")
    assert not bad.ok and bad.error_type == "edit_mismatch"
    assert (box.root / "notes" / "a.md").read_text() == NOTE_A
    box.call("edit", file_path="notes/a.md", old_string="line one", new_string="line 1")
    error, response = events(box, "error_encounter")[0], events(box, "error_response")[0]
    assert error["tool_name"] == "edit" and error["file_path"].endswith("notes/a.md")
    assert (response["strategy"], response["error_event_id"]) == ("retry", error["event_id"])
    calls = events(box, "tool_call")
    assert [c["success"] for c in calls] == [False, True] and [c["sequence_position"] for c in calls] == [1, 2]
    assert not events(box, "file_edit")[0]["file_path"].endswith("b.md")


def test_mkdir_one_event_per_path_with_depth_and_siblings(box):
    box.call("bash", command="mkdir -p reports/2026/q1 archive")
    made = events(box, "dir_create")
    assert [(d["dir_path"].split("T-01/")[1], d["depth"]) for d in made] == [("reports/2026/q1", 3), ("archive", 1)]
    assert made[1]["sibling_count"] == 2  # notes/ and reports/ were already there
    assert (box.root / "reports" / "2026" / "q1").is_dir()


def test_mv_is_rename_in_the_same_folder_and_move_across(box):
    box.call("bash", command="mv My_Report.md my-report.md && mkdir done && mv notes/a.md done/")
    rename, move = events(box, "file_rename")[0], events(box, "file_move")[0]
    assert rename["new_path"].endswith("/my-report.md") and rename["naming_pattern_change"] == "snake_to_kebab"
    assert move["new_path"].endswith("/done/a.md") and move["destination_directory_depth"] == 1
    assert (box.root / "done" / "a.md").exists() and not (box.root / "notes" / "a.md").exists()


def test_multi_source_mv_moves_all_but_records_one_event(box):
    box.call("bash", command="mkdir kept && mv notes/*.md kept/")
    assert sorted(p.name for p in (box.root / "kept").iterdir()) == ["a.md", "b.md"]
    assert len(events(box, "file_move")) == 1 and events(box, "file_move")[0]["old_path"].endswith("notes/b.md")


def test_cp_backup_and_rm_temporary(box):
    box.call("read", file_path="scratch.tmp")
    box.clock.advance(2500)
    box.call("bash", command="cp notes/a.md notes/a.md.bak; cp notes/b.md b_copy.md; rm scratch.tmp")
    backup, plain = events(box, "file_copy")
    assert backup["is_backup"] and not plain["is_backup"]
    delete = events(box, "file_delete")[0]
    assert delete["was_temporary"] and delete["file_age_ms"] >= 2500
    assert not (box.root / "scratch.tmp").exists() and (box.root / "notes" / "a.md.bak").exists()


def test_plain_bash_leaves_no_behavioral_event_and_ls_is_a_browse(box):
    box.call("bash", command="cat notes/a.md && wc -l notes/b.md && find . -type f")
    assert {e["event_type"] for e in box.recorder.events} == {"tool_call"}
    box.call("ls", path="notes")
    browse = events(box, "file_browse")[0]
    assert (browse["files_listed"], browse["depth"]) == (2, 1)


@pytest.mark.parametrize("path", ["../outside.md", "/etc/passwd", "notes/../../x"])
def test_paths_outside_the_sandbox_are_refused(box, path):
    result = box.call("read", file_path=path)
    assert not result.ok and result.error_type == "permission_denied"


def test_virtual_absolute_paths_are_accepted(box):
    assert box.call("read", file_path=f"{box.recorder.virtual_root}/notes/b.md").ok


def test_unknown_command_and_tool_fail_cleanly(box):
    assert box.call("bash", command="sudo rm -rf /").error_type == "command_not_found"
    assert box.call("teleport", file_path="x").error_type == "unknown_tool"


@pytest.mark.parametrize(("old", "new", "kind"), [
    ("draft_notes.md", "draft-notes.md", "snake_to_kebab"), ("draft-notes.md", "draft_notes.md", "kebab_to_snake"),
    ("README.md", "readme.md", "case_change"), ("My_Report.md", "myreport.md", "mixed_to_other"),
    ("a.md", "b.md", "other")])
def test_naming_pattern_change(old, new, kind):
    assert naming_pattern_change(old, new) == kind


def test_every_recorded_event_matches_the_schema(box):
    box.recorder.session_start()
    box.recorder.iteration_start()
    box.recorder.llm_response(1200.0, 3000, 80, has_reasoning=True, stop_reason="tool_use")
    box.call("read", file_path="notes/a.md")
    box.call("bash", command="mkdir out && cp notes/b.md out/b.md.bak && mv out/b.md.bak out/b.old && rm scratch.tmp")
    box.call("write", file_path="out/r.md", content="# r\n")
    box.call("edit", file_path="out/r.md", old_string="# r", new_string="# report")
    box.recorder.compaction(20, 4, 9000)
    box.recorder.iteration_end()
    summary = box.recorder.session_end()
    for index, raw in enumerate(json.loads(json.dumps(box.recorder.events))):
        parse_event(raw, index, "events.json")  # raises TraceError naming the field on any mismatch
    assert summary["total_events"] == len(box.recorder.events)
    assert summary["total_tool_calls"] == 4 and summary["files_created"][0].endswith("out/r.md")
    assert len(events(box, "fs_snapshot")) == 2 and events(box, "fs_snapshot")[1]["total_files"] == 5


def test_scripts_really_run_in_the_sandbox_but_leave_no_file_events(box):
    box.call("write", file_path="tidy.py", content="import shutil\nshutil.move('notes/a.md', 'a_moved.md')\n")
    result = box.call("bash", command="python3 tidy.py")
    assert result.ok and (box.root / "a_moved.md").exists() and not (box.root / "notes" / "a.md").exists()
    assert not events(box, "file_move") and events(box, "tool_call")[-1]["success"]
    box.call("write", file_path="broken.py", content="raise SystemExit(3)\n")
    failed = box.call("bash", command="python3 broken.py")
    assert not failed.ok and failed.error_type == "script_error" and "exited 3" in failed.output


def test_tool_specs_match_the_tools():
    import inspect

    from filegram_kit.engine.tools import TOOL_NAMES, TOOL_SPECS

    assert set(TOOL_SPECS) == set(TOOL_NAMES)
    for name, spec in TOOL_SPECS.items():
        signature = inspect.signature(getattr(ToolBox, f"_tool_{name}"))
        params = {p.name: p for p in list(signature.parameters.values())[1:]}
        assert set(spec["parameters"]["properties"]) == set(params), name
        required = {n for n, p in params.items() if p.default is inspect.Parameter.empty}
        assert set(spec["parameters"]["required"]) == required, name
