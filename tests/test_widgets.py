"""The anywidget explorers: what their pure functions compute from trajectories and items, and that the
widgets' synced traitlets follow the filters and selections (set the way the front end sets them)."""

from __future__ import annotations

import re

import polars as pl
import pytest
import traitlets

import filegram_kit as fk
from filegram_kit.bench.schema import Item
from filegram_kit.traces.schema import RETAINED_EVENT_TYPES
from filegram_kit.widgets import (
    ItemBrowser,
    TimelineBrowser,
    answers_by_question,
    event_detail,
    filter_items,
    filter_options,
    item_record,
    row_order,
    timeline_events,
)
from tests.conftest import BEHAVIORAL_IN_FIXTURE, METADATA_IN_FIXTURE, REPORT_V1

# -- timeline ------------------------------------------------------------------------------------------


@pytest.fixture
def trajs(corpus):
    return fk.load_trajectories(corpus)  # p1_methodical_T-05, p3_efficient_executor_T-12: all 22 event types


def test_timeline_events_are_the_behavioral_events_in_order_with_seconds_and_relative_paths(trajs):
    traj = trajs[0]
    events = timeline_events(traj)
    assert len(events) == BEHAVIORAL_IN_FIXTURE
    assert [e["index"] for e in events] == [i for i, e in enumerate(traj.events) if e.is_behavioral]
    assert [e["type"] for e in events] == [e.event_type for e in traj.events if e.is_behavioral]
    assert [e["seconds"] for e in events] == [float(e["index"]) for e in events]  # the fixture's events are 1 s apart
    by_type = {e["type"]: e for e in events}
    assert by_type["file_read"]["path"] == "notes/a.md" and by_type["file_read"]["category"] == "read"
    assert by_type["file_search"]["path"] == "revenue"  # a search shows its query
    assert by_type["file_copy"]["path"] == "report.md.bak"  # a copy, move or rename shows its destination
    assert by_type["dir_create"]["path"] == "archive/2024"
    assert not any("sandbox" in e["path"] for e in events)


def test_timeline_with_metadata_has_every_event_and_rows_follow_the_schema_order(trajs):
    events = timeline_events(trajs[0], metadata=True)
    assert len(events) == BEHAVIORAL_IN_FIXTURE + METADATA_IN_FIXTURE == len(trajs[0])
    assert events[0]["type"] == "session_start" and events[0]["seconds"] == 0.0
    rows = row_order(timeline_events(trajs[0]))
    assert rows == list(RETAINED_EVENT_TYPES)  # the fixture has each behavioral type, listed in schema order
    assert row_order([{"type": "zz_custom"}, {"type": "file_edit"}]) == ["file_edit", "zz_custom"]


def test_event_detail_of_an_edit_has_its_fields_sizes_and_diff(trajs):
    traj = trajs[0]
    index = next(i for i, e in enumerate(traj.events) if e.event_type == "file_edit")
    detail = event_detail(traj, index)
    assert (detail["type"], detail["category"], detail["index"]) == ("file_edit", "write", index)
    fields = dict(detail["fields"])
    assert fields["file_path"] == "report.md" and fields["diff_summary"] == "+1 -0"
    assert not any(name.startswith("media_ref") for name in fields)
    assert detail["sizes"] == {"lines_added": 1, "lines_deleted": 0, "lines_modified": 0}
    preview = detail["preview"]
    assert preview["kind"] == "diff" and "+| b | 2 |" in preview["text"].splitlines()
    assert "sandbox" not in preview["text"] and not preview["truncated"]


def test_event_detail_of_a_new_file_shows_its_text_cut_at_the_limit(trajs):
    traj = trajs[0]
    index = next(i for i, e in enumerate(traj.events) if e.event_type == "file_write")
    assert event_detail(traj, index)["preview"] == {"kind": "blob", "text": REPORT_V1, "chars": len(REPORT_V1),
                                                    "truncated": False}
    cut = event_detail(traj, index, limit=10)["preview"]
    assert cut["text"] == REPORT_V1[:10] and cut["truncated"] and cut["chars"] == len(REPORT_V1)
    read = event_detail(traj, next(i for i, e in enumerate(traj.events) if e.event_type == "file_read"))
    assert read["preview"]["kind"] == "none" and read["sizes"] == {"content_length": 900}
    with pytest.raises(IndexError, match="no event 99"):
        event_detail(traj, 99)


def test_timeline_browser_starts_on_the_first_trajectory_and_lists_them_all(trajs):
    widget = TimelineBrowser(trajs)
    assert [c["id"] for c in widget.choices] == [t.id for t in trajs]
    assert widget.choices[0]["actions"] == BEHAVIORAL_IN_FIXTURE and widget.choices[0]["events"] == len(trajs[0])
    assert widget.selected == trajs[0].id and widget.events == timeline_events(trajs[0])
    assert widget.rows == row_order(widget.events) and widget.selected_event == -1 and widget.detail == {}
    state = widget.get_state()  # what the front end receives
    assert state["events"] == widget.events and state["selected"] == trajs[0].id
    assert state["colors"]["write"] == widget.colors["write"]


