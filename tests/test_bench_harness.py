"""The bench harness (ingest once per input set, streamed rows, resume, error rows, manifest), Table 3 scoring,
the `filegram eval` / `filegram results` commands and the Table 3 artifact, on tiny inputs.

Fake memories are registered by monkeypatching the registry; they record every ingest and query.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from filegram_kit.bench.harness import RESULT_SCHEMA, evaluate, input_set, select
from filegram_kit.bench.manifest import items_hash
from filegram_kit.bench.schema import Item
from filegram_kit.bench.score import COLUMNS, PAPER_TABLE3, format_table3, side_by_side, table3
from filegram_kit.cli import main
from filegram_kit.llm import get_backend
from filegram_kit.llm.cache import ResponseCache
from filegram_kit.memory.base import MEMORIES, Context, MemorySystem

A, B = "p1_methodical_T-05", "p3_efficient_executor_T-12"  # the two trajectories of conftest's `corpus`


class RecordingMemory(MemorySystem):
    """Remembers the session labels it ingested; answers every query with them. Class-level logs."""

    name = "recording"
    ingests: list[tuple[str, tuple[str, ...]]] = []
    queries: list[str] = []
    fail_ingest_with: str | None = None  # ingest raises when a session is labelled with this
    fail_retrieve_on: str | None = None  # retrieve raises RuntimeError for this question
    interrupt_after: int | None = None  # the retrieve after this many raises KeyboardInterrupt

    def ingest(self, trajs, *, backend):
        labels = tuple(t.id for t in trajs)
        type(self).ingests.append((self.name, labels))
        if (self._params.get("fail_on") or self.fail_ingest_with) in labels:
            raise ValueError("cannot digest these sessions")
        self.events_ = sum(len(t.events) for t in trajs)
        self.ingested_ = True
        return self

    def retrieve(self, query, *, backend):
        cls = RecordingMemory
        if cls.interrupt_after is not None and len(cls.queries) >= cls.interrupt_after:
            raise KeyboardInterrupt
        cls.queries.append(query)
        if query == cls.fail_retrieve_on:
            raise RuntimeError("index is gone")
        return Context(f"the user works with alpha files and {self.events_} events")

    def memory_text(self):
        return "x" * (4 * self.events_)


class OtherMemory(RecordingMemory):
    name = "other"


@pytest.fixture
def fakes(monkeypatch):
    monkeypatch.setitem(MEMORIES, "recording", f"{__name__}:RecordingMemory")
    monkeypatch.setitem(MEMORIES, "other", f"{__name__}:OtherMemory")
    for attr, value in (("ingests", []), ("queries", []), ("fail_ingest_with", None), ("fail_retrieve_on", None),
                        ("interrupt_after", None)):
        monkeypatch.setattr(RecordingMemory, attr, value)
    return RecordingMemory


def item(qid, sub_track, inputs, *, channel="procedural", interleave=None, free=False):
    choices = () if free else ("alpha files", "beta folders", "gamma charts")
    metadata = {"interleave": list(interleave)} if interleave else {}
    return Item(qid, "T1_understanding", sub_track, "x", channel, "p1_methodical", tuple(inputs),
                f"Question {qid}: what does this user work with?", choices,
                "names alpha files" if free else "A", metadata)


@pytest.fixture
def items():
    return [item("q1", "attribute_recognition", [A]),
            item("q2", "profile_reconstruction", [A], free=True),
            item("q3", "behavioral_fingerprint", [B], channel="semantic"),
            item("q4", "trace_disentanglement", [A, B], interleave=(A, B), channel="episodic"),
            item("q5", "anomaly_detection", [B, A]),
            item("q6", "attribute_recognition", [A]),
            item("q7", "behavioral_fingerprint", [B], channel="semantic")]


def lines(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def keys(rows) -> list[tuple]:
    return [(r["method"], r["params_hash"], r["backend"], r["model"], r["question_id"], r["seed"]) for r in rows]


# -- grouping ------------------------------------------------------------------------------------------------


def test_input_sets_and_limit(items):
    assert input_set(items[4]) == input_set(item("z", "anomaly_detection", [A, B]))  # a set: order-free
    assert input_set(items[3]) == ("interleave", A, B)  # the interleaved pair is its own input
    assert input_set(items[3]) != input_set(items[4])
    assert [i.question_id for i in select(items, 1)] == ["q1", "q2", "q3", "q4", "q5"]
    assert select(items, None) == items


@pytest.mark.parametrize("workers", [1, 2])
def test_each_input_set_is_ingested_once_per_method(fakes, corpus, items, tmp_path, workers):
    frame = evaluate(items, corpus, ["recording", "other"], out=tmp_path / "run", workers=workers, progress=False)
    # 4 input sets: {A} (q1, q2, q6), {B} (q3, q7), the interleaved pair (q4), {A, B} (q5)
    # sessions are labelled by task id; the interleaved pair arrives as two sessions named as the question names them
    assert sorted(fakes.ingests) == sorted([(m, labels) for m in ("recording", "other")
                                            for labels in (("T-05",), ("T-12",), ("Session 1", "Session 2"),
                                                           ("T-12", "T-05"))])
    assert sorted(fakes.queries) == sorted(i.question for i in items for _ in range(2))
    assert frame.height == 14 and frame["error"].null_count() == 14
    assert frame["question_id"].to_list() == [i.question_id for i in items] * 2  # method, then item order
    a_rows = frame.filter(pl.col("method") == "recording", pl.col("question_id").is_in(["q1", "q2", "q6"]))
    assert a_rows["input_key"].n_unique() == 1 and a_rows["memory_tokens"].n_unique() == 1
    assert frame.filter(pl.col("method") == "recording")["input_key"].n_unique() == 4
    assert frame["memory_tokens"].min() > 0 and frame["context_tokens"].min() > 0
    assert frame.filter(pl.col("question_id") == "q2")["likert"].is_not_null().all()  # free-form went to the judge


# -- streaming and resume -------------------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupted_run_resumes_to_one_row_per_key(fakes, corpus, items, tmp_path, workers):
    out = tmp_path / "run"
    fakes.interrupt_after = 4
    with pytest.raises(KeyboardInterrupt):
        evaluate(items, corpus, ["recording", "other"], out=out, workers=workers, progress=False)
    first = (out / "results.jsonl").read_text(encoding="utf-8")
    done = lines(out)
    assert 0 < len(done) <= 4 and (len(done) == 4 or workers > 1)  # serial: exactly the rows before the stop
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    fakes.interrupt_after, fakes.queries = None, []
    frame = evaluate(items, corpus, ["recording", "other"], out=out, workers=workers, progress=False)
    rows = lines(out)
    assert (out / "results.jsonl").read_text(encoding="utf-8").startswith(first)  # earlier rows untouched
    assert len(rows) == 14 and len(set(keys(rows))) == 14 and frame.height == 14
    assert len(fakes.queries) == 14 - len(done)  # answered items were not asked again
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] | {"errors": None} == {"rows": 14, "written": 14 - len(done), "resumed": len(done),
                                                     "retried": 0, "errors": None}
    assert [r["status"] for r in manifest["runs"]] == ["interrupted", "complete"]


def test_a_torn_last_line_is_cut_and_recomputed(fakes, corpus, items, tmp_path):
    out = tmp_path / "run"
    evaluate(items[:3], corpus, ["recording"], out=out, workers=1, progress=False)
    path = out / "results.jsonl"
    text = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(text[:2]) + text[2][:25], encoding="utf-8")  # a crash in the middle of row 3
    with pytest.warns(UserWarning, match="incomplete last line"):
        evaluate(items[:3], corpus, ["recording"], out=out, workers=1, progress=False)
    rows = lines(out)
    assert [r["question_id"] for r in rows] == ["q1", "q2", "q3"] and len(set(keys(rows))) == 3


def test_rows_written_before_the_is_correct_rename_resume_and_read_as_is_correct(fakes, corpus, items, tmp_path):
    out = tmp_path / "run"
    evaluate(items[:3], corpus, ["recording"], out=out, workers=1, progress=False)
    path = out / "results.jsonl"
    old = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert all("is_correct" in r and "correct" not in r for r in old)
    verdicts = [r["is_correct"] for r in old]
    renamed = [{("correct" if k == "is_correct" else k): v for k, v in r.items()} for r in old]
    path.write_text("".join(json.dumps(r) + "\n" for r in renamed), encoding="utf-8")
    fakes.queries = []
    frame = evaluate(items[:3], corpus, ["recording"], out=out, workers=1, progress=False)
    assert fakes.queries == []  # the old rows count as answered
    assert frame["is_correct"].to_list() == verdicts and "correct" not in frame.columns


def test_other_items_in_the_same_folder_are_refused(fakes, corpus, items, tmp_path):
    evaluate(items, corpus, ["recording"], out=tmp_path / "run", workers=1, progress=False)
    with pytest.raises(ValueError, match="other items"):
        evaluate(items[:2], corpus, ["recording"], out=tmp_path / "run", workers=1, progress=False)


# -- errors ---------------------------------------------------------------------------------------------------


def test_a_second_run_into_a_folder_being_written_refuses(fakes, corpus, items, tmp_path):
    """Two runs appending to one results.jsonl would interleave their rows: the second is refused by name (the
    lock goes with its holder, so a killed run leaves nothing stale: the same folder is usable at once)."""
    from filegram_kit.util.locks import Locked, exclusive

    out = tmp_path / "run"
    with exclusive(out / ".lock"), pytest.raises(Locked, match=f"results folder {out} is in use by another process"):
        evaluate(items, corpus, ["recording"], out=out, workers=1, progress=False)
    assert not (out / "results.jsonl").exists()
    assert evaluate(items, corpus, ["recording"], out=out, workers=1, progress=False).height == len(items)


def test_failures_become_error_rows_and_the_run_goes_on(fakes, corpus, items, tmp_path):
    out = tmp_path / "run"
    fakes.fail_ingest_with, fakes.fail_retrieve_on = "T-12", items[0].question
    broken = item("q8", "behavioral_fingerprint", ["p9_nobody_T-99"])
    frame = evaluate([*items, broken], corpus, ["recording"], out=out, workers=2, progress=False)
    errors = dict(frame.select("question_id", "error").iter_rows())
    # {B} (q3, q7) and {B, A} (q5) hold a session T-12: ingest fails once per input set, each item gets a row
    assert errors == {"q1": "retrieve", "q2": None, "q3": "ingest", "q4": None, "q5": "ingest", "q6": None,
                      "q7": "ingest", "q8": "inputs"}
    assert [labels for _, labels in fakes.ingests].count(("T-12",)) == 1
    messages = dict(frame.select("question_id", "error_message").iter_rows())
    assert messages["q3"] == messages["q7"] == "ValueError: cannot digest these sessions"
    assert messages["q1"] == "RuntimeError: index is gone" and "p9_nobody_T-99" in messages["q8"]
    assert frame.filter(pl.col("error") == "ingest")["score"].null_count() == 3
    assert json.loads((out / "manifest.json").read_text())["counts"]["errors"] == {"retrieve": 1, "ingest": 3,
                                                                                   "inputs": 1}
    # a rerun keeps error rows; retry_errors recomputes them once the cause is gone
    fakes.fail_ingest_with = fakes.fail_retrieve_on = None
    assert evaluate([*items, broken], corpus, ["recording"], out=out, workers=1,
                    progress=False)["error"].to_list() == list(errors.values())
    again = evaluate([*items, broken], corpus, ["recording"], out=out, workers=1, progress=False, retry_errors=True)
    assert dict(again.select("question_id", "error").iter_rows()) == {**dict.fromkeys(errors), "q8": "inputs"}
    assert len(lines(out)) == 8


def test_process_workers_give_the_rows_threads_give(fakes, corpus, items, tmp_path):
    methods = {"recording": {"fail_on": "T-12"}, "other": {}}  # params reach the spawned workers; class state would not
    threads = evaluate(items, corpus, methods, out=tmp_path / "t", workers=2, progress=False)
    evaluate(items, corpus, methods, out=tmp_path / "p", workers=1, progress=False, limit=1)  # q1-q5 done already
    procs = evaluate(items, corpus, methods, out=tmp_path / "p", workers=2, progress=False, executor="process")
    timing = ["latency_s", "ingest_s"]
    assert procs.drop(timing).equals(threads.drop(timing))
    assert procs["error"].to_list().count("ingest") == 3 and len(set(keys(lines(tmp_path / "p")))) == 14
    manifest = json.loads((tmp_path / "p" / "manifest.json").read_text())
    # q6 and q7 per method; recording cannot ingest q7's {B}, so 3 reader calls, summed from the workers
    assert manifest["counts"]["written"] == 4 and manifest["usage"]["query"]["calls"] == 3
    with pytest.raises(ValueError, match="by name"):
        evaluate(items, corpus, methods, backend=get_backend("offline"), out=tmp_path / "x", executor="process")


# -- manifest and per-row accounting ---------------------------------------------------------------------------


def test_manifest_records_the_run(fakes, corpus, items, tmp_path):
    out = tmp_path / "run"
    frame = evaluate(items, corpus, {"recording": {}, "other": {"k": 3}}, out=out, seed=7, workers=2,
                     progress=False)
    m = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert m["status"] == "complete" and m["started_at"] <= m["finished_at"]
    assert m["code"]["git_sha"] is None or len(m["code"]["git_sha"]) == 40
    assert {"filegram_kit", "polars", "numpy", "scikit-learn"} <= set(m["versions"]) and m["python"].count(".") == 2
    assert m["seed"] == 7 and frame["seed"].unique().to_list() == [7]
    assert m["corpus"]["path"] == str(corpus) and m["corpus"]["engine"] is None  # hand-made: no corpus.json
    assert m["items"]["sha256"] == items_hash(items) and m["items"]["count"] == 7
    for spec in m["methods"]:
        canonical = json.dumps(spec["resolved"], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert spec["params_hash"] == hashlib.sha256(canonical.encode()).hexdigest()[:12]
        assert frame.filter(pl.col("method") == spec["name"])["params_hash"].unique().to_list() == [spec["params_hash"]]
    assert m["methods"][1]["resolved"] == {"method": "other", "k": 3}
    assert m["backend"]["name"] == "offline" and m["backend"]["params"]["seed"] == 7  # the run's seed reaches it
    # reader calls: every item asks the query phase once, the free-form item (q2) also the judge, per method
    assert m["usage"]["query"]["calls"] == 14 and m["usage"]["judge"]["calls"] == 2
    assert m["cache"] is None and frame["cache_hit"].null_count() == 14  # offline: no cache, so unknowable


def test_cache_hits_are_recorded_per_row(fakes, corpus, items, tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    first = evaluate(items, corpus, ["recording"], backend=get_backend("offline", cache=cache), out=tmp_path / "a",
                     workers=1, progress=False)
    assert first["cache_hit"].to_list() == [False] * 7
    second = evaluate(items, corpus, ["recording"], backend=get_backend("offline", cache=cache), out=tmp_path / "b",
                      workers=2, progress=False)
    assert second["cache_hit"].to_list() == [True] * 7
    assert second["answer"].to_list() == first["answer"].to_list()
    assert json.loads((tmp_path / "b" / "manifest.json").read_text())["cache"]["hits"] == 8  # 7 items + 1 judge


# -- Table 3 ----------------------------------------------------------------------------------------------------


def row(method, sub_track, channel, score, *, mcq=True, key="s", memory=None, context=100, error=None, phash="h"):
    base = dict.fromkeys(RESULT_SCHEMA)
    base.update(method=method, params_hash=phash, backend="offline", model="offline-v1", question_id="?", seed=0,
                sub_track=sub_track, channel=channel, score=score, mcq=mcq, input_key=key, memory_tokens=memory,
                context_tokens=context, error=error)
    return base


def test_table3_math():
    rows = [row("filegramos", "attribute_recognition", "procedural", s, key="p1", memory=1000, context=c, error=e)
            for s, c, e in ((1.0, 100, None), (1.0, 300, None), (0.0, 200, "parse"), (None, None, "retrieve"))]
    rows += [row("filegramos", "behavioral_fingerprint", "semantic", s, key=k, memory=50)
             for s, k in ((1.0, "t1"), (0.0, "t2"))]
    rows += [row("filegramos", "profile_reconstruction", "semantic", s, mcq=False, key="p2", memory=3000)
             for s in (100.0, 75.0)]  # Likert 5 and 4, already rescaled
    rows += [row("filegramos", "trace_disentanglement", "episodic", s, key="x", memory=10) for s in (1.0, 1.0, 0.0)]
    rows += [row("no_context", "behavioral_fingerprint", "semantic", 0.0, key=k, memory=m, context=0)
             for k, m in (("t1", 0), ("t2", 10))]
    t = {r["method"]: r for r in table3(pl.DataFrame(rows, schema=RESULT_SCHEMA)).iter_rows(named=True)}
    fg = t["filegramos"]
    assert fg["AttrRec"] == 50.0  # 2 of 4: the parse error and the exception row count as wrong
    assert (fg["BehavFP"], fg["ProfRec"], fg["TraceDis"]) == (50.0, 87.5, 66.7)
    assert fg["BehavInf"] is None and fg["AnomDet"] is None and fg["ShiftAna"] is None
    assert fg["Proc"] == 50.0 and fg["Sem"] == 50.0 and fg["Epi"] == 66.7  # Sem ignores the free-form ProfRec rows
    assert fg["Avg"] == round((50 + 50 + 87.5 + 200 / 3) / 4, 1)  # mean of the sub-tasks that have items
    assert fg["Tok In"] == 2000.0  # per persona: the AttrRec and ProfRec input sets (1000, 3000), not 50 or 10
    assert fg["Tok Out"] == round((100 + 300 + 200 + 100 * 7) / 10, 1)
    assert (fg["n"], fg["errors"], fg["label"], fg["backend"]) == (11, 2, "FileGramOS", "offline/offline-v1")
    assert t["no_context"]["Tok In"] == 5.0 and t["no_context"]["Avg"] == 0.0  # no persona sets: all sets' mean
    assert list(t["filegramos"]) == COLUMNS


def test_table3_separates_parameter_sets_and_matches_the_paper_layout():
    rows = [row("filegramos", "attribute_recognition", "procedural", 1.0, phash=h) for h in ("aaaaaaaaaaaa", "bbbb")]
    table = table3(pl.DataFrame(rows, schema=RESULT_SCHEMA))
    assert sorted(table["label"]) == ["FileGramOS [aaaaaa]", "FileGramOS [bbbb]"]
    assert PAPER_TABLE3.columns == COLUMNS and {"FileGrd", "VisGrd"} <= set(PAPER_TABLE3.columns)
    fg = PAPER_TABLE3.filter(pl.col("method") == "filegramos").row(0, named=True)
    assert (fg["Tok In"], fg["Tok Out"], fg["TraceDis"], fg["Avg"]) == (109_700, 4_300, 80.9, 59.6)
    assert (fg["FileGrd"], fg["VisGrd"], fg["Proc"]) == (55.8, 8.5, 60.1)  # the T4 columns sit before the channels
    no_context = PAPER_TABLE3.filter(pl.col("method") == "no_context").row(0, named=True)
    assert PAPER_TABLE3.height == 13 and no_context["ProfRec"] is None and no_context["VisGrd"] is None
    assert no_context["FileGrd"] == 23.8
    text = format_table3(side_by_side(table))
    assert "| paper (Gemini 2.5-Flash) | FileGramOS | gemini/gemini-2.5-flash | 109.7K | 4.3K | 50.6 |" in text
    assert "| paper (Gemini 2.5-Flash) | No Context | gemini/gemini-2.5-flash | – | – | 36.2 |" in text


# -- CLI and the artifact on a tiny engine corpus ---------------------------------------------------------------


def test_cli_eval_and_results(small_corpus, tmp_path, capsys):
    items, out = tmp_path / "items.parquet", tmp_path / "run"
    assert main(["bench", "build", "--corpus", str(small_corpus), "--out", str(items)]) == 0
    capsys.readouterr()
    argv = ["eval", "--items", str(items), "--corpus", str(small_corpus), "--methods", "filegramos", "--out", str(out),
            "--limit", "2", "--workers", "1"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "| FileGramOS | offline/offline-v1 |" in printed
    rows = lines(out)
    per_sub_track, controls = {}, {}
    for r in rows:
        if r["control"]:
            controls[r["method"]] = controls.get(r["method"], 0) + 1
        else:
            per_sub_track[r["sub_track"]] = per_sub_track.get(r["sub_track"], 0) + 1
    assert per_sub_track == {"attribute_recognition": 2, "behavioral_fingerprint": 2, "profile_reconstruction": 2}
    # the controls answer the same items: those that choose among options skip the free-form ones
    assert controls == {"chance": 4, "choices_only": 4, "observer_traces": 4, "observer_engine": 4, "oracle": 4,
                        "oracle_context": 6, "oracle_paraphrased": 6, "oracle_paraphrased_b": 6}
    assert all(r["profile_id"] and r["item_seed"] == 0 for r in rows)
    assert json.loads((out / "manifest.json").read_text())["corpus"]["engine"] is not None
    before = (out / "results.jsonl").read_bytes()
    assert main(argv) == 0 and (out / "results.jsonl").read_bytes() == before  # a rerun only resumes
    capsys.readouterr()
    assert main(["results", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "| ours | FileGramOS | offline/offline-v1 |" in shown and "| paper (printed) | FileGramOS |" in shown
    assert main(["results", str(tmp_path / "nowhere")]) == 2
    assert "no results" in capsys.readouterr().err


def test_table03_artifact_on_a_tiny_corpus(small_corpus, tmp_path):
    from filegram_kit.report import ARTIFACTS
    from filegram_kit.report.bench_tables import OURS, OURS_B, PAPER, TABLE3_METHODS, table03_main_results

    art = ARTIFACTS["table03_main_results"]
    assert art.corpus and art.paper == "Table 3" and art.notebook == "05_benchmark"
    table = table03_main_results(small_corpus, limit=1, workers=1, out=tmp_path / "t3", progress=False)
    ours = table.filter(pl.col("source") == OURS)
    assert set(ours["method"]) <= set(TABLE3_METHODS) and "filegramos" in set(ours["method"])
    assert table.filter(pl.col("source") == PAPER).height == 13
    # one item of each of the tiny corpus' three sub-tasks, plus File and Visual Grounding from their settings
    assert (ours["n"] == 5).all() and ours["FileGrd"].is_not_null().all() and ours["VisGrd"].is_not_null().all()
    for setting in ("multimodal", "visual"):
        assert json.loads((small_corpus.parent / f"corpus_{setting}" / "corpus.json").read_text())["setting"] == setting
    twin = table.filter(pl.col("source") == OURS_B)  # the style-pack check covers tracks 1-3 only
    assert twin["method"].to_list() == ours["method"].to_list() and (twin["n"] == 3).all()
    assert twin["FileGrd"].is_null().all()
    assert json.loads((small_corpus.parent / "corpus_b" / "corpus.json").read_text())["style_pack"] == "B"
    before = (tmp_path / "t3" / "results.jsonl").read_bytes()
    assert table03_main_results(small_corpus, limit=1, workers=1, out=tmp_path / "t3", progress=False).equals(table)
    assert (tmp_path / "t3" / "results.jsonl").read_bytes() == before


def test_style_pack_table_pairs_each_method_with_itself_on_the_twin_corpus(small_corpus, tmp_path):
    from filegram_kit.report.bench_tables import PACK_ROWS, table03_style_packs

    table = table03_style_packs(small_corpus, limit=1, workers=1, out=tmp_path / "t3", progress=False)
    for label in table["label"].unique():
        assert table.filter(pl.col("label") == label)["corpus"].to_list() == list(PACK_ROWS)
    assert table.filter(pl.col("corpus") == "B - A")["Avg"].str.contains(r"^(?:[+-]\d|0\.0)").all()


def test_settings_table_pairs_file_grounding_in_the_text_and_the_multimodal_setting(small_corpus, tmp_path):
    from filegram_kit.bench.results import load_results
    from filegram_kit.report.bench_tables import SETTING_ROWS, table03_settings

    table = table03_settings(small_corpus, limit=1, workers=1, out=tmp_path / "t3", progress=False)
    assert table.columns[:4] == ["label", "setting", "backend", "FileGrd"]
    for label in table["label"].unique():
        assert table.filter(pl.col("label") == label)["setting"].to_list() == list(SETTING_ROWS)
    assert table.filter(pl.col("setting") == "multimodal - text")["FileGrd"].str.contains(r"^(?:[+-]\d|0\.0)").all()
    text = load_results(tmp_path / "t3" / "file_grounding_text")
    multimodal = load_results(tmp_path / "t3" / "multimodal")
    assert set(text["question_id"]) == set(multimodal["question_id"])  # the same items, answered twice
    controls = load_results(tmp_path / "t3").filter(pl.col("control") & (pl.col("sub_track") == "file_grounding"))
    observer = controls.filter(pl.col("method") == "observer_engine")
    assert observer.height and (observer["score"] == 1.0).all()  # the ideal observer reads the source's evidence


def test_pack_differences_are_zero_for_identical_runs_and_find_a_planted_change():
    from filegram_kit.bench.analysis import pack_differences

    rng = np.random.default_rng(0)
    a = pl.DataFrame({"method": "m", "params_hash": "h", "backend": "offline", "model": "x",
                      "question_id": [f"q{i}" for i in range(400)], "item_seed": 0,
                      "profile_id": [f"p{i % 20}" for i in range(400)], "sub_track": "behavioral_fingerprint",
                      "channel": "procedural", "mcq": True, "score": rng.integers(0, 2, 400).astype(float)})
    same = pack_differences(a, a, n_boot=200)
    assert (same["diff"].drop_nulls() == 0).all()
    worse = a.with_columns(pl.when(pl.int_range(400) % 2 == 0).then(0.0).otherwise(pl.col("score")).alias("score"))
    drop = pack_differences(a, worse, n_boot=200).filter(pl.col("column") == "BehavFP").row(0, named=True)
    assert drop["diff"] < 0 and drop["hi"] < 0


def test_cli_eval_on_one_persona_skips_the_trace_observer_and_runs_the_other_controls(tmp_path, capsys):
    from filegram_kit.engine import build_corpus

    corpus, items, out = tmp_path / "corpus", tmp_path / "items.parquet", tmp_path / "run"
    build_corpus(corpus, profiles=["p1"], tasks=["T-01", "T-05", "T-12"], workers=1, progress=False)
    assert main(["bench", "build", "--corpus", str(corpus), "--out", str(items), "--no-audit"]) == 0
    argv = ["eval", "--items", str(items), "--corpus", str(corpus), "--methods", "no_context", "--out", str(out),
            "--limit", "1", "--workers", "1"]
    assert main(argv) == 0
    assert "observer_traces skipped" in capsys.readouterr().out
    methods = {r["method"] for r in lines(out) if r["control"]}
    assert "observer_traces" not in methods and {"chance", "oracle", "oracle_paraphrased"} <= methods


def test_a_reproduce_step_with_error_rows_fails_naming_method_item_and_error(small_corpus, tmp_path, monkeypatch):
    """A bench step (run_items, behind every Table 3 artifact) refuses rows that hold errors: a number over them
    counts each error as a wrong answer. allow_errors keeps the rows (and the old behaviour)."""
    from filegram_kit.bench.results import ErrorRows
    from filegram_kit.memory import base
    from filegram_kit.report.bench_tables import run_items
    from filegram_kit.report.settings import RunSettings

    monkeypatch.setattr(base, "MEMORIES", {**base.MEMORIES, "unbuilt": "filegram_kit.memory.base:MemorySystem"})
    settings = RunSettings(item_seeds=(0,), methods=("no_context", "unbuilt"), workers=1, limit=2)
    run = dict(limit=None, workers=1, out=tmp_path / "run", progress=False)
    with pytest.raises(ErrorRows, match=r"rows hold errors \(ingest: \d+\); first: method unbuilt, item \S+ "
                                        r"\(seed 0\): ingest: NotImplementedError") as caught:
        run_items(small_corpus, ["no_context", "unbuilt"], (0,), settings, **run)
    assert str(tmp_path / "run") in str(caught.value)
    rows = run_items(small_corpus, ["no_context", "unbuilt"], (0,), replace(settings, allow_errors=True), **run)
    errors = rows.filter(pl.col("error").is_not_null())
    assert set(errors["method"]) == {"unbuilt"} and errors.height == rows.filter(pl.col("method") == "unbuilt").height
    assert rows.filter(pl.col("method") == "no_context")["error"].null_count() == rows.filter(
        pl.col("method") == "no_context").height


def test_items_and_finished_rows_are_built_once_per_process_for_a_corpus_as_it_is(small_corpus, tmp_path, monkeypatch):
    """The steps of one reproduce ask for the same item sets and rows again: they are remembered for the corpus
    as it is on disk (an edited ground-truth file is a new corpus), and callers get lists of their own."""
    import os

    from filegram_kit.bench import generate, harness
    from filegram_kit.report.bench_tables import run_items
    from filegram_kit.report.settings import RunSettings

    built, evaluated = [], []
    real_build, real_evaluate = generate.items_from_facts, harness.evaluate
    monkeypatch.setattr(generate, "items_from_facts", lambda *a, **k: built.append(1) or real_build(*a, **k))
    monkeypatch.setattr(harness, "evaluate", lambda *a, **k: evaluated.append(1) or real_evaluate(*a, **k))
    first = generate.build_items(small_corpus, seed=3)
    first.clear()
    again = generate.build_items(small_corpus, seed=3)
    assert len(built) == 1 and again and [i.question_id for i in again] == [
        i.question_id for i in real_build(generate.corpus_facts(small_corpus), seed=3)[0]]
    expressed = small_corpus / "expressed.json"
    stat = expressed.stat()
    os.utime(expressed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    generate.build_items(small_corpus, seed=3)
    assert len(built) == 2  # the corpus changed on disk: built again

    settings = RunSettings(item_seeds=(0,), methods=("no_context",), workers=1, limit=2)
    run = dict(limit=None, workers=1, out=tmp_path / "rows", progress=False)
    rows = run_items(small_corpus, ["no_context"], (0,), settings, **run)
    assert run_items(small_corpus, ["no_context"], (0,), settings, **run) is rows and len(evaluated) == 1
    run_items(small_corpus, ["no_context"], (0,), replace(settings, limit=1), **run)
    assert len(evaluated) == 2  # other settings: computed (here: read back from the folder)


def test_process_batches_are_one_per_persona_the_largest_first():
    from filegram_kit.bench.groups import Group, resolve_methods
    from filegram_kit.bench.parallel import batches

    method = resolve_methods(["no_context"])[0]

    def group(persona: str, n: int) -> Group:
        return Group(method, (persona,), [Item(f"{persona}_{k}", "T1", "s", "c", "procedural", persona, (), "q",
                                               ("a", "b"), "A") for k in range(n)])

    groups = [group("p1", 2), group("p2", 5), group("p1", 2), group("p3", 1), group("p4", 3), group("p5", 1)]
    made = batches(groups, workers=2)
    assert [[g.key[0] for g in batch] for batch in made] == [["p2"], ["p1", "p1"], ["p4"], ["p3"], ["p5"]]
    assert batches(groups[:2], workers=2) == [[groups[0]], [groups[1]]]  # few personas: even chunks, in order


def test_controls_leave_out_observer_traces_when_the_corpus_has_one_persona(small_corpus, tmp_path, monkeypatch):
    from filegram_kit.bench import trace_observer
    from filegram_kit.bench.controls import evaluate_controls
    from filegram_kit.bench.generate import build_items
    from filegram_kit.bench.harness import load_results

    def one_persona(corpus, facts):
        raise trace_observer.TooFewPersonas("it needs at least 2 personas, got ['p1_methodical']")

    monkeypatch.setattr(trace_observer, "trace_facts", one_persona)
    items = [i for i in build_items(small_corpus, seed=0) if i.is_mcq][:3]
    with pytest.warns(UserWarning, match="observer_traces left out"):
        written = evaluate_controls(items, small_corpus, out=tmp_path / "run", controls=["chance", "observer_traces"])
    rows = load_results(tmp_path / "run")
    assert written == 3 and set(rows["method"]) == {"chance"}


@pytest.mark.parametrize(("backend", "workers", "expected"), [("offline", 2, "process"), ("offline", 1, "thread"),
                                                               ("gemini-like", 2, "thread")])
def test_the_auto_executor_uses_processes_only_for_local_backends_with_workers(small_corpus, tmp_path, monkeypatch,
                                                                              backend, workers, expected):
    from filegram_kit.bench import harness, parallel
    from filegram_kit.bench.generate import build_items
    from filegram_kit.llm import base
    from filegram_kit.llm.offline import OfflineBackend

    used = []
    monkeypatch.setattr(parallel, "run_in_processes", lambda groups, **kw: used.append("process"))
    monkeypatch.setattr(harness, "run_groups", lambda *a, **kw: used.append("thread"))
    if backend != "offline":  # an API backend: by name, not local (a stand-in class, never called)
        monkeypatch.setitem(base.BACKENDS, backend, f"{OfflineBackend.__module__}:{OfflineBackend.__name__}")
    items = build_items(small_corpus, seed=0, sub_tracks=["attribute_recognition"])[:2]
    harness.evaluate(items, small_corpus, ["no_context"], backend=backend, out=tmp_path / "run", workers=workers,
                     executor="auto", progress=False)
    assert used == [expected]


def test_git_state_says_dirty_for_a_code_change_but_not_for_the_runs_own_outputs(tmp_path):
    """A reproduce rewrites figures/, which git tracks: counted, every MANIFEST said git_dirty. The run's
    outputs are set aside; any other tracked change still marks the checkout dirty."""
    import subprocess

    from filegram_kit.bench.manifest import git_state

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                       capture_output=True)

    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "table.md").write_text("old\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "start")
    assert git_state(tmp_path / "figures", repo=tmp_path)["git_dirty"] is False
    (tmp_path / "figures" / "table.md").write_text("new\n")
    assert git_state(tmp_path / "figures", repo=tmp_path)["git_dirty"] is False
    assert git_state(repo=tmp_path)["git_dirty"] is True
    assert git_state(tmp_path.parent / "elsewhere", repo=tmp_path)["git_dirty"] is True  # outputs outside: still read
    (tmp_path / "code.py").write_text("x = 2\n")
    assert git_state(tmp_path / "figures", repo=tmp_path)["git_dirty"] is True
