"""Property-based fuzzing of the trajectory loader and the item loader: whatever is on disk, either a result or
an error naming the file, the event (or row) and the field; `quarantine=True` never raises. 1,000 generated
inputs per loader, derandomised (the same inputs on every run)."""

from __future__ import annotations

import copy
import json
import tempfile
import warnings
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from filegram_kit.bench.items import ItemError, load_items
from filegram_kit.traces.load import load_trajectories
from filegram_kit.traces.validation import TraceError

from .conftest import raw_events
from .fuzz import FUZZ, values

BASE = [e for e in raw_events() if not any(isinstance(v, dict) and "hash" in v for v in e.values())]  # no media


@st.composite
def mutated_events(draw) -> object:
    """The fixture's events with a few fields changed, removed or added, or events out of thin air."""
    if draw(st.integers(0, 9)) == 0:
        return draw(values)
    events = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 3))):
        event = events[draw(st.integers(0, len(events) - 1))]
        name = draw(st.sampled_from(sorted(event)) | st.text(max_size=6))
        action = draw(st.integers(0, 2))
        if action == 0:
            event.pop(name, None)
        else:
            event[name] = draw(values)
    return events


def _trajectory(events: object, summary: object | None) -> Path:
    corpus = Path(tempfile.mkdtemp(prefix="fuzz-"))
    folder = corpus / "signal" / "p1_methodical_T-05"
    folder.mkdir(parents=True)
    (folder / "events.json").write_text(json.dumps(events), encoding="utf-8")
    if summary is not None:
        (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return corpus


@FUZZ
@given(mutated_events(), st.none() | values)
def test_a_trajectory_loads_or_is_refused_by_file_event_and_field(events, summary):
    corpus = _trajectory(events, summary)
    try:
        load_trajectories(corpus, progress=False, store=False)
    except TraceError as err:
        assert err.file.startswith(str(corpus)), err
        if isinstance(events, list) and err.file.endswith("events.json") and "not a list" not in err.reason:
            assert err.event_index is not None, f"no event index: {err}"
            if isinstance(events[err.event_index], dict):
                assert err.field is not None, f"no field: {err}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = load_trajectories(corpus, progress=False, store=False, quarantine=True)  # never raises
    assert len(loaded) + sum(q.event_index is None for q in loaded.quarantine) == 1


ITEM = {"question_id": "q1", "track": "T1_understanding", "sub_track": "attribute_recognition",
        "sub_class": "x", "channel": "procedural", "question": "Which?", "choices": '["a", "b", "c"]',
        "correct": "B", "input_trajectories": '["p1_methodical_T-05"]', "profile_id": "p1_methodical",
        "metadata": "{}"}


@st.composite
def item_rows(draw) -> list:
    rows = []
    for k in range(draw(st.integers(0, 3))):
        row = dict(ITEM, question_id=f"q{k}")
        for _ in range(draw(st.integers(0, 2))):
            name = draw(st.sampled_from(sorted(ITEM)) | st.text(max_size=5))
            if draw(st.booleans()):
                row.pop(name, None)
            else:
                row[name] = draw(values)
        rows.append(row if draw(st.integers(0, 9)) else draw(values))
    return rows


@FUZZ
@given(item_rows(), st.sampled_from([".jsonl", ".json"]), st.booleans())
def test_an_item_file_loads_or_is_refused_by_file_row_and_field(rows, suffix, garble):
    path = Path(tempfile.mkdtemp(prefix="fuzz-")) / f"items{suffix}"
    text = "\n".join(json.dumps(r) for r in rows) if suffix == ".jsonl" else json.dumps(rows)
    path.write_bytes(text.encode("utf-8") + (b"\xff{" if garble else b""))
    try:
        load_items(path)
    except ItemError as err:
        assert err.file == str(path), err
        if err.row is not None and isinstance(rows[err.row] if err.row < len(rows) else None, dict) \
                and "JSON" not in err.reason:
            assert err.field is not None, f"no field: {err}"
