import json
import os
import warnings
from pathlib import Path

import polars as pl
import pytest

from filegram_kit.traces.load import (
    TraceError,
    anonymise_path,
    clean,
    events_frame,
    find_trajectory_dirs,
    load_trajectories,
    parse_trajectory_id,
    read_trajectory,
    save_trajectories,
)

from .conftest import BEHAVIORAL_IN_FIXTURE, METADATA_IN_FIXTURE, REPORT_V1, REPORT_V2, SANDBOX, raw_events
from .conftest import write_trajectory_dir as write_dir


def _events_path(corpus: Path, name="p1_methodical_T-05") -> Path:
    return corpus / "signal" / name / "events.json"


def _rewrite(corpus: Path, mutate) -> Path:
    path = _events_path(corpus)
    events = json.loads(path.read_text())
    mutate(events)
    path.write_text(json.dumps(events))
    return path


# -- loading ------------------------------------------------------------------------------------


def test_loads_release_layout_with_ids_parsed_from_folder_names(corpus):
    trajs = load_trajectories(corpus)
    assert [t.id for t in trajs] == ["p1_methodical_T-05", "p3_efficient_executor_T-12"]
    assert [(t.profile_id, t.task_id) for t in trajs] == [("p1_methodical", "T-05"), ("p3_efficient_executor", "T-12")]
    assert len(trajs[0]) == BEHAVIORAL_IN_FIXTURE + METADATA_IN_FIXTURE
    assert trajs[0].summary["total_events"] == len(trajs[0])
    assert trajs.quarantine == []


def test_accepts_root_signal_folder_or_one_trajectory(corpus):
    assert len(find_trajectory_dirs(corpus)) == 2
    assert len(find_trajectory_dirs(corpus / "signal")) == 2
    single = corpus / "signal" / "p1_methodical_T-05"
    assert find_trajectory_dirs(single) == [single]
    with pytest.raises(TraceError, match="no trajectories found"):
        find_trajectory_dirs(corpus / "signal" / "p1_methodical_T-05" / "media")


def test_event_fields_and_media_content_resolve(corpus):
    traj = read_trajectory(corpus / "signal" / "p1_methodical_T-05")
    write = next(e for e in traj if e.event_type == "file_write")
    edit = next(e for e in traj if e.event_type == "file_edit")
    assert write["operation"] == "create" and write.timestamp == 1_700_000_000_000.0 + 9000
    assert traj.content(write["media_ref"]) == REPORT_V1
    assert traj.content(edit["media_ref_new"]) == REPORT_V2
    assert traj.content(edit["media_ref_diff"]).startswith("--- a/")
    assert write.to_dict() == raw_events()[9]  # nothing added or lost, order kept


def test_parse_trajectory_id():
    assert parse_trajectory_id("p12_prolific_scanner_T-07") == ("p12_prolific_scanner", "T-07")
    assert parse_trajectory_id("p1_methodical_t07") == ("p1_methodical", "T-07")
    assert parse_trajectory_id("my_recording") == (None, None)


# -- errors name file, event index and field ------------------------------------------------------


def test_invalid_json_names_file_and_line(corpus):
    path = _events_path(corpus)
    path.write_text('[\n  {"event_id": "x",\n  oops\n]')
    with pytest.raises(TraceError) as err:
        load_trajectories(corpus)
    assert err.value.file == str(path) and "line 3" in str(err.value)


@pytest.mark.parametrize(("mutate", "index", "field", "reason"), [
    (lambda ev: ev[4].update(event_type="file_teleport"), 4, "event_type", "unknown event type 'file_teleport'"),
    (lambda ev: ev[4].pop("view_count"), 4, "view_count", "required field is missing"),
    (lambda ev: ev[4].update(view_count="2"), 4, "view_count", "expected an integer, got str"),
    (lambda ev: ev[9].update(operation="append"), 9, "operation", "'append' is not one of"),
    (lambda ev: ev[16].update(was_temporary="yes"), 16, "was_temporary", "expected bool"),
    (lambda ev: ev[4].update(view_range=[1]), 4, "view_range", "expected [start, end]"),
    (lambda ev: ev[2].update(timestamp=None), 2, "timestamp", "expected a finite number, got null"),
    (lambda ev: ev.__setitem__(3, "not an event"), 3, None, "expected an event object, got str"),
])
def test_bad_event_raises_with_location(corpus, mutate, index, field, reason):
    path = _rewrite(corpus, mutate)
    with pytest.raises(TraceError) as err:
        load_trajectories(corpus)
    assert (err.value.file, err.value.event_index, err.value.field) == (str(path), index, field)
    assert reason in err.value.reason
    assert f"event {index}" in str(err.value)


