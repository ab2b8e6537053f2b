"""docs/backends.md's local-model table is the one benchmarks/local_llm.py writes from benchmarks/local_llm.json,
never typed: an edited number, or a JSON rerun without its docs rewritten, fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "benchmarks" / "local_llm.json"


@pytest.fixture(scope="module")
def bench():
    return load_script("local_llm")


@pytest.mark.skipif(not RESULT.is_file(), reason="benchmarks/local_llm.py has not been run")
def test_the_docs_table_is_the_one_the_script_writes(bench):
    result = json.loads(RESULT.read_text(encoding="utf-8"))
    assert bench.section(result) in (ROOT / "docs" / "backends.md").read_text(encoding="utf-8"), \
        "run `python benchmarks/local_llm.py --render-only`"


def test_a_partial_run_says_so_and_a_rerun_that_changed_a_row_shows(bench):
    column = {"sub_track": "attribute_recognition", "set": "tracks 1-3", "items": 1, "rows": 4,
              "first": {"seconds": 10.0, "calls": 4, "parse_failures": 1, "context_cuts": 1},
              "rerun": {"calls": 0}, "error_rows": {"parse": 1, "ingest": 1}, "context_overflow_rows": 1,
              "accuracy": {"no_context": 25.0, "chance": 25.0}, "rerun_rows_equal": False}
    result = {"model": "m", "gguf_sha256": "0" * 64, "context_window": 4096, "limit": 1, "seed": 0,
              "methods": ["no_context"], "complete": False, "columns": [column]}
    text = bench.section(result)
    assert "A partial run" in text and "| DIFFER |" in text
    row = next(line for line in text.splitlines() if line.startswith("| attribute_recognition"))
    # calls 4, parse 1, cuts 1, overflows 1, other errors 0 (the ingest error was the overflow), 2.5 s a call
    assert row.split(" | ")[2:8] == ["4", "1", "1", "1", "0", "2.5"]
    assert "A partial run" not in bench.section({**result, "complete": True})
