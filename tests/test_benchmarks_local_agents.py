"""docs/backends.md's table of the agents on the local model is the one benchmarks/local_agents.py writes from
benchmarks/local_agents.json, and its counts are the runs' own summary.json fields."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.benchmark_scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "benchmarks" / "local_agents.json"


@pytest.fixture(scope="module")
def bench():
    return load_script("local_agents")


@pytest.mark.skipif(not RESULT.is_file(), reason="benchmarks/local_agents.py has not been run")
def test_the_docs_table_is_the_one_the_script_writes(bench):
    result = json.loads(RESULT.read_text(encoding="utf-8"))
    docs = (ROOT / "docs" / "backends.md").read_text(encoding="utf-8")
    assert f"{bench.START}\n{bench.section(result).rstrip()}\n{bench.END}" in docs, \
        "run `python benchmarks/local_agents.py --render-only`"


def _run(folder: Path, **summary) -> None:
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({"model_name": "m", **summary}), encoding="utf-8")


def test_each_condition_counts_what_its_runs_record(bench, tmp_path):
    from filegram_kit.knowact.preferences import stated_preference

    out = tmp_path / "knowact"
    (out).mkdir()
    (out / "knowact.json").write_text(json.dumps({"methods": ["no_context"], "personas": ["p1"]}), encoding="utf-8")
    told = hashlib.sha256(stated_preference("B", "R").encode()).hexdigest()
    for key, sha in ((f"ctx-{bench.EMPTY_CONTEXT}", hashlib.sha256(b"").hexdigest()), (f"ctx-{told[:16]}", told)):
        (out / "act" / "llm" / key).mkdir(parents=True)
        (out / "act" / "llm" / key / "given.json").write_text(json.dumps({"context_sha256": sha, "context_chars": 1}))
    zero = out / "act" / "llm" / f"ctx-{bench.EMPTY_CONTEXT}"
    _run(zero / "s0" / "signal" / "a", total_tool_calls=40, tool_success_rate=0.75, completed=False,
         total_input_tokens=100, total_output_tokens=7)
    _run(zero / "s1" / "signal" / "a", total_tool_calls=3, tool_success_rate=1.0, completed=False,
         error="ContextOverflow: the prompt is too long", total_input_tokens=50, total_output_tokens=1)
    _run(out / "act" / "llm" / f"ctx-{told[:16]}" / "s0" / "signal" / "a", total_tool_calls=5,
         tool_success_rate=0.8, completed=True, total_input_tokens=10, total_output_tokens=2)
    rows, cases = bench.knowact_part(out)
    by = {r["condition"]: r for r in rows}
    assert set(by) == {"zero memory (empty context)", "told tier R of dimension B"}
    empty = by["zero memory (empty context)"]
    assert (empty["runs"], empty["completed"], empty["at_cap"], empty["model_errors"]) == (2, 0, 1,
                                                                                          {"ContextOverflow": 1})
    assert (empty["tool_calls"], empty["failed_tool_calls"]) == (43, 10)
    assert (empty["tokens_in"], empty["tokens_out"]) == (150, 8)
    assert by["told tier R of dimension B"]["completed"] == 1 and not cases["complete"]
    text = bench.section({"rows": rows, "knowact": cases})
    assert "ContextOverflow 1" in text and "10 (23%)" in text and "no case rows yet" in text


def test_a_marked_block_is_replaced_and_the_rest_of_the_page_kept(bench, tmp_path):
    page = tmp_path / "page.md"
    page.write_text(f"# Title\n\nprose\n\n{bench.START}\nold table\n{bench.END}\n\n## Next\nmore\n", encoding="utf-8")
    bench.write_marked(page, bench.START, bench.END, "new table\n")
    assert page.read_text(encoding="utf-8") == (f"# Title\n\nprose\n\n{bench.START}\nnew table\n{bench.END}\n\n"
                                                "## Next\nmore\n")