def test_missing_blob_is_an_error_naming_the_reference(corpus):
    blob = corpus / "signal" / "p1_methodical_T-05" / "media" / "blobs"
    next(p for p in blob.iterdir() if p.read_text() == REPORT_V2).unlink()
    with pytest.raises(TraceError) as err:
        load_trajectories(corpus)
    assert (err.value.event_index, err.value.field) == (11, "media_ref_new")
    assert "missing" in err.value.reason
    assert len(load_trajectories(corpus, check_media=False)) == 2  # opt-out for metadata-only copies


def test_media_reference_cannot_escape_the_media_folder(corpus):
    _rewrite(corpus, lambda ev: ev[9].update(media_ref={"type": "blob", "hash": "x", "path": "../../etc/passwd"}))
    with pytest.raises(TraceError, match="escapes"):
        load_trajectories(corpus)


def test_quarantine_keeps_going_and_reports_every_drop(corpus):
    def mutate(ev):
        ev[4].pop("view_count")
        ev[7]["event_type"] = "file_teleport"
    _rewrite(corpus, mutate)
    (corpus / "signal" / "p3_efficient_executor_T-12" / "events.json").write_text("{broken")
    with pytest.warns(UserWarning, match="quarantined 3"):
        trajs = load_trajectories(corpus, quarantine=True)
    assert [t.id for t in trajs] == ["p1_methodical_T-05"]
    assert len(trajs[0]) == BEHAVIORAL_IN_FIXTURE + METADATA_IN_FIXTURE - 2
    got = sorted((Path(q.file).parent.name, q.event_index, q.field) for q in trajs.quarantine)
    assert got == [("p1_methodical_T-05", 4, "view_count"), ("p1_methodical_T-05", 7, "event_type"),
                   ("p3_efficient_executor_T-12", None, None)]
    assert all(q.reason for q in trajs.quarantine)


def test_unknown_extra_fields_are_kept(corpus):
    _rewrite(corpus, lambda ev: ev[4].update(app="vim"))
    traj = load_trajectories(corpus)[0]
    assert traj.events[4]["app"] == "vim"
    assert json.loads(events_frame(traj)["extra"][4]) == {"app": "vim", "message_id": "msg-1",
                                                          "model_name": "claude-haiku-4-5",
                                                          "model_provider": "anthropic"}


# -- clean --------------------------------------------------------------------------------------


def test_clean_drops_metadata_strips_generator_fields_and_anonymises(corpus):
    raw = load_trajectories(corpus)
    cleaned, report = clean(raw)
    assert [len(t) for t in cleaned] == [BEHAVIORAL_IN_FIXTURE] * 2
    assert sum(report.dropped.values()) == 2 * METADATA_IN_FIXTURE
    assert report.kept["file_read"] == 4 and report.dropped["tool_call"] == 2
    assert report.metadata_share == pytest.approx(METADATA_IN_FIXTURE / (METADATA_IN_FIXTURE + BEHAVIORAL_IN_FIXTURE))
    assert report.stripped_fields == 2 * (3 * BEHAVIORAL_IN_FIXTURE + 2)  # 3 per kept event + 2 in summary
    for traj in cleaned:
        assert {e.event_type for e in traj}.isdisjoint({"tool_call", "llm_response", "session_start", "fs_snapshot"})
        dumped = json.dumps([e.to_dict() for e in traj]) + json.dumps(traj.summary)
        assert "sandbox" not in dumped and "claude" not in dumped and "message_id" not in dumped
    first = cleaned[0]
    assert first.events[0]["file_path"] == "notes/a.md"
    browse = next(e for e in first if e.event_type == "file_browse")
    assert browse["directory_path"] == "."
    search = next(e for e in first if e.event_type == "file_search")
    assert search["files_opened_after"] == ["notes/a.md"]
    assert len(raw[0]) == BEHAVIORAL_IN_FIXTURE + METADATA_IN_FIXTURE  # inputs untouched


