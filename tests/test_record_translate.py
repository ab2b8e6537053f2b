"""Observations -> typed events: the spec 4.3 rules on real-trace input, sessions, debouncing, layout."""

from __future__ import annotations

import hashlib

import pytest

from filegram_kit.record.observations import Observation, ObservationError
from filegram_kit.record.translate import debounce, ordered, split_sessions, write_sessions
from filegram_kit.traces.load import clean, load_trajectories

T0 = 1_790_000_000_000.0


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def write(path, at, text):
    return Observation("write", path, T0 + at, content=text, content_hash=sha(text), size=len(text.encode()))


def behavioural(traj):
    return [e for e in traj.events if e.is_behavioral]


def recorded(tmp_path, observations, **kw):
    write_sessions(observations, tmp_path / "out", **kw)
    return load_trajectories(tmp_path / "out")


def test_observation_contract_rejects_unknown_kinds_and_moves_without_dest():
    with pytest.raises(ObservationError, match="kind"):
        Observation("chmod", "a.md", T0)
    with pytest.raises(ObservationError, match="dest"):
        Observation("move", "a.md", T0)
    obs = Observation("search", ".", T0, query="budget", matched=("a.md",), search_type="grep")
    assert Observation.from_dict(obs.to_dict()) == obs
    with pytest.raises(ObservationError, match="line 7: field 'time_ms'"):
        Observation.from_dict({"kind": "read", "path": "a", "time_ms": "noon"}, where="log", line=7)


def test_ordered_is_stable_for_equal_times():
    a, b, c = Observation("read", "a", 5.0), Observation("read", "b", 5.0), Observation("read", "c", 1.0)
    assert ordered([a, b, c]) == [c, a, b]


def test_debounce_keeps_the_last_write_and_only_merges_uninterrupted_repeats():
    first, second = write("a.md", 0, "x\n"), write("a.md", 300, "x\ny\n")
    read = Observation("read", "a.md", T0 + 400)
    third = write("a.md", 600, "x\ny\nz\n")
    kept, merged = debounce([first, second, read, third], 1_000)
    assert kept == [second, read, third]
    assert merged == {"write": 1}
    late = write("a.md", 5_000, "q\n")
    assert debounce([second, late], 1_000)[0] == [second, late]


def test_create_edit_overwrite_follow_the_last_snapshot(tmp_path):
    v1, v2 = "# Plan\n\nfirst step\n", "# Plan\n\nfirst step\nsecond step\n"
    [traj] = recorded(tmp_path, [write("plan.md", 0, v1), write("plan.md", 5_000, v2),
                                 write("plan.md", 9_000, "nothing in common\n")])
    writes = [e for e in behavioural(traj) if e.event_type in ("file_write", "file_edit")]
    assert [(e.event_type, e.get("operation")) for e in writes] == [
        ("file_write", "create"), ("file_edit", None), ("file_write", "overwrite")]
    assert traj.content(writes[0]["media_ref"]) == v1
    assert "+second step" in traj.content(writes[1]["media_ref_diff"])
    assert (writes[1]["lines_added"], writes[1]["lines_deleted"]) == (1, 0)
    assert writes[2]["before_hash"] == sha(v2)


def test_baseline_files_are_diffed_against_and_never_reported(tmp_path):
    old = "alpha\nbeta\n"
    [traj] = recorded(tmp_path, [Observation("baseline", "old.txt", T0 - 1, content=old, content_hash=sha(old),
                                             size=len(old)), write("old.txt", 1_000, old + "gamma\n")])
    assert [e.event_type for e in behavioural(traj)] == ["file_edit"]


def test_copies_by_content_hash_and_rename_versus_move(tmp_path):
    text = "same bytes\n"
    [traj] = recorded(tmp_path, [write("a.md", 0, text), write("drafts/a.bak", 2_000, text),
                                 Observation("move", "drafts/a.bak", T0 + 3_000, dest="drafts/a.orig"),
                                 Observation("move", "drafts/a.orig", T0 + 4_000, dest="archive/a.orig")])
    events = behavioural(traj)
    assert [e.event_type for e in events] == ["file_write", "file_copy", "file_rename", "file_move"]
    copy = events[1]
    assert copy["source_path"].endswith("/a.md") and copy["dest_path"].endswith("/drafts/a.bak")
    assert copy["is_backup"] is True
    assert events[3]["destination_directory_depth"] == 1


def test_empty_new_files_are_not_copies_of_each_other(tmp_path):
    [traj] = recorded(tmp_path, [write("a.txt", 0, ""), write("b.txt", 1_000, "")])
    assert [e.event_type for e in behavioural(traj)] == ["file_write", "file_write"]


def test_reads_give_view_counts_context_switches_and_cross_references(tmp_path):
    a, b = "one\ntwo\nthree\n", "x\n"
    obs = [Observation("baseline", "a.md", T0 - 1, content=a, content_hash=sha(a), size=len(a)),
           Observation("baseline", "b.md", T0 - 1, content=b, content_hash=sha(b), size=len(b)),
           Observation("read", "a.md", T0), Observation("read", "b.md", T0 + 10_000),
           Observation("read", "a.md", T0 + 100_000)]
    [traj] = recorded(tmp_path, obs)
    reads = [e for e in traj.events if e.event_type == "file_read"]
    assert [r["view_count"] for r in reads] == [1, 1, 2]
    assert reads[0]["view_range"] == [1, 3] and reads[0]["content_length"] == len(a)
    assert reads[2]["revisit_interval_ms"] == 100_000
    assert sum(e.event_type == "context_switch" for e in traj.events) == 2
    refs = [e for e in traj.events if e.event_type == "cross_file_reference"]
    assert len(refs) == 1 and refs[0]["interval_ms"] == 10_000  # the 90 s gap is beyond the 30 s window


