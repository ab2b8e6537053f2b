"""The columnar event store: the same trajectories, frames and fingerprints as the JSON path, whatever the input.

Every check compares the store with the JSON path itself (`store=False`, `events_frame(clean(...))`), never
with numbers copied from the store's own code. The mutation table feeds the fast, msgspec-based reader
inputs at the edges of what `parse_event` accepts: whatever the fast path makes of a folder, the JSON path
(the slow path of the conversion) must make exactly the same rows and problems of it.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import shutil
import warnings
from pathlib import Path

import polars as pl
import pytest

from filegram_kit.behaviour.fingerprint import (
    TABLE_ROWS,
    extended_features,
    fingerprint_frame,
    fingerprints,
    table_rows_of,
)
from filegram_kit.engine import build_corpus
from filegram_kit.store import EventStore, StoreError, behaviour, update_store
from filegram_kit.store.convert import Part, convert
from filegram_kit.store.fastparse import decode_json, split_events
from filegram_kit.store.lazyfields import LazyFields
from filegram_kit.traces.cleaning import clean
from filegram_kit.traces.frames import events_frame
from filegram_kit.traces.load import TraceError, load_trajectories


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("store") / "corpus"
    build_corpus(out, profiles=["p1", "p3"], tasks=["T-01", "T-05", "T-12", "T-29"], workers=1, progress=False)
    return out


@pytest.fixture
def copy(corpus, tmp_path) -> Path:
    """A private copy of the corpus (without its store), for tests that change files."""
    out = tmp_path / "corpus"
    shutil.copytree(corpus, out, ignore=shutil.ignore_patterns("store", "workspaces"))
    return out


def _same_trajectories(a, b) -> None:
    assert [t.id for t in a] == [t.id for t in b]
    for x, y in zip(a, b, strict=True):
        assert (x.profile_id, x.task_id, x.source, dict(x.summary)) == (y.profile_id, y.task_id, y.source,
                                                                         dict(y.summary))
        assert x.events == y.events
        assert [e.to_dict() for e in x.events] == [e.to_dict() for e in y.events]  # field order too
        assert x.media.root == y.media.root


def test_store_loads_the_same_trajectories_as_the_json_path(copy):
    report = update_store(copy, progress=False)
    assert (report.converted, report.problems) == (8, 0)
    assert report.raw_events == sum(len(t) for t in load_trajectories(copy, store=False))
    store = EventStore.open(copy)
    assert store is not None and len(store.served(sorted((copy / "signal").iterdir()))[0]) == 8
    _same_trajectories(load_trajectories(copy), load_trajectories(copy, store=False))
    chosen = load_trajectories(copy, profiles=["p3_efficient_executor"], tasks=["T-12"])
    assert [t.id for t in chosen] == ["p3_efficient_executor_T-12"]


def test_behaviour_frame_and_fingerprints_equal_the_json_path(copy):
    update_store(copy, progress=False)
    trajs = clean(load_trajectories(copy, store=False)).trajectories
    frame, ids = behaviour(copy, with_content=True)
    assert frame.collect().equals(events_frame(trajs, with_content=True))
    assert ids["trajectory_id"].to_list() == [t.id for t in trajs]
    assert fingerprints(copy).equals(fingerprints(trajs))
    assert extended_features(copy).equals(extended_features(trajs))
    assert (copy / "store" / "raw").is_dir()  # it was the store that answered
    unordered, _ = behaviour(copy, ordered=False)
    assert unordered.collect().sort("trajectory_id", "event_index").equals(events_frame(trajs))
    counted, _ = behaviour(copy, table_rows=True)  # the stored count of each text's table rows, made from it
    texts = events_frame(trajs, with_content=True)
    expected = texts.select(table_rows_of(pl.col("content")))["content"].to_list()
    assert counted.collect()[TABLE_ROWS].to_list() == expected
    assert fingerprint_frame(counted).equals(fingerprint_frame(texts))


def _event_fields(rows) -> list[LazyFields]:
    """Each stored event's fields, read back from its trajectory's JSON row as a store load reads them."""
    return [LazyFields(b) for data in rows.json["json"] for b in split_events(data)]


def _same_rows(fast, slow) -> None:
    """Index rows equal, event rows equal, raw rows equal, the JSON meaning the same fields event by event (the
    fast path keeps the file's bytes, the slow one writes the parsed events again)."""
    (fast, _), (slow, _) = fast, slow
    assert fast.index == slow.index
    assert fast.events.equals(slow.events)
    assert fast.raw.equals(slow.raw)
    assert fast.json["trajectory_id"].equals(slow.json["trajectory_id"])
    assert _event_fields(fast) == _event_fields(slow)
    assert len(_event_fields(fast)) == fast.raw.height


def test_fast_and_slow_conversion_give_the_same_rows(corpus):
    for directory in sorted((corpus / "signal").iterdir()):
        fast = convert(directory)
        assert fast[1], f"{directory.name}: the engine's own output should take the fast path"
        _same_rows(fast, convert(directory, fast=False))


def test_a_changed_trajectory_is_read_from_json_until_the_store_is_updated(copy):
    update_store(copy, progress=False)
    target = copy / "signal" / "p1_methodical_T-05" / "events.json"
    events = json.loads(target.read_text(encoding="utf-8"))
    read = next(e for e in events if e["event_type"] == "file_read")
    read["content_length"] += 1
    target.write_text(json.dumps(events), encoding="utf-8")
    fresh = load_trajectories(copy, store=False)
    _same_trajectories(load_trajectories(copy), fresh)  # the stale trajectory came from its events.json
    assert fingerprints(copy).equals(fingerprints(clean(fresh).trajectories))  # seven stored, one from JSON
    assert EventStore.open(copy).served([target.parent])[0] == []
    states = dict(EventStore.open(copy).status().select("trajectory_id", "state").iter_rows())
    assert states.pop("p1_methodical_T-05") == "stale" and set(states.values()) == {"current"}
    report = update_store(copy, progress=False)
    assert (report.converted, report.kept) == (1, 7)
    _same_trajectories(load_trajectories(copy), fresh)
    assert EventStore.open(copy).served([target.parent])[0] == ["p1_methodical_T-05"]


def test_removed_and_added_trajectories_and_no_orphan_parts(copy):
    update_store(copy, progress=False, chunk=3)
    parts_before = sorted(p.name for p in (copy / "store" / "events").iterdir())
    assert len(parts_before) == 3  # 8 trajectories in parts of 3
    shutil.rmtree(copy / "signal" / "p3_efficient_executor_T-29")
    shutil.copytree(copy / "signal" / "p1_methodical_T-01", copy / "signal" / "p9_new_T-01")
    status = EventStore.open(copy).status()
    assert dict(status.group_by("state").len().iter_rows()) == {"current": 7, "gone": 1, "new": 1}
    # computed over every stored row while the corpus is checked: the gone trajectory's row is dropped, the new
    # one's made from its JSON
    fresh = fingerprints(clean(load_trajectories(copy, store=False)).trajectories)
    assert fingerprints(copy).equals(fresh) and "p9_new_T-01" in fresh["trajectory_id"].to_list()
    shutil.rmtree(copy / "signal" / "p9_new_T-01")
    report = update_store(copy, progress=False, chunk=3)
    assert (report.converted, report.removed, report.kept) == (0, 1, 7)
    store = EventStore.open(copy)
    assert "p3_efficient_executor_T-29" not in store.index["trajectory_id"].to_list()
    named = {f"{p}.parquet" for p in store.index["part"]}
    for table in ("raw", "events", "json"):
        assert {p.name for p in (copy / "store" / table).iterdir()} == named  # the old part is gone
    assert store.scan_raw().collect()["trajectory_id"].n_unique() == 7
    _same_trajectories(load_trajectories(copy), load_trajectories(copy, store=False))


def test_store_made_by_other_code_is_never_read_and_is_rebuilt(copy, monkeypatch):
    update_store(copy, progress=False)
    manifest = copy / "store" / "STORE.json"
    manifest.write_text(json.dumps({"format": 1, "code": "other"}), encoding="utf-8")
    assert EventStore.open(copy) is None
    assert update_store(copy, progress=False).converted == 8
    assert EventStore.open(copy) is not None


def _break(copy: Path, trajectory: str, change) -> Path:
    path = copy / "signal" / trajectory / "events.json"
    events = json.loads(path.read_text(encoding="utf-8"))
    change(events)
    path.write_text(json.dumps(events), encoding="utf-8")
    return path


def _errors(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001
        return type(exc), str(exc)
    return None


def test_a_bad_trajectory_is_left_to_the_json_path_with_the_same_errors(copy):
    def drop_path(events):
        del next(e for e in events if e["event_type"] == "file_read")["file_path"]

    _break(copy, "p1_methodical_T-12", drop_path)
    blob = next((copy / "signal" / "p3_efficient_executor_T-01" / "media" / "blobs").iterdir())
    blob.unlink()
    report = update_store(copy, progress=False)
    assert report.problems == 2
    problems = EventStore.open(copy).problems()
    assert set(problems["trajectory_id"]) == {"p1_methodical_T-12", "p3_efficient_executor_T-01"}
    assert problems.filter(pl.col("trajectory_id") == "p1_methodical_T-12")["field"].to_list() == ["file_path"]
    for kwargs in ({}, {"check_media": False}):
        expected = _errors(lambda kw=kwargs: load_trajectories(copy, store=False, **kw))
        assert expected is not None and expected[0] is TraceError
        assert _errors(lambda kw=kwargs: load_trajectories(copy, **kw)) == expected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = load_trajectories(copy, quarantine=True)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        theirs = load_trajectories(copy, quarantine=True, store=False)
    assert ours.quarantine == theirs.quarantine and len(ours.quarantine) == 2
    assert [str(w.message) for w in caught] == [str(w.message) for w in theirs_warned]
    _same_trajectories(ours, theirs)


def test_conversion_survives_a_folder_the_json_path_cannot_read(copy):
    (copy / "signal" / "p1_methodical_T-01" / "events.json").write_text("[{", encoding="utf-8")
    _break(copy, "p1_methodical_T-05", lambda events: events[3].update(event_type={"not": "a type"}))
    report = update_store(copy, progress=False)
    assert report.problems == 2 and report.converted == 8
    assert _errors(lambda: load_trajectories(copy)) == _errors(lambda: load_trajectories(copy, store=False))


# -- the fast reader at the edges of what parse_event accepts -------------------------------------------------

H = "0123456789abcdef"
MUTATIONS = {  # name -> (event type to change, change)
    "int as integral float": ("file_read", lambda e: e.update(content_length=float(e["content_length"]))),
    "int as fraction": ("file_read", lambda e: e.update(content_length=3.5)),
    "int as string": ("file_read", lambda e: e.update(directory_depth="1")),
    "int as bool": ("file_read", lambda e: e.update(view_count=True)),
    "huge int": ("file_write", lambda e: e.update(content_length=2 ** 70)),
    "num as int": ("cross_file_reference", lambda e: e.update(interval_ms=7)),
    "num NaN": ("cross_file_reference", lambda e: e.update(interval_ms=math.nan)),
    "num infinite": ("cross_file_reference", lambda e: e.update(interval_ms=math.inf)),
    "optional num null": ("file_read", lambda e: e.update(revisit_interval_ms=None)),
    "required nullable absent": ("file_read", lambda e: e.pop("revisit_interval_ms", None)),
    "str as number": ("file_read", lambda e: e.update(file_type=5)),
    "empty str": ("file_read", lambda e: e.update(file_type="")),
    "lone surrogate": ("file_read", lambda e: e.update(file_type="\ud800")),
    "str with sandbox twice": ("file_read", lambda e: e.update(
        file_path="/x/sandbox/a_T-01/sandbox/b_T-02/n.md")),
    "windows sandbox path": ("file_read", lambda e: e.update(file_path="C:\\w\\sandbox\\p1_T-01\\notes\\a.md")),
    "closed vocabulary": ("file_write", lambda e: e.update(operation="append")),
    "list of mixed": ("file_search", lambda e: e.update(files_opened_after=[1, "a.md"])),
    "list with sandbox path": ("file_search", lambda e: e.update(
        files_opened_after=["/home/agent/filegram/sandbox/p1_T-01/a.md", "b.md"])),
    "list as string": ("file_search", lambda e: e.update(files_opened_after="a.md")),
    "view range short": ("file_read", lambda e: e.update(view_range=[1])),
    "view range float": ("file_read", lambda e: e.update(view_range=[1, 2.0])),
    "view range null": ("file_read", lambda e: e.update(view_range=None)),
    "view range absent": ("file_read", lambda e: e.pop("view_range")),
    "unknown field": ("file_read", lambda e: e.update(mood="curious")),
    "unknown field on metadata": ("tool_call", lambda e: e.update(mood="curious")),
    "metadata num NaN": ("llm_response", lambda e: e.update(response_time_ms=math.nan)),
    "generator fields absent": ("file_read", lambda e: [e.pop(k, None) for k in
                                                        ("message_id", "model_provider", "model_name")]),
    "event id as number": ("file_read", lambda e: e.update(event_id=5)),
    "timestamp as string": ("file_read", lambda e: e.update(timestamp="now")),
    "timestamp as int": ("file_read", lambda e: e.update(timestamp=int(e["timestamp"]))),
    "session null": ("file_read", lambda e: e.update(session_id=None)),
    "session absent": ("file_read", lambda e: e.pop("session_id")),
    "profile absent": ("file_read", lambda e: e.pop("profile_id")),
    "unknown event type": ("file_read", lambda e: e.update(event_type="file_teleport")),
    "unused event type": ("file_read", lambda e: e.update(event_type="todo_created")),
    "ref as bare hash": ("file_write", lambda e: e.update(media_ref=e["media_ref"]["hash"])),
    "ref as path string": ("file_write", lambda e: e.update(media_ref=e["media_ref"]["path"])),
    "ref with hash only": ("file_write", lambda e: e.update(media_ref={"hash": e["media_ref"]["hash"]})),
    "ref escaping": ("file_write", lambda e: e.update(media_ref={"path": "../events.json"})),
    "ref missing file": ("file_write", lambda e: e.update(media_ref={"path": f"blobs/{H}.blob"})),
    "ref path not a string": ("file_write", lambda e: e.update(media_ref={"path": 5, "hash": H})),
    "ref empty string": ("file_write", lambda e: e.update(media_ref="")),
    "ref null": ("file_write", lambda e: e.update(media_ref=None)),
    "edit ref null": ("file_edit", lambda e: e.update(media_ref_new=None)),
    "snapshot ref missing": ("fs_snapshot", lambda e: e.update(media_ref={"path": f"blobs/{H}.blob"})),
}


def _mutated(source: Path, tmp: Path, kind: str, change) -> Path:
    out = tmp / source.name
    shutil.copytree(source, out)
    events = json.loads((source / "events.json").read_text(encoding="utf-8"))
    for event in (e for e in events if e["event_type"] == kind):
        try:
            change(event)  # the first event of the type that has what the change reads
        except (KeyError, TypeError):
            continue
        break
    else:
        pytest.skip(f"no {kind} event in {source.name} to change")
    (out / "events.json").write_text(json.dumps(events, indent=2), encoding="utf-8")  # \ud800 stays an escape
    return out


def _source(corpus: Path, kind: str) -> Path:
    for directory in sorted((corpus / "signal").iterdir()):
        if f'"event_type": "{kind}"' in (directory / "events.json").read_text(encoding="utf-8"):
            return directory
    pytest.skip(f"no {kind} event in the corpus")


FAST = {"num as int", "optional num null", "str with sandbox twice", "windows sandbox path",
        "list with sandbox path", "view range null", "unknown field on metadata", "generator fields absent",
        "timestamp as int", "session null", "session absent", "profile absent", "unused event type",
        "ref as path string", "ref null", "edit ref null", "empty str"}  # the fast path takes these


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_fast_path_never_disagrees_with_the_json_path(name, corpus, tmp_path):
    kind, change = MUTATIONS[name]
    folder = _mutated(_source(corpus, kind), tmp_path, kind, change)
    fast, slow = convert(folder), convert(folder, fast=False)
    _same_rows(fast, slow)
    assert fast[1] == (name in FAST)
    if fast[0].index[0]["problems"] is None:  # and the stored events read back as the JSON path loads them
        part = Part()
        part.add(folder)
        loaded = load_trajectories(folder, store=False)[0]
        assert _event_fields(part.frames()) == [dict(e.fields) for e in loaded.events]


def test_the_summary_and_content_edges(corpus, tmp_path):
    source = _source(corpus, "file_write")
    cases = {"summary not an object": lambda d: (d / "summary.json").write_text("[1]", encoding="utf-8"),
             "summary NaN": lambda d: (d / "summary.json").write_text('{"x": NaN}', encoding="utf-8"),
             "summary absent": lambda d: (d / "summary.json").unlink(),
             "content with CRLF": lambda d: _rewrite_blob(d, lambda b: b.replace(b"\n", b"\r\n")),
             "content not UTF-8": lambda d: _rewrite_blob(d, lambda b: b + b"\xff")}
    for name, change in cases.items():
        folder = tmp_path / name.replace(" ", "_") / source.name
        shutil.copytree(source, folder)
        change(folder)
        _same_rows(convert(folder), convert(folder, fast=False))


def _rewrite_blob(directory: Path, change) -> None:
    events = json.loads((directory / "events.json").read_text(encoding="utf-8"))
    ref = next(e["media_ref"]["path"] for e in events if e["event_type"] == "file_write" and e.get("media_ref"))
    path = directory / "media" / ref
    path.write_bytes(change(path.read_bytes()))


@pytest.mark.parametrize("text", ['{"a": 1, "a": 2}', '"\\ud800x"', "NaN", "[Infinity]", "123456789012345678901234",
                                  "1E400", "-0", "0.1", '"\\u0000"', "[1.5e-320]", '{"k": [true, null, "é"]}'])
def test_decode_json_reads_what_json_loads_reads(text):
    assert _same_value(decode_json(text.encode("utf-8")), json.loads(text))


def _same_value(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same_value, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def test_lazy_fields_behave_as_the_dict():
    data = json.dumps({"event_id": "e", "event_type": "file_read", "timestamp": 1, "file_path": "a.md",
                       "view_range": [1, 2]}).encode()
    fields = LazyFields(data)
    expected = {"file_path": "a.md", "view_range": [1, 2]}
    assert fields == expected and expected == fields
    assert fields.get("file_path") == "a.md" and "event_id" not in fields and list(fields) == list(expected)
    assert pickle.loads(pickle.dumps(fields)) == fields and type(pickle.loads(pickle.dumps(fields))) is dict
    assert fields != {"file_path": "b.md", "view_range": [1, 2]}


def test_split_events_cuts_an_array_into_each_events_json():
    fast = split_events(b'[ {"a": 1},\n  {"b": [2, {"c": "]"}]} ]')  # msgspec reads it: views into the bytes
    assert [bytes(x) for x in fast] == [b'{"a": 1}', b'{"b": [2, {"c": "]"}]}']
    slow = split_events(b'[{"a": NaN}, {"b": "\\ud800"}]')  # only json.loads reads it: each event written again
    assert math.isnan(LazyFields(slow[0])["a"]) and LazyFields(slow[1]) == {"b": "\ud800"}
    assert [LazyFields(x) for x in fast] == [{"a": 1}, {"b": [2, {"c": "]"}]}]


def test_a_store_whose_tables_disagree_is_refused_by_name(copy):
    update_store(copy, progress=False)
    part = next((copy / "store" / "json").iterdir())
    frame = pl.read_parquet(part)
    cut = frame.with_columns(pl.col("json").map_elements(lambda b: json.dumps(json.loads(b)[1:]).encode(),
                                                         return_dtype=pl.Binary))
    cut.write_parquet(part)
    loaded = load_trajectories(copy)  # events' fields are cut from the JSON when first read
    with pytest.raises(StoreError, match=rf"trajectory {frame['trajectory_id'][0]} has \d+ events in raw/ but "
                                         r"\d+ in json/"):
        [dict(e.fields) for t in loaded for e in t.events]


def test_two_updates_of_one_store_do_not_mix(copy):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        reports = list(pool.map(lambda _: update_store(copy, progress=False), range(2)))
    assert sorted(r.converted for r in reports) == [0, 8]  # the second waited, then found everything current
    _same_trajectories(load_trajectories(copy), load_trajectories(copy, store=False))


def test_not_a_corpus_is_refused_by_name(tmp_path):
    with pytest.raises(StoreError, match="no signal/ folder"):
        update_store(tmp_path)
    assert EventStore.open(tmp_path) is None


def test_parallel_conversion_writes_the_same_rows(copy, tmp_path):
    update_store(copy, progress=False, chunk=2, workers=1)
    serial = {t: pl.read_parquet(copy / "store" / t / "*.parquet").sort("trajectory_id", "event_index")
              for t in ("raw", "events")}
    shutil.rmtree(copy / "store")
    from filegram_kit.store import build

    build_parallel_from = build.PARALLEL_FROM
    try:
        build.PARALLEL_FROM = 0
        update_store(copy, progress=False, chunk=2, workers=2)
    finally:
        build.PARALLEL_FROM = build_parallel_from
    for table, frame in serial.items():
        assert pl.read_parquet(copy / "store" / table / "*.parquet").sort("trajectory_id", "event_index").equals(frame)
    assert len(os.listdir(copy / "store" / "raw")) == 4


def test_lazy_fields_read_by_many_threads_at_once(copy):
    from concurrent.futures import ThreadPoolExecutor

    update_store(copy, progress=False)
    expected = [[dict(e.fields) for e in t.events] for t in load_trajectories(copy, store=False)]
    for _ in range(3):  # fresh, undecoded events each time: the threads race to decode the same ones
        events = [e for t in load_trajectories(copy) for e in t.events]
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda e: dict(e.fields), events * 4))
        assert [dict(e.fields) for e in events] == [f for t in expected for f in t]
