"""Where independent work units run: this process, a local pool (the default), or a Ray cluster.

    ex = get_executor("process", workers=2)     # "serial", "thread", "process" or "ray"
    ex = get_executor("ray", address="ray://head:10001")   # or address=None: a Ray on this machine
    for index, result in ex.imap(fn, calls):    # fn(*calls[i]) for every i; results as units finish
        ...

A unit is a module-level function of filegram_kit with picklable arguments (a trajectory to generate, a
part of the store to convert, a persona's evaluation groups, a KnowAct persona). Units hand their rows
back as results, and whatever they write to disk they write atomically under a name of their own, so a
unit run twice (Ray re-runs the unit of a worker that died: `max_retries`) leaves one copy of
everything. The caller alone writes result rows, caches and manifests, the same way whichever executor
ran the units. Ray comes with the `scale` extra (`pip install filegram_kit[scale]`); with address=None
it starts a local Ray of `workers` CPUs (and stops it at exit); API keys and FILEGRAM_* settings are
passed to its workers, and FILEGRAM_RPM becomes one rate limit for the whole cluster (util/ratelimit.py).
"""

from __future__ import annotations

import atexit
import multiprocessing as mp
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor as _Pool
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from typing import Any

EXECUTORS = ("serial", "thread", "process", "ray")
FORWARDED_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "COHERE_API_KEY", "CO_API_KEY", "OPENAI_API_KEY",
                 "OPENAI_BASE_URL")  # and every FILEGRAM_* variable
RAY_LIMITER = "filegram-rate-limiter"


class ExecutorError(RuntimeError):
    """An executor that cannot run here (Ray not installed, a cluster that cannot be reached)."""


PARENT_POLL_SECONDS = 0.5


def watch_parent(interval: float = PARENT_POLL_SECONDS) -> None:
    """In a spawned worker: exit as soon as the process that started it is gone (killed, stopped by SIGTERM).
    A pool's workers otherwise finish their unit unwatched after the parent died (minutes of a reproduce
    step), and may write into folders a rerun is already using. Pools here call it first (their initializer).
    The parent is the one multiprocessing names: a worker may start after its parent died, when its own
    parent pid is already init's. (Not prctl's PR_SET_PDEATHSIG: it fires when the parent *thread* that
    started the worker ends, which a pool started from a worker thread does while its process lives on.)"""
    import threading
    import time

    started_by = mp.parent_process()
    parent = started_by.pid if started_by is not None and started_by.pid else os.getppid()
    if os.getppid() != parent:  # the parent died before this worker got here
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:  # a dead parent's children are handed to another process
            time.sleep(interval)
        os._exit(1)  # no cleanup: the unit's writes are atomic, the unfinished one is redone on resume

    threading.Thread(target=watch, name="filegram-watch-parent", daemon=True).start()


class Executor:
    """Runs `fn(*call)` for each call; `imap` yields (index of the call, result) as each finishes."""

    name = "serial"

    def __init__(self, workers: int | None = None):
        self.workers = max(1, int(workers or os.cpu_count() or 1))

    def imap(self, fn: Callable[..., Any], calls: Sequence[tuple]) -> Iterator[tuple[int, Any]]:
        for index, args in enumerate(calls):
            yield index, fn(*args)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, workers={self.workers})"


class LocalExecutor(Executor):
    """A pool of threads or spawned processes on this machine (spawned: polars does not survive a fork)."""

    def __init__(self, kind: str, workers: int | None = None):
        super().__init__(workers)
        self.name = kind

    def _pool(self) -> _Pool:
        if self.name == "thread":
            return ThreadPoolExecutor(max_workers=self.workers)
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=mp.get_context("spawn"),
                                   initializer=watch_parent)

    def imap(self, fn: Callable[..., Any], calls: Sequence[tuple]) -> Iterator[tuple[int, Any]]:
        if self.workers == 1 or len(calls) < 2:
            yield from super().imap(fn, calls)
            return
        earlier = child_processes() if self.name == "process" else None
        with self._pool() as pool:
            futures: dict = {}
            try:
                futures.update({pool.submit(fn, *args): index for index, args in enumerate(calls)})
                for future in as_completed(futures):
                    yield futures[future], future.result()
            except BaseException:  # a failed unit or a stop (Ctrl-C): no unit runs on unwatched
                for future in futures:
                    future.cancel()
                terminate_workers(pool, earlier=earlier)
                raise