def test_anonymise_path_rules():
    assert anonymise_path(f"{SANDBOX}/a/b.md") == ("a/b.md", 1)
    assert anonymise_path(SANDBOX) == (".", 1)
    assert anonymise_path(f"moved {SANDBOX}/x.md to {SANDBOX}/y/x.md") == ("moved x.md to y/x.md", 2)
    assert anonymise_path("C:\\work\\sandbox\\p2_T-01\\n.txt") == ("n.txt", 1)
    assert anonymise_path("notes/mysandbox/p1/a.md") == ("notes/mysandbox/p1/a.md", 0)
    assert anonymise_path("notes/a.md") == ("notes/a.md", 0)


def test_clean_then_save_and_reload_round_trips(corpus, tmp_path):
    cleaned, _ = clean(load_trajectories(corpus))
    out = tmp_path / "cleaned"
    save_trajectories(cleaned, out)
    again = load_trajectories(out)
    assert [e.to_dict() for e in again[0]] == [e.to_dict() for e in cleaned[0]]
    edit = next(e for e in again[0] if e.event_type == "file_edit")
    assert again[0].content(edit["media_ref_new"]) == REPORT_V2
    manifest = json.loads((out / "signal" / "p1_methodical_T-05" / "media" / "manifest.json").read_text())
    assert {e["original_path"] for e in manifest["entries"].values()} == {"report.md"}
    assert len(list((out / "signal").iterdir())) == 2  # no temporary folders left behind


def test_saving_twice_gives_the_same_bytes(corpus, tmp_path):
    trajs = load_trajectories(corpus)
    save_trajectories(trajs, tmp_path / "a")
    save_trajectories(load_trajectories(tmp_path / "a"), tmp_path / "b")
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert files_a == files_b
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files_a)


def test_loading_never_writes_to_the_source(corpus):
    before = {p: p.stat().st_mtime_ns for p in corpus.rglob("*")}
    clean(load_trajectories(corpus))
    assert {p: p.stat().st_mtime_ns for p in corpus.rglob("*")} == before


# -- events_frame --------------------------------------------------------------------------------


def test_events_frame_unifies_fields_across_types(corpus):
    cleaned, _ = clean(load_trajectories(corpus))
    frame = events_frame(cleaned)
    assert frame.height == 2 * BEHAVIORAL_IN_FIXTURE
    assert frame["event_index"].to_list()[:3] == [0, 1, 2]
    one = frame.filter(pl.col("trajectory_id") == "p1_methodical_T-05")
    by_type = {r["event_type"]: r for r in one.iter_rows(named=True)}
    assert (by_type["file_copy"]["source_file"], by_type["file_copy"]["target_file"]) == ("report.md", "report.md.bak")
    assert by_type["file_move"]["target_file"] == "archive/2024/old.txt"
    assert by_type["file_move"]["depth"] == 2 and by_type["dir_create"]["depth"] == 2
    assert by_type["context_switch"]["source_file"] is None
    assert by_type["file_browse"]["dir_path"] == "." and by_type["file_browse"]["files_listed"] == 7
    assert by_type["file_edit"]["diff_ref"].startswith("diffs/")
    assert by_type["file_delete"]["was_temporary"] is True
    reads = one.filter(pl.col("event_type") == "file_read")
    assert reads["view_count"].to_list() == [1, 2] and reads["view_end"].to_list() == [40, 40]
    assert one.filter(pl.col("category") == "organize").height == 5


def test_events_frame_has_the_same_columns_for_any_input(corpus):
    raw = load_trajectories(corpus)
    assert events_frame(raw).schema == events_frame([]).schema == events_frame(clean(raw).trajectories).schema


def test_events_frame_with_content_reads_what_writes_left(corpus):
    frame = events_frame(clean(load_trajectories(corpus)).trajectories[0], with_content=True)
    writes = frame.filter(pl.col("event_type").is_in(["file_write", "file_edit"]))
    assert writes["content"].to_list() == [REPORT_V1, REPORT_V2]
    assert frame.filter(pl.col("event_type") == "file_read")["content"].null_count() == 2


def test_integral_floats_are_accepted_as_integers(tmp_path):
    events = raw_events()
    events[4]["view_count"] = 1.0
    write_dir(tmp_path, events=events)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = events_frame(load_trajectories(tmp_path))
    assert frame["view_count"][4] == 1


