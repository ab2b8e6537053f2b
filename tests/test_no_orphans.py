"""Stopping a long command (SIGTERM from a scheduler, SIGINT from Ctrl-C) ends every worker process it started
within STOP_SECONDS: the commands run in a process group of their own here, and the test counts what is left
of the group after the stop (spawned pool workers, their resource tracker)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

STOP_SECONDS = 10
ROOT = Path(__file__).resolve().parents[1]


def _group(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    from filegram_kit.engine import build_corpus

    out = tmp_path_factory.mktemp("orphans") / "corpus"
    build_corpus(out, profiles=["p1", "p3", "p5"], workers=1, progress=False)  # every task; KnowAct: 3 personas
    return out


def _stop_when_workers_run(argv: list[str], sig: signal.Signals, tmp_path: Path) -> list[int]:
    """Start `filegram argv` in its own session, send `sig` once it has worker processes, return what is left
    of its process group STOP_SECONDS later (killed afterwards either way)."""
    log = (tmp_path / "log.txt").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "filegram_kit.cli", *argv], cwd=tmp_path, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 120
        while len(_group(proc.pid)) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the command, its resource tracker and at least one worker
        assert proc.poll() is None, f"the command ended before it had workers: {(tmp_path / 'log.txt').read_text()}"
        assert len(_group(proc.pid)) >= 3, "no worker processes appeared within 120 s"
        os.kill(proc.pid, sig)
        end = time.monotonic() + STOP_SECONDS
        while _group(proc.pid) and time.monotonic() < end:
            time.sleep(0.1)
            proc.poll()  # reap the command itself
        left = _group(proc.pid)
        if left:
            print(subprocess.run(["ps", "-o", "pid,ppid,stat,etime,cmd", "-p", ",".join(map(str, left))],
                                 capture_output=True, text=True).stdout)
            print((tmp_path / "log.txt").read_text()[-3000:])
        return left
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)
        log.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_corpus_build_leaves_no_workers(tmp_path, sig):
    assert _stop_when_workers_run(["corpus", "--out", str(tmp_path / "c"), "--workers", "2"], sig, tmp_path) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_eval_leaves_no_workers(tiny, tmp_path, sig):
    from filegram_kit.bench.generate import build_items
    from filegram_kit.bench.items import write_items

    items = tmp_path / "items.parquet"
    write_items(build_items(tiny, seed=0), items)
    argv = ["eval", "--items", str(items), "--corpus", str(tiny), "--methods", "no_context,mem0,filegramos,zep",
            "--out", str(tmp_path / "run"), "--workers", "2", "--executor", "process", "--controls", "none"]
    assert _stop_when_workers_run(argv, sig, tmp_path) == []


def test_reproduce_leaves_no_workers(tiny, tmp_path):
    argv = ["reproduce", "--only", "table13_channel_ablation", "--corpus", str(tiny), "--out", str(tmp_path / "f"),
            "--no-images"]
    assert _stop_when_workers_run(argv, signal.SIGTERM, tmp_path) == []


def test_knowact_leaves_no_workers(tiny, tmp_path):
    argv = ["knowact", "--corpus", str(tiny), "--out", str(tmp_path / "k"), "--workers", "2"]
    assert _stop_when_workers_run(argv, signal.SIGTERM, tmp_path) == []