def child_processes() -> set[int]:
    """The pids of this process's live multiprocessing children (taken before a pool starts: `earlier`)."""
    return {p.pid for p in mp.active_children() if p.pid is not None}


def terminate_workers(pool: _Pool, *, earlier: set[int] | None = None) -> None:
    """Stop a process pool's workers now (a stopped or failed run): their unfinished units wrote nothing
    that counts and are redone on resume. Threads cannot be stopped; a thread pool is left to finish.

    With `earlier` (child_processes() from before the pool), every child started since goes too: a stop that
    lands inside `submit` leaves a worker started but not yet in the pool's table, and at exit multiprocessing
    waits for that worker, which waits for work: the command would hang, and its worker with it."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    if earlier is not None:
        for process in mp.active_children():
            if process.pid not in earlier:
                process.terminate()


class RayExecutor(Executor):
    """Units as Ray tasks (`max_retries` re-runs of a unit whose worker died), results as they complete."""

    name = "ray"

    def __init__(self, workers: int | None = None, address: str | None = None, max_retries: int = 3):
        super().__init__(workers)
        self.address, self.max_retries = address, int(max_retries)
        self._limiter: Any = None

    def _ray(self) -> Any:
        try:
            import ray
        except ImportError:
            raise ExecutorError("executor 'ray' needs Ray: pip install 'filegram_kit[scale]' (or pip install "
                                "ray)") from None
        if not ray.is_initialized():
            env = {k: v for k, v in os.environ.items() if k in FORWARDED_ENV or k.startswith("FILEGRAM_")}
            if os.environ.get("FILEGRAM_RPM"):
                env["FILEGRAM_LIMITER"] = f"ray:{RAY_LIMITER}"
            local = {"num_cpus": self.workers, "include_dashboard": False} if self.address is None else {}
            try:
                ray.init(address=self.address, runtime_env={"env_vars": env}, log_to_driver=False,
                         configure_logging=False, **local)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ExecutorError(f"cannot start or reach Ray at {self.address or 'this machine'}: {exc}") from exc
            atexit.register(ray.shutdown)
        if os.environ.get("FILEGRAM_RPM") and self._limiter is None:
            from .ratelimit import start_ray_limiter

            self._limiter = start_ray_limiter(RAY_LIMITER, float(os.environ["FILEGRAM_RPM"]))
        return ray

    def imap(self, fn: Callable[..., Any], calls: Sequence[tuple]) -> Iterator[tuple[int, Any]]:
        if not calls:
            return
        ray = self._ray()
        remote = ray.remote(max_retries=self.max_retries)(fn)
        pending = {remote.remote(*args): index for index, args in enumerate(calls)}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    yield pending.pop(ref), ray.get(ref)
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise


def get_executor(name: str | Executor = "process", *, workers: int | None = None,
                 address: str | None = None) -> Executor:
    """An executor by name (`EXECUTORS`); an Executor is returned as it is. `address`: Ray's (e.g. ray://host:10001)."""
    if isinstance(name, Executor):
        return name
    if name not in EXECUTORS:
        raise ValueError(f"unknown executor {name!r}; executors: {', '.join(EXECUTORS)}")
    if address is not None and name != "ray":
        raise ValueError(f"--address names a Ray cluster: it needs executor 'ray', not {name!r}")
    if name == "ray":
        return RayExecutor(workers, address)
    return Executor(1) if name == "serial" else LocalExecutor(name, workers)


def add_executor_arguments(parser: Any, *, default: str = "process", choices: Sequence[str] = EXECUTORS,
                           what: str = "work units") -> None:
    """The CLI's --executor and --address, the same on every command that runs work units."""
    parser.add_argument("--executor", choices=tuple(choices), default=default, help=f"where the {what} run: "
                        f"{', '.join(choices)} (default {default}); ray needs the scale extra")
    parser.add_argument("--address", metavar="ADDR", help="with --executor ray: the cluster (e.g. ray://head:10001; "
                        "default: a local Ray of --workers CPUs, or $RAY_ADDRESS)")