def test_load_only_some_profiles_or_tasks(corpus):
    only_p3 = load_trajectories(corpus, profiles=["p3_efficient_executor"])
    assert [t.id for t in only_p3] == ["p3_efficient_executor_T-12"]
    assert [t.id for t in load_trajectories(corpus, tasks=["t05"])] == ["p1_methodical_T-05"]
    assert load_trajectories(corpus, profiles=["p1_methodical"], tasks=["T-12"]) == []


def test_a_selection_looks_only_at_the_folders_it_names(corpus, monkeypatch):
    """Selecting one persona of a 32,000-folder corpus stat-ed every folder: ingest grew with the square of users."""
    signal = corpus / "signal"
    for i in range(40):  # other personas' folders, and a folder that holds no trajectory
        (signal / f"p{i + 10}_other_T-0{i % 9 + 1}").mkdir()
        (signal / f"p{i + 10}_other_T-0{i % 9 + 1}" / "events.json").write_text("[]")
    (signal / "notes").mkdir()
    whole = find_trajectory_dirs(corpus)
    for profiles, tasks in ((["p3_efficient_executor"], None), (None, ["t05"]), (["p12_other", "p1_methodical"], None),
                            (["p12_other"], ["T-03"]), (["nobody"], None), ([], None)):
        wanted = [d for d in whole if (profiles is None or parse_trajectory_id(d.name)[0] in profiles)
                  and (tasks is None or parse_trajectory_id(d.name)[1] in {"T-05" if t == "t05" else t for t in tasks})]
        assert find_trajectory_dirs(corpus, profiles, tasks) == wanted
    looked = []
    real_isfile = os.path.isfile
    monkeypatch.setattr(os.path, "isfile", lambda p: looked.append(p) or real_isfile(p))
    assert [d.name for d in find_trajectory_dirs(corpus, ["p3_efficient_executor"])] == ["p3_efficient_executor_T-12"]
    assert len(looked) == 1


def test_loads_the_cleaned_release_variant(tmp_path):
    """The public release strips generator fields and sandbox prefixes; envelope ids may be absent."""
    events = [e for e in raw_events() if e["event_type"] in ("file_read", "file_write", "file_browse")]
    for e in events:
        for key in ("message_id", "model_provider", "model_name", "session_id", "profile_id"):
            e.pop(key)
    events[-1]["media_ref"] = events[-1]["media_ref"]["hash"]  # a bare hash instead of a MediaRef dict
    write_dir(tmp_path, "p7_visual_reader_T-22", events)
    traj = load_trajectories(tmp_path)[0]
    assert (traj.profile_id, traj.task_id, len(traj)) == ("p7_visual_reader", "T-22", 4)
    write = next(e for e in traj if e.event_type == "file_write")
    assert traj.content(write["media_ref"]) == REPORT_V1
    frame = events_frame(traj)
    assert frame["profile_id"].unique().to_list() == ["p7_visual_reader"]
    content_ref = frame.filter(pl.col("event_type") == "file_write")["content_ref"].to_list()
    assert content_ref == [f"blobs/{write['media_ref']}.blob"]


def test_clean_anonymises_the_sandbox_paths_inside_media_text(tmp_path):
    from filegram_kit.traces.media import MediaStore
    from filegram_kit.traces.schema import Event, Trajectory

    store = MediaStore(tmp_path / "media")
    sandbox = "/home/agent/filegram/sandbox/p3_efficient_executor_T-16"
    diff = store.put_diff("a\n", "b\n", f"{sandbox}/notes.md")
    store.flush()
    event = Event("e0", "file_edit", 0.0, "s", "p3", {"file_path": f"{sandbox}/notes.md", "media_ref_diff": diff})
    raw = Trajectory("p3_efficient_executor_T-16", (event,), "p3_efficient_executor", "T-16", media=store)
    assert "efficient_executor" in raw.content(diff)  # the engine's diff header names the sandbox
    cleaned = clean([raw]).trajectories[0]
    text = cleaned.content(cleaned.events[0]["media_ref_diff"])
    assert "sandbox" not in text and "efficient_executor" not in text
    assert text.startswith("--- notes.md\n+++ notes.md\n")
    assert "-a" in text and "+b" in text
