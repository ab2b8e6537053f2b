"""`kill -9` in the middle of `filegram corpus`, `filegram eval` and `filegram knowact`: the next run resumes with
no lost and no duplicated trajectory, row or case, and ends where an uninterrupted run ends. (`filegram record`
is killed in tests/test_record_journal.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from filegram_kit.bench.items import write_items
from filegram_kit.bench.schema import Item

from .test_knowact import OTHERS, PERSONA, TASKS

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
ROOT = Path(__file__).resolve().parents[1]
PROFILES = [PERSONA, *OTHERS]  # KnowAct's test personas and tasks: every dimension gets an Act test


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "filegram_kit.cli", *args]


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "FILEGRAM_CACHE": str(tmp / "cache"), "PYTHONUNBUFFERED": "1"}


def _kill_when(command: list[str], env: dict[str, str], ready: Callable[[], bool], what: str) -> None:
    """Start `command`, SIGKILL it as soon as `ready()` (polled), and insist the kill landed mid-run."""
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while not ready():
            if child.poll() is not None:
                pytest.fail(f"{what} ended (rc {child.returncode}) before it could be killed: "
                            f"{child.stderr.read().decode()[-500:]}")
            assert time.monotonic() < deadline, f"{what}: nothing to kill after 300 s"
            time.sleep(0.01)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL, f"{what} finished before the kill"


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


def _trajectories(corpus: Path) -> dict[str, bytes]:
    return {p.name: (p / "events.json").read_bytes() for p in sorted((corpus / "signal").iterdir())}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(a corpus killed mid-build and resumed, the same corpus built in one go)."""
    tmp = tmp_path_factory.mktemp("crash")
    args = ["--profiles", *PROFILES, "--tasks", *TASKS, "--workers", "1", "--executor", "serial"]
    killed, whole = tmp / "killed", tmp / "whole"
    signal_dir = killed / "signal"
    _kill_when(_cli("corpus", "--out", str(killed), *args), _env(tmp),
               lambda: signal_dir.is_dir() and len([p for p in signal_dir.iterdir()
                                                    if not p.name.startswith(".")]) >= 2, "filegram corpus")
    _run(_cli("corpus", "--out", str(killed), *args), _env(tmp))
    _run(_cli("corpus", "--out", str(whole), *args), _env(tmp))
    return killed, whole


def test_a_killed_corpus_build_resumes_to_the_same_trajectories(built):
    killed, whole = built
    assert _trajectories(killed) == _trajectories(whole)  # none lost, none twice, same bytes
    assert len(_trajectories(killed)) == len(PROFILES) * len(TASKS)
    assert not [p for p in (killed / "signal").iterdir() if p.name.startswith(".")]  # no half-written folder left


def _items(corpus: Path, path: Path) -> Path:
    ids = sorted(p.name for p in (corpus / "signal").iterdir())
    items = [Item(f"q{k:03d}", "T1_understanding", "attribute_recognition", "x", "procedural", tid.rsplit("_T-", 1)[0],
                  (tid,), f"Question {k} about this user?", ("alpha", "beta", "gamma"), "B", {})
             for k, tid in enumerate(ids * 5)]
    write_items(items, path)
    return path


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_killed_evaluation_resumes_with_every_row_once(built, tmp_path):
    corpus = built[0]
    items = _items(corpus, tmp_path / "items.parquet")
    args = ["--items", str(items), "--corpus", str(corpus), "--methods", "no_context,full_context", "--workers", "1",
            "--controls", "none"]
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    _kill_when(_cli("eval", *args, "--out", str(killed)), _env(tmp_path),
               lambda: (killed / "results.jsonl").is_file() and (killed / "results.jsonl").stat().st_size > 2000,
               "filegram eval")
    _run(_cli("eval", *args, "--out", str(killed)), _env(tmp_path))
    _run(_cli("eval", *args, "--out", str(whole)), _env(tmp_path))
    keys = ("method", "question_id", "seed")
    got, expected = _rows(killed), _rows(whole)
    assert len({tuple(r[k] for k in keys) for r in got}) == len(got) == len(expected) == 2 * 5 * len(PROFILES) * len(
        TASKS)  # two methods, five questions per trajectory
    answers = lambda rows: sorted((r["method"], r["question_id"], r["answer"]) for r in rows)  # noqa: E731
    assert answers(got) == answers(expected)


def test_a_killed_knowact_run_resumes_to_the_same_cases(built, tmp_path):
    corpus = built[0]
    args = ["--corpus", str(corpus), "--methods", "no_context,full_context", "--workers", "1", "--personas", PERSONA]
    killed, whole = tmp_path / "killed", tmp_path / "whole"

    def act_runs_landed() -> bool:
        try:  # the run renames folders while this walks them
            return len(list((killed / "act").rglob("events.json"))) >= 2
        except FileNotFoundError:
            return False

    _kill_when(_cli("knowact", *args, "--out", str(killed)), _env(tmp_path), act_runs_landed, "filegram knowact")
    _run(_cli("knowact", *args, "--out", str(killed)), _env(tmp_path))
    _run(_cli("knowact", *args, "--out", str(whole)), _env(tmp_path))
    got, expected = pl.read_parquet(killed / "cases.parquet"), pl.read_parquet(whole / "cases.parquet")
    assert got.height == expected.height and got.select("method", "persona", "dimension").is_unique().all()
    assert got.drop(c for c in got.columns if "second" in c or c.endswith("_s")).equals(
        expected.drop(c for c in expected.columns if "second" in c or c.endswith("_s")))
