"""Table 12 is read from the registry; Table 3's cost columns from the rows' ingest cost; modules stay small."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import polars as pl

from filegram_kit.bench.results import RESULT_SCHEMA
from filegram_kit.bench.score import METHOD_LABELS, costs
from filegram_kit.memory.base import MEMORIES
from filegram_kit.report.baseline_tables import baseline_rows, typed_tasks

MAX_LINES = 300


def test_table12_has_a_row_per_table3_method_with_its_own_tasks_and_params():
    table = baseline_rows()
    assert table["method"].to_list() == list(METHOD_LABELS)
    row = {r["method"]: r for r in table.iter_rows(named=True)}
    assert row["mem0"]["typed tasks"].split(", ")[:2] == ["extract_user_facts", "update_memory"]
    assert "batch=20" in row["mem0"]["parameters"] and "search_limit=10" in row["mem0"]["parameters"]
    assert "find_contradictions" in row["zep"]["typed tasks"] and row["mma"]["typed tasks"] == "embed"
    assert row["no_context"]["typed tasks"] == "(none)" and row["no_context"]["mechanism"].startswith("Stores nothing")
    assert row["simplemem"]["mechanism"].startswith("SimpleMem")


def test_table12_follows_a_newly_registered_method(monkeypatch):
    monkeypatch.setitem(MEMORIES, "probe_rag", "filegram_kit.memory.rag:NaiveRAG")
    row = baseline_rows(["probe_rag"]).row(0, named=True)
    assert row["label"] == "probe_rag" and row["typed tasks"] == "embed" and "top_k=5" in row["parameters"]
    assert typed_tasks("filegram_kit.memory.filegramos")[:1] == ["embed"]  # a package: all its modules


def test_every_baseline_module_stays_readable_in_one_sitting():
    for name, target in MEMORIES.items():
        path = Path(inspect.getfile(importlib.import_module(target.partition(":")[0])))
        if path.name != "__init__.py":
            assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES, f"{name}: {path} grew too long"


def _row(method: str, sub_track: str, input_key: str, calls: int, est: int, seconds: float, question: str) -> dict:
    row = dict.fromkeys(RESULT_SCHEMA)
    row.update(method=method, params_hash="h", backend="offline", model="m", question_id=question, sub_track=sub_track,
               input_key=input_key, ingest_calls=calls, ingest_est_tokens_in=est, ingest_est_tokens_out=est // 10,
               ingest_tokens_in=0, ingest_s=seconds, memory_tokens=100, context_tokens=40, latency_s=0.5)
    return row


def test_costs_average_one_ingest_per_persona_and_keep_query_cost_apart():
    rows = [_row("mem0", "profile_reconstruction", "p1", 10, 1000, 2.0, "q1"),
            _row("mem0", "profile_reconstruction", "p1", 10, 1000, 2.0, "q2"),  # the same ingest, a second item
            _row("mem0", "profile_reconstruction", "p2", 30, 3000, 4.0, "q3"),
            _row("mem0", "behavioral_fingerprint", "s9", 1, 10, 0.1, "q4")]  # one session: not a persona's memory
    table = costs(pl.DataFrame(rows, schema=RESULT_SCHEMA)).row(0, named=True)
    assert table["ingest calls"] == 20 and table["ingest tokens in (est.)"] == 2000 and table["ingest s"] == 3.0
    assert table["personas"] == 2 and table["context tokens"] == 40 and table["query s"] == 0.5
    assert table["label"] == "Mem0" and table["backend"] == "offline/m"
