"""How the harness runs its groups: a thread pool (or serially), or spawned processes.

Threads (`run_groups`): up to 2*workers groups are open at a time; their ingests and items run in
the pool and the calling thread gets every result (so one thread writes rows). workers=1 runs
everything in the calling thread, in order (for debugging).

Processes (`run_in_processes`), for CPU-bound runs (the offline backend), where the GIL keeps a
thread pool near one core: the groups (method x input set) are batched by the persona their items
ask about, so each persona's trajectories are loaded, and its engrams and embeddings cached, in one
process only.
Workers are spawned (polars and fork do not mix): each imports the package, builds its own backend
from the backend's name and constructor params, and loads trajectories as it needs them. Every
answered item's row comes back through a queue at once and the parent alone writes it; each batch
returns its backend usage, which the parent adds to its own meter for the manifest.

A script that runs evaluate(..., executor="process") must guard its top level with
`if __name__ == "__main__":`, as for any spawned multiprocessing.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import queue as queues
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm import get_backend
from ..memory.base import MEMORIES, importable_memories
from ..util.executors import child_processes, terminate_workers, watch_parent
from .inputs import TrajectoryStore

if TYPE_CHECKING:
    from ..llm.base import Backend

DRAIN_SECONDS = 30.0  # after every batch returned, how long rows still in the queue may take to arrive
_WORKER: dict[str, Any] = {}


def one_blas_thread() -> Any:
    """Limit BLAS to one thread (until `.restore_original_limits()`, or as a context manager).

    Every run answers with one BLAS thread, whatever the executor: the workers already use the cores,
    the reader's small products (a few options x thousands of sentences) ran ~6x slower with BLAS
    threads spinning against them, and a fixed thread count fixes the order of float sums, so threads
    and processes give the same rows on any machine.
    """
    from threadpoolctl import threadpool_limits  # (a scikit-learn dependency)

    return threadpool_limits(limits=1)


# -- threads (or serial) ------------------------------------------------------------------------------------------


class SerialExecutor:
    """The pool's interface, running each call at once in the calling thread (workers=1: debuggable, ordered)."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 (re-raised by result(), as the pool does)
            future.set_exception(exc)
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def run_groups(groups: list, *, inputs: Any, backend: Backend, tally: Any, workers: int,
               emit: Callable[[Any, Any, dict[str, Any]], None], ingests: Any = None) -> None:
    """Ingest up to 2*workers groups at a time, answer their items in the pool, hand each result to `emit`
    (called in this thread only). A group's memory is dropped when its last item is answered."""
    from .groups import answer_item, ingest_group

    pool: Any = ThreadPoolExecutor(max_workers=workers) if workers > 1 else SerialExecutor()
    max_open = 2 * workers if workers > 1 else 1
    queue, pending, open_groups = iter(groups), {}, [0]

    def open_more() -> None:
        while open_groups[0] < max_open and (group := next(queue, None)) is not None:
            pending[pool.submit(ingest_group, group, inputs, backend, ingests)] = ("ingest", group, None)
            open_groups[0] += 1

    def finish(group: Any, item: Any, fields: dict[str, Any]) -> None:
        emit(group, item, fields)
        group.remaining -= 1
        if group.remaining == 0:
            group.memory, open_groups[0] = None, open_groups[0] - 1

    try:
        open_more()
        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for future in [f for f in pending if f in done]:  # in submission order
                kind, group, item = pending.pop(future)
                result = future.result()  # re-raises KeyboardInterrupt & co from a worker
                if kind == "answer":
                    finish(group, item, result)
                    continue
                group.remaining = len(group.items)
                for each in group.items:
                    if group.error:
                        finish(group, each, {"error": group.error[0], "error_message": group.error[1]})
                    else:
                        pending[pool.submit(answer_item, group, each, backend, tally)] = ("answer", group, each)
            open_more()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# -- processes ----------------------------------------------------------------------------------------------------


def _start(rows: Any, corpus: str, backend_name: str, backend_params: dict[str, Any], memories: dict[str, str],
           run: dict[str, Any]) -> None:
    watch_parent()
    MEMORIES.update(memories)  # methods registered at run time in the parent (plugins, tests)
    rows.cancel_join_thread()  # a stopped run must not wait on rows nobody reads (they are recomputed on resume)
    _WORKER.update(rows=rows, store=TrajectoryStore(corpus), backend=get_backend(backend_name, **backend_params),
                   run=run)
    _WORKER["blas_limits"] = one_blas_thread()