def test_directory_moves_and_deletes_carry_their_files(tmp_path):
    text = "kept\n"
    obs = [Observation("mkdir", "draft", T0), write("draft/a.md", 1_000, text),
           Observation("move", "draft", T0 + 2_000, dest="final", is_dir=True),
           write("final/a.md", 3_000, text + "more\n"), Observation("delete", "final", T0 + 4_000, is_dir=True),
           Observation("mkdir", "final", T0 + 5_000)]
    [traj] = recorded(tmp_path, obs)
    types = [e.event_type for e in behavioural(traj)]
    assert types == ["dir_create", "file_write", "file_rename", "file_edit", "file_delete", "dir_create"]


def test_mkdir_sibling_count_from_the_stream_and_repeats_ignored(tmp_path):
    obs = [Observation("mkdir", "a", T0), Observation("mkdir", "b", T0 + 1), Observation("mkdir", "b", T0 + 5_000),
           Observation("mkdir", "a/c", T0 + 6_000)]
    [traj] = recorded(tmp_path, obs)
    dirs = [e for e in traj.events if e.event_type == "dir_create"]
    assert [(d["dir_path"].rsplit("/", 1)[-1], d["depth"], d["sibling_count"]) for d in dirs] == [
        ("a", 1, 0), ("b", 1, 1), ("c", 2, 0)]


def test_idle_gap_splits_sessions_and_state_carries_over(tmp_path):
    v1 = "first\n"
    obs = [write("a.md", 0, v1), write("a.md", 3 * 3_600_000, v1 + "second\n")]
    baseline, sessions = split_sessions(obs, idle_gap_ms=1_800_000)
    assert baseline == [] and [len(s.observations) for s in sessions] == [1, 1]
    trajs = recorded(tmp_path, obs, idle_gap_ms=1_800_000)
    assert len(trajs) == 2
    assert [e.event_type for e in behavioural(trajs[1])] == ["file_edit"]
    assert all(t.profile_id == "me" for t in trajs)


def test_same_observations_same_bytes_and_paths_are_anonymised_by_clean(tmp_path):
    obs = [write("notes/a.md", 0, "hi\n"), Observation("read", "notes/a.md", T0 + 10)]
    first = write_sessions(obs, tmp_path / "one", seed=3)[0]
    second = write_sessions(list(reversed(obs)), tmp_path / "two", seed=3)[0]
    for name in ("events.json", "summary.json", "media/manifest.json"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    cleaned = clean(load_trajectories(tmp_path / "one")).trajectories
    paths = [e.get("file_path") for t in cleaned for e in t.events if e.get("file_path")]
    assert paths and all(p == "notes/a.md" for p in paths)


def test_bad_name_and_gap_are_refused(tmp_path):
    with pytest.raises(ValueError, match="name"):
        write_sessions([], tmp_path, name="../x")
    with pytest.raises(ValueError, match="idle_gap_ms"):
        split_sessions([], idle_gap_ms=0)


def test_paths_must_stay_inside_the_root():
    for bad in ("/etc/passwd", "../x", "a/../../b"):
        with pytest.raises(ObservationError, match="relative"):
            Observation("read", bad, T0)
    with pytest.raises(ObservationError, match="dest"):
        Observation("move", "a", T0, dest="/tmp/a")


def test_made_up_times_make_no_cross_file_references(tmp_path):
    a, b = "one\n", "two\n"
    base = [Observation("baseline", p, T0 - 1, content=t, content_hash=sha(t), size=len(t))
            for p, t in (("a.md", a), ("b.md", b))]
    real = [Observation("read", "a.md", T0), Observation("read", "b.md", T0 + 10_000)]
    invented = [Observation("read", "a.md", T0, extra={"time_synthesised": True}),
                Observation("read", "b.md", T0 + 10_000, extra={"time_synthesised": True})]
    [with_times] = recorded(tmp_path / "r", base + real)
    [without] = recorded(tmp_path / "i", base + invented)
    assert with_times.count("cross_file_reference") == 1
    assert without.count("cross_file_reference") == 0 and without.count("context_switch") == 1


def test_observation_round_trip_keeps_zero_values():
    obs = Observation("write", "empty.txt", T0, content="", content_hash=sha(""), size=0)
    back = Observation.from_dict(obs.to_dict())
    assert back == obs and back.size == 0
    browse = Observation("browse", ".", T0, files_listed=0)
    assert Observation.from_dict(browse.to_dict()).files_listed == 0


def test_baseline_folders_and_mtimes_feed_siblings_browses_and_file_age(tmp_path):
    obs = [Observation("baseline", "docs", T0 - 1, is_dir=True),
           Observation("baseline", "docs/old.md", T0 - 1, content="x\n", content_hash=sha("x\n"), size=2,
                       extra={"mtime_ms": T0 - 60_000}),
           Observation("mkdir", "drafts", T0), Observation("browse", ".", T0 + 1_000),
           Observation("delete", "docs/old.md", T0 + 2_000)]
    [traj] = recorded(tmp_path, obs)
    [mkdir] = [e for e in traj.events if e.event_type == "dir_create"]
    [listing] = [e for e in traj.events if e.event_type == "file_browse"]
    [delete] = [e for e in traj.events if e.event_type == "file_delete"]
    assert mkdir["sibling_count"] == 1 and listing["files_listed"] == 2  # docs/ and drafts/
    assert delete["file_age_ms"] == 62_000
