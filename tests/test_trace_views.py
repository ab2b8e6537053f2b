"""Trajectory views for notebooks: timeline, workspace trees, content deltas, behavior stats."""

from pathlib import PurePosixPath

import polars as pl
import pytest

from filegram_kit.engine import generate_trajectory
from filegram_kit.report import trace_views as tv
from filegram_kit.traces.load import clean, events_frame, read_trajectory
from filegram_kit.traces.profiles import get_profile
from filegram_kit.traces.tasks import get_task
from filegram_kit.workspace import ensure_template

from .conftest import BEHAVIORAL_IN_FIXTURE, METADATA_IN_FIXTURE, REPORT_V1, write_trajectory_dir


@pytest.fixture
def raw(tmp_path):
    return read_trajectory(write_trajectory_dir(tmp_path))


def test_timeline_hides_metadata_unless_asked(raw):
    frame = events_frame(raw)
    behavioral = tv.timeline_frame(frame)
    assert behavioral.height == BEHAVIORAL_IN_FIXTURE
    assert tv.timeline_frame(frame, metadata=True).height == BEHAVIORAL_IN_FIXTURE + METADATA_IN_FIXTURE
    first = behavioral.row(0, named=True)
    assert (first["event_type"], first["detail"]) == ("file_read", "notes/a.md")  # sandbox prefix stripped
    assert first["seconds"] == pytest.approx(4.0)  # fixture events are 1 s apart; the read is the 5th


def test_timeline_figure_has_one_trace_per_category(raw):
    frame = events_frame(raw)
    fig = tv.timeline_figure(frame)
    assert {t.name for t in fig.data} == {"read", "write", "organize", "flow"}
    assert sum(len(t.x) for t in fig.data) == BEHAVIORAL_IN_FIXTURE
    assert "metadata" in {t.name for t in tv.timeline_figure(frame, metadata=True).data}


def test_tree_text_marks_created_and_removed_entries():
    before = ["a.md", "docs/", "docs/x.md"]
    after = ["a.md", "docs/", "docs/y.md", "out/", "out/r.md"]
    assert tv.tree_text(after, before=before).splitlines() == [
        "  ├── a.md",
        "  ├── docs/",
        "- │   ├── x.md",
        "+ │   └── y.md",
        "+ └── out/",
        "+     └── r.md",
    ]
    assert tv.tree_text(before) == "├── a.md\n└── docs/\n    └── x.md"


def test_content_delta_gives_the_diff_of_an_edit_and_the_text_of_a_write(raw):
    kinds = {e.event_type: i for i, e in enumerate(raw.events)}
    kind, text = tv.content_delta(raw, kinds["file_edit"])
    assert kind == "diff" and "+| b | 2 |" in text.splitlines() and "sandbox" not in text
    assert tv.content_delta(raw, kinds["file_write"]) == ("blob", REPORT_V1)
    with pytest.raises(ValueError, match="file_read"):
        tv.content_delta(raw, kinds["file_read"])


def test_content_events_label_writes_and_edits(raw):
    picks = tv.content_events(events_frame(raw))
    assert picks["event_type"].to_list() == ["file_write", "file_edit"]
    assert picks["label"].to_list() == ["#9 file_write report.md (create)", "#11 file_edit report.md (+1 -0)"]


def test_behavior_stats_of_the_fixture(raw):
    stats = tv.behavior_stats(events_frame(clean(raw).trajectories)).row(0, named=True)
    assert {k: stats[k] for k in ("atomic_actions", "files_read", "rereads", "searches", "files_created", "edits",
                                  "lines_added", "dirs_created", "max_depth", "backups", "moves_renames", "deletes",
                                  "context_switches")} == {
        "atomic_actions": 13, "files_read": 1, "rereads": 1, "searches": 1, "files_created": 1, "edits": 1,
        "lines_added": 1, "dirs_created": 1, "max_depth": 2, "backups": 1, "moves_renames": 2, "deletes": 1,
        "context_switches": 1}


def test_event_type_counts_lists_every_type_for_each_trajectory(tmp_path):
    one = read_trajectory(write_trajectory_dir(tmp_path, "p1_methodical_T-05"))
    events = [e.to_dict() for e in one.events if e.event_type != "file_search"]
    two = read_trajectory(write_trajectory_dir(tmp_path, "p3_efficient_executor_T-05", events))
    counts = tv.event_type_counts(events_frame([one, two]))
    assert counts.columns == ["event_type", "p1_methodical_T-05", "p3_efficient_executor_T-05"]
    assert counts.height == 12
    search = counts.filter(pl.col("event_type") == "file_search").row(0)
    assert search == ("file_search", 1, 0)
    assert tv.event_type_counts(events_frame(one), metadata=True).height == 22


def test_snapshots_show_the_workspace_before_and_after_a_run(tmp_path):
    task = get_task("T-01")
    run = read_trajectory(generate_trajectory(get_profile("p3"), task, tmp_path / "signal",
                                              workspace_cache=tmp_path / "ws"))
    template = tv.listing(ensure_template(task, tmp_path / "ws"))
    assert tv.snapshot_listing(run, 0) == template  # the first snapshot is the untouched template
    after = {p.rstrip("/") for p in tv.snapshot_listing(run)}
    created = {str(PurePosixPath(p).relative_to(f"/home/agent/filegram/sandbox/{run.id}"))
               for p in run.summary["files_created"]}
    deleted = {str(PurePosixPath(p).relative_to(f"/home/agent/filegram/sandbox/{run.id}"))
               for p in run.summary["files_deleted"]}
    assert created and created - deleted <= after
    with pytest.raises(ValueError, match="no fs_snapshot"):
        tv.snapshot_listing(clean(run).trajectories[0])


def test_compare_table_puts_trajectories_side_by_side(tmp_path):
    one = read_trajectory(write_trajectory_dir(tmp_path, "p1_methodical_T-05"))
    events = [e.to_dict() for e in one.events if e.event_type != "file_edit"]
    two = read_trajectory(write_trajectory_dir(tmp_path, "p3_efficient_executor_T-05", events))
    table = tv.compare_table(events_frame(clean([one, two]).trajectories))
    assert table.columns == ["statistic", "p1_methodical_T-05", "p3_efficient_executor_T-05"]
    edits = table.filter(pl.col("statistic") == "edits").row(0)
    assert edits == ("edits", 1.0, 0.0)
    fig = tv.counts_figure(tv.event_type_counts(events_frame([one, two])))
    assert [t.name for t in fig.data] == ["p1_methodical_T-05", "p3_efficient_executor_T-05"]
    assert sum(fig.data[1].y) == BEHAVIORAL_IN_FIXTURE - 1