def test_timeline_browser_follows_clicks_trajectory_and_metadata_switch(trajs):
    widget = TimelineBrowser(trajs)
    edit = next(i for i, e in enumerate(trajs[0].events) if e.event_type == "file_edit")
    widget.set_state({"selected_event": edit})  # a click in the view arrives as a state update
    assert widget.detail == event_detail(trajs[0], edit)
    widget.set_state({"metadata": True})
    assert len(widget.events) == len(trajs[0]) and widget.selected_event == edit  # still on the timeline
    widget.set_state({"selected_event": 0})  # session_start: a metadata event
    assert widget.detail["type"] == "session_start"
    widget.set_state({"metadata": False})  # hidden now: the detail pane clears
    assert widget.selected_event == -1 and widget.detail == {}
    widget.set_state({"selected_event": edit})
    widget.set_state({"selected": trajs[1].id})
    assert widget.trajectory is trajs[1] and widget.selected_event == -1 and widget.detail == {}
    assert widget.events == timeline_events(trajs[1])


def test_timeline_browser_refuses_unknown_trajectories_and_events(trajs):
    widget = TimelineBrowser(trajs[0])
    with pytest.raises(traitlets.TraitError, match="unknown trajectory 'nope'"):
        widget.selected = "nope"
    with pytest.raises(traitlets.TraitError, match="event 0 is not on the timeline"):
        widget.selected_event = 0  # session_start is hidden while metadata is off
    with pytest.raises(ValueError, match="given twice"):
        TimelineBrowser([trajs[0], trajs[0]])
    with pytest.raises(ValueError, match="no trajectories"):
        TimelineBrowser([])


@pytest.mark.parametrize("widget_class", [TimelineBrowser, ItemBrowser])
def test_the_views_load_nothing_from_the_network(widget_class):
    esm, css = str(widget_class._esm), str(widget_class._css)
    assert "export default" in esm and "render" in esm and css.strip()
    assert not re.search(r"^\s*import\b|\bimport\s*\(|\bfetch\s*\(|https://|@import", esm + css, re.M)


# -- items ---------------------------------------------------------------------------------------------


def _item(qid, track, sub_track, persona, choices=("yes", "no", "maybe"), correct="B"):
    return Item(question_id=qid, track=track, sub_track=sub_track, sub_class="x", channel="procedural",
                profile_id=persona, input_trajectories=(f"{persona}_T-01", f"{persona}_T-05"),
                question=f"question {qid}?", choices=tuple(choices), correct=correct)


@pytest.fixture
def items():
    return [
        _item("q1", "T2_reasoning", "behavioral_inference", "p3"),
        _item("q2", "T1_understanding", "behavioral_fingerprint", "p1"),
        _item("q3", "T1_understanding", "attribute_recognition", "p3", correct="C"),
        _item("q4", "T1_understanding", "attribute_recognition", "p1", correct="A"),
        _item("q5", "T1_understanding", "profile_reconstruction", "p1", choices=(), correct="A methodical planner."),
        _item("q6", "T3_detection", "anomaly_detection", "p7"),
    ]


def test_filter_items_keeps_the_matching_items_in_order(items):
    ids = lambda found: [i.question_id for i in found]  # noqa: E731
    assert ids(filter_items(items)) == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert ids(filter_items(items, track="T1_understanding")) == ["q2", "q3", "q4", "q5"]
    assert ids(filter_items(items, sub_track="attribute_recognition")) == ["q3", "q4"]
    assert ids(filter_items(items, persona="p1")) == ["q2", "q4", "q5"]
    assert ids(filter_items(items, track="T1_understanding", sub_track="attribute_recognition", persona="p1")) == ["q4"]
    assert filter_items(items, track="T2_reasoning", persona="p1") == []


def test_filter_options_follow_the_paper_order_and_narrow_with_the_track(items):
    assert filter_options(items) == {
        "tracks": ["T1_understanding", "T2_reasoning", "T3_detection"],
        "sub_tracks": ["attribute_recognition", "behavioral_fingerprint", "profile_reconstruction",
                       "behavioral_inference", "anomaly_detection"],
        "personas": ["p3", "p1", "p7"]}
    t1 = filter_options(items, track="T1_understanding", sub_track="attribute_recognition")
    assert t1["sub_tracks"] == ["attribute_recognition", "behavioral_fingerprint", "profile_reconstruction"]
    assert t1["personas"] == ["p3", "p1"]


