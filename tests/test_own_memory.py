"""docs/own-memory.md's promise: a memory class (and a reader) in the user's own file, outside the package, runs on
FileGramBench through `filegram eval` by reference and stands in Table 3's layout beside the built-in methods."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from filegram_kit.bench.generate import build_items
from filegram_kit.bench.items import write_items
from filegram_kit.engine.corpus import build_corpus
from filegram_kit.memory import MemorySystem, get_memory
from filegram_kit.memory.base import memory_class
from filegram_kit.util.plugins import code_digest, is_reference, load_class

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SUB_TRACKS = ["attribute_recognition", "behavioral_fingerprint"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    """(corpus, items): three personas, three tasks, two sub-tasks' items."""
    tmp = tmp_path_factory.mktemp("own")
    corpus = tmp / "corpus"
    build_corpus(corpus, profiles=["p1", "p3", "p6"], tasks=["T-01", "T-05", "T-12"], workers=1, progress=False)
    items = build_items(corpus, seed=0, sub_tracks=SUB_TRACKS)
    assert items, "the small corpus gave no items"
    return corpus, write_items(items, tmp / "items.parquet")


def _filegram(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([sys.executable, "-m", "filegram_kit.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_docs_example_runs_from_a_file_outside_the_package_beside_built_in_methods(bench, tmp_path):
    corpus, items = bench
    mine = tmp_path / "project"  # the user's own folder: neither the package nor the repository
    mine.mkdir()
    shutil.copy(EXAMPLES / "my_memory.py", mine / "my_memory.py")
    out = tmp_path / "runs"
    _filegram("eval", "--items", str(items), "--corpus", str(corpus), "--out", str(out), "--controls", "none",
              "--methods", "my_memory.py:HabitCounts,no_context", "--executor", "process", "--workers", "2", cwd=mine)
    rows = _rows(out)
    ours = [r for r in rows if r["method"] == "my_memory.py:HabitCounts"]
    assert len(ours) == len([r for r in rows if r["method"] == "no_context"]) > 0
    assert not [r for r in ours if r["error"]], ours[0]
    assert all(r["context_tokens"] > 0 for r in ours)  # the reader got what the memory holds
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    resolved = next(m["resolved"] for m in manifest["methods"] if m["name"] == "my_memory.py:HabitCounts")
    assert resolved == {"method": "habit_counts", "top": 4,
                        "code": code_digest(load_class(f"{mine / 'my_memory.py'}:HabitCounts", kind="memory"))}
    shown = _filegram("results", str(out), "--bootstrap", "200", cwd=mine).stdout
    # the readout's row for it: 3 personas are too few for a persona-clustered interval, and it says so
    line = next(s for s in shown.splitlines() if "my_memory.py:HabitCounts" in s and "CI needs ≥5 personas" in s)
    assert "no_context" in shown or "No Context" in shown, line


def test_editing_your_class_gives_new_rows_not_the_old_ones(bench, tmp_path):
    corpus, items = bench
    mine = tmp_path / "project"
    mine.mkdir()
    source = (EXAMPLES / "my_memory.py").read_text(encoding="utf-8")
    (mine / "my_memory.py").write_text(source, encoding="utf-8")
    args = ["eval", "--items", str(items), "--corpus", str(corpus), "--out", str(tmp_path / "runs"), "--controls",
            "none", "--methods", "my_memory:HabitCounts", "--workers", "1", "--limit", "3"]
    _filegram(*args, cwd=mine)  # a dotted module found in the current folder, as `python -m` finds it
    first = _rows(tmp_path / "runs")
    (mine / "my_memory.py").write_text(source.replace("top: int = 4", "top: int = 2"), encoding="utf-8")
    _filegram(*args, cwd=mine)
    after = _rows(tmp_path / "runs")
    assert len(after) == 2 * len(first)  # the edited code answered again, beside the first rows
    assert len({r["params_hash"] for r in after}) == 2


def test_a_reader_of_your_own_answers_every_context(bench, tmp_path):
    corpus, items = bench
    out = tmp_path / "runs"
    _filegram("eval", "--items", str(items), "--corpus", str(corpus), "--out", str(out), "--controls", "none",
              "--methods", "full_context", "--backend", f"{EXAMPLES / 'my_reader.py'}:OverlapReader", "--workers", "1",
              cwd=tmp_path)
    rows = _rows(out)
    assert rows and {r["backend"] for r in rows} == {"overlap_reader"} and not [r for r in rows if r["error"]]
    offline = tmp_path / "offline"
    _filegram("eval", "--items", str(items), "--corpus", str(corpus), "--out", str(offline), "--controls", "none",
              "--methods", "full_context", "--workers", "1", cwd=tmp_path)
    by_id = {r["question_id"]: r["answer"] for r in _rows(offline)}
    assert any(by_id[r["question_id"]] != r["answer"] for r in rows)  # another reader: other answers


def test_references_are_checked_with_errors_that_say_what_is_wrong(tmp_path):
    (tmp_path / "bad.py").write_text("class NotAMemory:\n    pass\nthing = 3\n", encoding="utf-8")
    assert is_reference("pkg.mod:Name") and is_reference("a/b.py:Name") and not is_reference("filegramos")
    with pytest.raises(TypeError, match="derive from filegram_kit.memory.base.MemorySystem"):
        get_memory(f"{tmp_path / 'bad.py'}:NotAMemory")
    with pytest.raises(AttributeError, match="defines no 'Missing'.*NotAMemory"):
        get_memory(f"{tmp_path / 'bad.py'}:Missing")
    with pytest.raises(TypeError, match="thing is a int, not a class"):
        get_memory(f"{tmp_path / 'bad.py'}:thing")
    with pytest.raises(FileNotFoundError, match="nope.py: no such Python file"):
        get_memory(f"{tmp_path / 'nope.py'}:X")
    with pytest.raises(KeyError, match="unknown memory 'nope'.*module:Class"):
        get_memory("nope")
    assert issubclass(memory_class(f"{EXAMPLES / 'my_memory.py'}:HabitCounts"), MemorySystem)


def test_a_class_registered_in_a_notebook_runs_on_threads_and_process_workers_are_refused(bench, tmp_path):
    from filegram_kit.bench.harness import evaluate
    from filegram_kit.bench.items import load_items
    from filegram_kit.memory import register_memory
    from filegram_kit.memory.base import MEMORIES

    cls = load_class(f"{EXAMPLES / 'my_memory.py'}:HabitCounts", kind="memory")
    with pytest.raises(TypeError, match="derives from MemorySystem"):
        register_memory("not_a_memory", dict)
    register_memory("habit_counts_cell", cls)
    try:
        items = load_items(bench[1])[:6]
        with pytest.raises(ValueError, match="cannot import"):
            evaluate(items, bench[0], ["habit_counts_cell"], out=tmp_path / "p", executor="process", workers=2)
        frame = evaluate(items, bench[0], ["habit_counts_cell"], out=tmp_path / "t", workers=1, progress=False)
        assert frame.height == 6 and frame["error"].is_null().all() and (frame["context_tokens"] > 0).all()
        others = evaluate(items, bench[0], ["no_context"], out=tmp_path / "o", executor="process", workers=2,
                          progress=False)  # the class in the registry does not stop other methods' process runs
        assert others.height == 6 and others["error"].is_null().all()
    finally:
        MEMORIES.pop("habit_counts_cell")