def _answer_batch(groups: list, store: TrajectoryStore, backend: Backend, run: dict[str, Any],
                  put: Callable[[dict[str, Any]], None]) -> dict[str, dict[str, int]]:
    """Ingest and answer a batch of groups; each row goes to `put` as it is made; returns the usage spent."""
    from .groups import SharedIngests, SharedInputs, answer_item, ingest_group, make_row, preload, tallied

    before = json.loads(json.dumps(backend.usage.counts))
    preload(store, groups)
    inputs, ingests = SharedInputs(store, groups), SharedIngests(groups)
    with tallied(backend) as tally:
        for group in groups:
            ingest_group(group, inputs, backend, ingests)
            for item in group.items:
                fields = ({"error": group.error[0], "error_message": group.error[1]} if group.error
                          else answer_item(group, item, backend, tally))
                put(make_row(group, item, fields, run))
            group.memory = None
    return {phase: {k: v - before.get(phase, {}).get(k, 0) for k, v in counts.items()}
            for phase, counts in backend.usage.counts.items()}


def _run_batch(groups: list) -> dict[str, dict[str, int]]:
    """A pool worker's batch: rows go to the queue at once (parent writes them); returns the usage spent."""
    return _answer_batch(groups, _WORKER["store"], _WORKER["backend"], _WORKER["run"], _WORKER["rows"].put)


# -- any executor (Ray): a batch is a unit that returns its rows ----------------------------------------------------


@cache
def _unit_state(corpus: str, backend_name: str, params_json: str, memories_json: str) -> tuple[Any, Any, Any]:
    """Per worker process: the corpus' trajectories, the backend, one BLAS thread (as a pool worker has)."""
    MEMORIES.update(json.loads(memories_json))
    return TrajectoryStore(corpus), get_backend(backend_name, **json.loads(params_json)), one_blas_thread()


def _batch_unit(groups: list, corpus: str, backend_name: str, params_json: str, memories_json: str,
                run: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    """One batch as a unit of work: (its rows, the usage spent). Nothing is written, so a re-run is harmless."""
    store, backend, _ = _unit_state(corpus, backend_name, params_json, memories_json)
    rows: list[dict[str, Any]] = []
    usage = _answer_batch(groups, store, backend, run, rows.append)
    return rows, usage


def run_on_executor(groups: list, *, executor: Any, corpus: str | Path, backend_name: str,
                    backend_params: dict[str, Any], run: dict[str, Any],
                    emit_row: Callable[[dict[str, Any]], None],
                    add_usage: Callable[[dict[str, dict[str, int]]], None]) -> None:
    """The batches (as `run_in_processes` makes them) as units on `executor` (filegram_kit.util.executors); each
    finished batch's rows are emitted here, in this process."""
    params_json, memories_json = json.dumps(backend_params, sort_keys=True), json.dumps(importable_memories())
    calls = [(batch, str(corpus), backend_name, params_json, memories_json, run)
             for batch in batches(groups, executor.workers)]
    for _, (rows, usage) in executor.imap(_batch_unit, calls):
        for row in rows:
            emit_row(row)
        add_usage(usage)


def batches(groups: list, workers: int) -> list[list]:
    """Groups batched by the persona of their first item, the batches with the most items first (so the last
    ones to finish are small and no worker idles long at the end: a persona's batch takes 35-90 s in Table 3);
    fewer personas than 2*workers: even chunks, in order."""
    by_persona: dict[str, list] = {}
    for group in groups:
        by_persona.setdefault(group.items[0].profile_id or "", []).append(group)
    if len(by_persona) >= 2 * workers:
        return sorted(by_persona.values(), key=lambda batch: -sum(len(g.items) for g in batch))  # stable on ties
    size = max(1, -(-len(groups) // (4 * workers)))
    return [groups[i:i + size] for i in range(0, len(groups), size)]


def _raise_failed(futures: list) -> None:
    for future in futures:
        if future.done() and not future.cancelled() and future.exception() is not None:
            future.result()  # re-raises the worker's exception here


def run_in_processes(groups: list, *, corpus: str | Path, backend_name: str, backend_params: dict[str, Any],
                     run: dict[str, Any], workers: int, emit_row: Callable[[dict[str, Any]], None],
                     add_usage: Callable[[dict[str, dict[str, int]]], None]) -> None:
    """Run the groups in `workers` spawned processes; `emit_row` gets each row in this process, as it comes."""
    context = mp.get_context("spawn")
    rows = context.Queue()
    expected, received, checked = sum(len(g.items) for g in groups), 0, time.monotonic()
    earlier = child_processes()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start,
                               initargs=(rows, str(corpus), backend_name, dict(backend_params), importable_memories(),
                                         run))
    try:
        futures = [pool.submit(_run_batch, batch) for batch in batches(groups, workers)]
        while received < expected:
            finished = all(f.done() for f in futures)
            try:
                row = rows.get(timeout=DRAIN_SECONDS if finished else 0.5)
            except queues.Empty:
                row = None
            if row is not None:
                emit_row(row)
                received += 1
            if row is None or time.monotonic() - checked > 1.0:  # a failed batch stops the run promptly
                checked = time.monotonic()
                _raise_failed(futures)
                if row is None and finished:
                    raise RuntimeError(f"process workers finished but {expected - received} rows never arrived")
        for future in futures:
            add_usage(future.result())
    except BaseException:
        terminate_workers(pool, earlier=earlier)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