def test_item_record_holds_the_question_lettered_choices_and_answers(items):
    answers = [{"method": "filegramos", "answer": "B", "is_correct": True}]
    record = item_record(items[0], answers)
    assert record["question_id"] == "q1" and record["question"] == "question q1?" and record["is_mcq"]
    assert record["choices"] == [{"letter": "A", "text": "yes"}, {"letter": "B", "text": "no"},
                                 {"letter": "C", "text": "maybe"}]
    assert (record["correct"], record["correct_text"]) == ("B", "no") and record["chance"] == pytest.approx(1 / 3)
    assert record["input_trajectories"] == ["p3_T-01", "p3_T-05"] and record["answers"] == answers
    free = item_record(items[4])
    assert not free["is_mcq"] and free["choices"] == [] and free["correct_text"] == "A methodical planner."


def test_answers_by_question_groups_the_results_rows(items):
    results = pl.DataFrame({"method": ["naive_rag", "filegramos", "naive_rag", "filegramos"],
                            "question_id": ["q1", "q1", "q5", "q5"], "answer": ["A", "B", "text", None],
                            "is_correct": [False, True, None, None], "score": [0.0, 1.0, 62.5, float("nan")],
                            "latency_s": [0.1, 0.2, 0.3, 0.4]})
    grouped = answers_by_question(results)
    assert list(grouped) == ["q1", "q5"]
    assert grouped["q1"] == [{"method": "naive_rag", "answer": "A", "is_correct": False, "score": 0.0},
                             {"method": "filegramos", "answer": "B", "is_correct": True, "score": 1.0}]
    assert grouped["q5"][1]["score"] is None  # NaN is not JSON
    with pytest.raises(ValueError, match="no column.*is_correct"):
        answers_by_question(results.drop("is_correct"))


def test_item_browser_filters_narrow_the_items_and_fall_back_to_all(items):
    widget = ItemBrowser(items)
    assert widget.count == 6 and widget.item == item_record(items[0]) and widget.tracks[0] == "T1_understanding"
    widget.set_state({"track": "T1_understanding"})
    assert widget.count == 4 and [i.question_id for i in widget.items] == ["q2", "q3", "q4", "q5"]
    assert widget.sub_tracks == ["attribute_recognition", "behavioral_fingerprint", "profile_reconstruction"]
    assert widget.item["question_id"] == "q2"
    widget.set_state({"sub_track": "attribute_recognition", "persona": "p1"})
    assert widget.count == 1 and widget.item["question_id"] == "q4" and widget.personas == ["p3", "p1"]
    widget.set_state({"track": "T3_detection"})  # the sub-task and the persona are not in T3: back to all
    assert (widget.sub_track, widget.persona) == ("", "") and widget.count == 1
    assert widget.item["question_id"] == "q6" and widget.personas == ["p7"]
    with pytest.raises(traitlets.TraitError, match="no item has track 'T9'"):
        widget.track = "T9"


def test_item_browser_steps_clamps_and_hides_the_answer_again(items):
    widget = ItemBrowser(items, track="T1_understanding")
    assert widget.count == 4
    widget.set_state({"position": 2})
    assert widget.current is items[3] and widget.item == item_record(items[3])
    widget.set_state({"reveal": True})
    assert widget.reveal and widget.get_state()["reveal"] is True
    widget.set_state({"position": 3})
    assert not widget.reveal and widget.item["question_id"] == "q5"  # a new item starts hidden
    widget.position = 99
    assert widget.position == 3
    widget.position = -5
    assert widget.position == 0 and widget.item["question_id"] == "q2"
    widget.set_state({"position": 3, "track": "T2_reasoning"})  # a new filter starts at its first item
    assert widget.position == 0 and widget.item["question_id"] == "q1"


def test_item_browser_shows_each_methods_answer_for_the_item(items):
    results = [{"method": m, "question_id": q, "answer": a, "is_correct": a == "B"}
               for q in ("q1", "q6") for m, a in (("no_context", "A"), ("filegramos", "B"))]
    widget = ItemBrowser(items, results=results)
    assert widget.has_results
    assert [(a["method"], a["answer"], a["is_correct"]) for a in widget.item["answers"]] == [
        ("no_context", "A", False), ("filegramos", "B", True)]
    widget.set_state({"position": 1})
    assert widget.item["question_id"] == "q2" and widget.item["answers"] == []
    assert not ItemBrowser(items).has_results


def test_item_browser_over_built_items_counts_every_sub_task(tmp_path):
    from filegram_kit.bench.generate import build_items
    from filegram_kit.engine import build_corpus

    build_corpus(tmp_path, profiles=["p1_methodical", "p3_efficient_executor"], tasks=["T-01", "T-05", "T-09"],
                 workers=1, progress=False)
    built = build_items(tmp_path, seed=0, progress=False)
    widget = ItemBrowser(built)
    assert widget.count == len(built) and widget.item == item_record(built[0])
    for sub_track in filter_options(built)["sub_tracks"]:
        widget.set_state({"sub_track": sub_track})
        assert widget.count == sum(i.sub_track == sub_track for i in built) > 0
        assert {i.sub_track for i in widget.items} == {sub_track}
    assert sum(len(filter_items(built, persona=p)) for p in filter_options(built)["personas"]) == len(built)
