"""Ray as an executor: on a local 2-CPU cluster started and stopped here, a corpus slice and an evaluation slice
come out the same as on the process pool, and an evaluation survives a worker killed mid-run.

Skipped only when Ray (the `scale` extra) is not installed; `.ci/run` installs it.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import polars as pl
import pytest

ray = pytest.importorskip("ray", reason="Ray (the scale extra: pip install 'filegram_kit[scale]') is not installed")
psutil = pytest.importorskip("psutil")

from filegram_kit.bench.generate import build_items  # noqa: E402
from filegram_kit.bench.harness import evaluate, select  # noqa: E402
from filegram_kit.bench.results import row_key  # noqa: E402
from filegram_kit.engine import build_corpus  # noqa: E402

PROFILES, TASKS = ["p1", "p3"], ["T-01", "T-05", "T-12"]
METHODS = ["no_context", "naive_rag", "filegramos"]
TIMINGS = ("latency_s", "ingest_s")  # wall clock: differs between any two runs


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def corpora(cluster, tmp_path_factory) -> dict[str, Path]:
    out = {}
    for executor in ("process", "ray"):
        path = tmp_path_factory.mktemp(executor) / "corpus"
        build_corpus(path, profiles=PROFILES, tasks=TASKS, workers=2, progress=False, executor=executor)
        out[executor] = path
    return out


def _files(root: Path) -> dict[str, bytes]:
    skip = ("store", "workspaces")
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] not in skip}


def test_a_corpus_built_on_ray_is_byte_identical(corpora):
    made_here, made_on_ray = _files(corpora["process"]), _files(corpora["ray"])
    assert len([f for f in made_here if f.endswith("events.json")]) == len(PROFILES) * len(TASKS)
    assert made_here.keys() == made_on_ray.keys()
    assert [f for f in made_here if made_here[f] != made_on_ray[f]] == []
    for table in ("raw", "events"):  # the store too (its index differs only in the files' mtimes)
        frames = [pl.read_parquet(c / "store" / table / "*.parquet") for c in corpora.values()]
        assert frames[0].equals(frames[1])


def _items(corpus: Path):
    return select(build_items(corpus, seed=0), 3)


def _rows(out: Path) -> list[dict]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return sorted(({k: v for k, v in r.items() if k not in TIMINGS} for r in rows), key=row_key)


def test_an_evaluation_on_ray_gives_the_process_pool_rows(corpora, tmp_path):
    corpus = corpora["process"]
    items = _items(corpus)
    evaluate(items, corpus, METHODS, out=tmp_path / "process", workers=2, executor="process", progress=False)
    evaluate(items, corpus, METHODS, out=tmp_path / "ray", workers=2, executor="ray", progress=False)
    here, there = _rows(tmp_path / "process"), _rows(tmp_path / "ray")
    assert len(here) == len(items) * len(METHODS) and here == there
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "complete"


def _kill_a_worker_running(task: str, stop: threading.Event, killed: list[int]) -> None:
    """Kill -9 the first Ray worker seen running `task` (Ray names the process ray::<task> while it runs it)."""
    while not stop.is_set() and not killed:
        for proc in psutil.process_iter(["pid", "cmdline"]):
            cmdline = " ".join(proc.info.get("cmdline") or [])
            if cmdline.startswith(f"ray::{task}"):
                os.kill(proc.info["pid"], signal.SIGKILL)
                killed.append(proc.info["pid"])
                return
        time.sleep(0.01)


def test_an_evaluation_survives_a_worker_killed_mid_run(corpora, tmp_path):
    corpus = corpora["process"]
    items = _items(corpus)
    evaluate(items, corpus, METHODS, out=tmp_path / "process", workers=2, executor="process", progress=False)
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_a_worker_running, args=("_batch_unit", stop, killed))
    killer.start()
    try:
        evaluate(items, corpus, METHODS, out=tmp_path / "ray", workers=2, executor="ray", progress=False)
    finally:
        stop.set()
        killer.join()
    assert killed, "no Ray worker was seen running an evaluation unit"
    assert not psutil.pid_exists(killed[0]) or psutil.Process(killed[0]).status() == psutil.STATUS_ZOMBIE
    rows = _rows(tmp_path / "ray")
    keys = [row_key(r) for r in rows]
    assert len(keys) == len(set(keys)) == len(items) * len(METHODS)  # none lost, none twice
    assert rows == _rows(tmp_path / "process")
