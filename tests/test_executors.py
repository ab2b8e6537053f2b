"""Executors (where work units run) and the one request-rate limit all workers share."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from filegram_kit.llm.retry import call_with_retries
from filegram_kit.util import ratelimit
from filegram_kit.util.executors import EXECUTORS, ExecutorError, RayExecutor, get_executor
from filegram_kit.util.ratelimit import FileLimiter, shared_limiter


def _square(x: int) -> int:
    return x * x


@pytest.mark.parametrize("name", ["serial", "thread", "process"])
def test_every_local_executor_runs_every_unit_once(name):
    calls = [(i,) for i in range(7)]
    got = dict(get_executor(name, workers=2).imap(_square, calls))
    assert got == {i: i * i for i in range(7)}


def test_unknown_executors_and_misplaced_addresses_are_refused():
    with pytest.raises(ValueError, match="unknown executor 'cluster'"):
        get_executor("cluster")
    with pytest.raises(ValueError, match="needs executor 'ray'"):
        get_executor("process", address="ray://head:10001")
    assert set(EXECUTORS) == {"serial", "thread", "process", "ray"}


def test_ray_missing_is_said_plainly(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ExecutorError, match=r"filegram_kit\[scale\]"):
        list(RayExecutor(workers=1).imap(_square, [(1,)]))


def _children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is `pid`, from /proc."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("pool", ["executor", "initializer"])
def test_pool_workers_exit_when_their_parent_is_killed(pool):
    """kill -9 of a run must not leave its workers computing (they used to finish their units unwatched)."""
    start = {"executor": "from filegram_kit.util.executors import get_executor\n"
                         "list(get_executor('process', workers=2).imap(time.sleep, [(300,), (300,)]))",
             "initializer": "import multiprocessing as mp\nfrom concurrent.futures import ProcessPoolExecutor\n"
                      "from filegram_kit.util.executors import watch_parent\n"
                      "pool = ProcessPoolExecutor(2, mp_context=mp.get_context('spawn'), initializer=watch_parent)\n"
                      "[f.result() for f in [pool.submit(time.sleep, 300) for _ in range(2)]]"}[pool]
    parent = subprocess.Popen([sys.executable, "-c", f"import time\n{start}"], cwd=Path(__file__).parent.parent)
    try:
        workers: set[int] = set()
        deadline = time.monotonic() + 120
        while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
            workers = {p for p in _children(parent.pid) if b"multiprocessing" in Path(f"/proc/{p}/cmdline").read_bytes()
                       and b"resource_tracker" not in Path(f"/proc/{p}/cmdline").read_bytes()}
        assert len(workers) >= 2, "the pool's workers never started"
        time.sleep(1.0)  # the workers have run their initializer and taken a unit
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in workers if _alive(p)]
    for p in left:
        os.kill(p, 9)
    assert not left, f"workers {left} outlived their killed parent"


def test_a_failing_unit_stops_the_run_with_its_own_error():
    def boom(x):
        raise KeyError(f"unit {x}")

    with pytest.raises(KeyError, match="unit 0"):
        list(get_executor("thread", workers=2).imap(boom, [(0,), (1,)]))


def test_a_stopped_pool_also_ends_a_worker_started_but_not_yet_in_its_table():
    """A stop inside `submit` can land between a worker's start and its entry in the pool's table; at exit
    multiprocessing would wait for that worker, which waits for work, so the command would hang."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from filegram_kit.util.executors import child_processes, terminate_workers

    context = mp.get_context("spawn")
    older = context.Process(target=time.sleep, args=(60,))
    older.start()
    earlier = child_processes()
    pool = ProcessPoolExecutor(max_workers=1, mp_context=context)
    untracked = context.Process(target=time.sleep, args=(60,))  # as if started by the interrupted submit
    untracked.start()
    try:
        terminate_workers(pool)
        untracked.join(2)
        assert untracked.is_alive()  # without `earlier` the pool knows nothing of it
        terminate_workers(pool, earlier=earlier)
        untracked.join(10)
        assert not untracked.is_alive()
        assert older.is_alive()  # a child from before the pool is not the pool's to stop
    finally:
        for process in (older, untracked):
            process.kill()
            process.join()
        pool.shutdown(wait=False)


# -- the rate limit -------------------------------------------------------------------------------------------


def _at_time_zero() -> float:
    return 0.0


def _reserve(path: str, rpm: float, n: int) -> list[float]:
    limiter = FileLimiter(path, rpm, clock=_at_time_zero, sleep=lambda s: None)
    return [limiter.reserve() for _ in range(n)]


def test_processes_sharing_one_limiter_get_distinct_consecutive_slots(tmp_path):
    path = str(tmp_path / "rate.json")
    waits = []
    for _, found in get_executor("process", workers=2).imap(_reserve, [(path, 120.0, 25), (path, 120.0, 25)]):
        waits += found
    # a clock stopped at 0: every reservation is the next free half-second slot, whichever process asked
    assert sorted(waits) == [0.5 * k for k in range(50)]


def test_the_limit_comes_from_the_environment(tmp_path, monkeypatch):
    ratelimit._shared.cache_clear()
    monkeypatch.delenv("FILEGRAM_RPM", raising=False)
    assert shared_limiter() is None
    monkeypatch.setenv("FILEGRAM_RPM", "fast")
    with pytest.raises(ValueError, match="FILEGRAM_RPM must be a number"):
        shared_limiter()
    monkeypatch.setenv("FILEGRAM_RPM", "-3")
    with pytest.raises(ValueError, match="must be positive"):
        shared_limiter()
    monkeypatch.setenv("FILEGRAM_RPM", "30")
    monkeypatch.setenv("FILEGRAM_LIMITER", str(tmp_path / "shared.json"))
    limiter = shared_limiter()
    assert isinstance(limiter, FileLimiter) and limiter.interval == 2.0 and limiter.path == tmp_path / "shared.json"
    ratelimit._shared.cache_clear()


def test_every_provider_attempt_waits_for_its_slot(monkeypatch):
    class Counting:
        calls = 0

        def acquire(self):
            Counting.calls += 1
            return 0.0

    monkeypatch.setattr(ratelimit, "shared_limiter", lambda: Counting())
    attempts = []

    def flaky():
        attempts.append(1)
        if len(attempts) < 3:
            raise TimeoutError("slow")
        return "ok"

    assert call_with_retries(flaky, what="test", sleep=lambda s: None) == "ok"
    assert Counting.calls == len(attempts) == 3


def test_a_torn_state_file_starts_afresh(tmp_path):
    path = tmp_path / "rate.json"
    path.write_text("{not json", encoding="utf-8")
    limiter = FileLimiter(path, 60.0, clock=_at_time_zero, sleep=lambda s: None)
    assert [limiter.reserve() for _ in range(3)] == [0.0, 1.0, 2.0]
