"""Run memory methods over bench items: one ingest per input set, the shared reader, one streamed row per answer.

    frame = evaluate(items, "data/corpus", ["no_context", "filegramos"], backend="offline", out=Path("runs/a"))

Items are grouped per method by their input set (the trajectory ids, or the interleaved pair of a
Trace Disentanglement item), so a persona's AttrRec and ProfRec items share one ingest, and the
methods share one materialisation of each input set. A thread pool (`workers`; 1 = serial, in
order, for debugging) or, for CPU-bound offline runs, spawned processes (`executor="process"`,
parallel.py) ingest groups and answer their items; the calling thread alone writes rows, so
`out/results.jsonl` only ever gets whole lines (results.py). A restarted run skips every key already written,
so it ends with exactly one row per (method, params_hash, backend, model, question_id, seed).
Exceptions in loading inputs, ingest, retrieve or answering become error rows ("inputs", "ingest",
"retrieve", "answer"; the reader's own "parse") with the message, and the run goes on. Ctrl-C
(or any BaseException) stops the run; the rows written so far stay valid.
`out/manifest.json` (atomic) records code, versions, corpus, items, methods, backend, cache and usage.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from ..llm import get_backend
from ..llm.base import UNCACHED
from ..memory.base import MEMORIES
from ..util.locks import exclusive
from ..util.progress import progress_bar
from .groups import (  # noqa: F401 (Method, input_set, resolve_methods, select: the harness's public names)
    Group,
    Method,
    MethodSpec,
    SharedIngests,
    SharedInputs,
    ThreadTally,
    input_set,
    make_groups,
    make_row,
    preload,
    resolve_methods,
    select,
    short_hash,
    tallied,
)
from .inputs import TrajectoryStore
from .parallel import one_blas_thread, run_groups
from .results import KEY, RESULT_SCHEMA, ResultsLog, load_results, row_key
from .schema import Item

if TYPE_CHECKING:
    from ..llm.base import Backend

__all__ = ["KEY", "RESULT_SCHEMA", "Method", "evaluate", "input_set", "load_results", "resolve_methods", "select"]

EXCEPTION_ERRORS = ("inputs", "ingest", "retrieve", "answer")  # rows `retry_errors=True` recomputes


def _backend(backend: Backend, params: Mapping[str, Any] | None, seed: int) -> tuple[Any, dict[str, Any] | None]:
    """(backend, its constructor params): given (params None), or built by name; a backend that has a
    `seed` gets the run's seed unless the params set one."""
    if not isinstance(backend, str):
        return backend, None
    params = dict(params or {})
    made = get_backend(backend, **params)
    if "seed" in made.params() and "seed" not in params and made.params()["seed"] != seed:
        params["seed"] = seed
        made = get_backend(backend, **params)
    return made, params


@dataclass
class RunState:
    """Counters of one evaluate call (for the manifest)."""

    started: float = field(default_factory=time.time)
    written: int = 0
    resumed: int = 0
    dropped: int = 0
    status: str = "running"
    history: list[dict[str, Any]] | None = None  # earlier runs into the same folder (from its manifest)


def evaluate(items: Iterable[Item], corpus: str | Path, methods: Iterable[MethodSpec] | Mapping[str, Mapping | None], *,
             backend: str | Backend = "offline", backend_params: Mapping[str, Any] | None = None, out: str | Path,
             seed: int = 0, workers: int = 2, limit: int | None = None, progress: bool | None = None,
             retry_errors: bool = False, executor: str = "thread", address: str | None = None) -> pl.DataFrame:
    """Answer `items` with each method's memory of their inputs; rows stream to out/results.jsonl.

    methods: names, name -> params for get_memory, or (name, params) pairs (several parameter sets of one
    method; those differing only in retrieval params share each ingest: SharedIngests). backend: a name
    (with backend_params) or a Backend. limit: the first N items of each sub_track. retry_errors: recompute
    the rows of earlier runs that hold an exception error (inputs/ingest/retrieve/answer). executor: "auto" (processes
    for a local backend by name, such as offline, with workers > 1; threads otherwise), "thread" (a pool of
    `workers` threads; workers=1 runs serially, in order), "process" (`workers` spawned processes,
    for CPU-bound backends such as offline; needs the backend by name; see parallel.py) or "ray" (a
    persona's groups per unit on a Ray cluster at `address`, a local Ray of `workers` CPUs when None;
    filegram_kit.util.executors). Rows, resume and manifest are the same whichever runs them. Returns the
    rows of this selection (earlier runs' included), in method then item order.
    """
    from .manifest import run_facts

    all_items, out = list(items), Path(out)
    chosen, specs = select(all_items, limit), resolve_methods(methods)
    if executor not in ("auto", "thread", "process", "ray"):
        raise ValueError(f"executor must be 'auto', 'thread', 'process' or 'ray', got {executor!r}")
    client, client_params = _backend(backend, backend_params, seed)
    in_process = [m.name for m in specs if isinstance(MEMORIES.get(m.name), type)]
    if executor == "auto":  # local CPU-bound answering gains from processes, API calls from threads
        local = isinstance(backend, str) and backend in UNCACHED
        executor = "process" if local and workers > 1 and not in_process else "thread"
    if executor in ("process", "ray") and in_process:
        raise ValueError(f"executor={executor!r}: {', '.join(in_process)} registered as a class in this process, "
                         "which a worker cannot import; use executor='thread', or register it as 'module:Class'")
    if executor in ("process", "ray") and client_params is None:
        raise ValueError(f"executor={executor!r} builds a backend in each worker: give the backend by name")
    run = {"backend": client.name, "model": client.model, "seed": int(seed)}
    facts = run_facts(all_items, chosen, corpus, limit, run["backend"])
    with exclusive(out / ".lock", wait=False, what=f"results folder {out}"):  # one run writes a folder at a time
        return _evaluate(out, all_items, chosen, specs, client, client_params, run, facts, corpus, backend,
                         workers=workers, progress=progress, retry_errors=retry_errors, executor=executor,
                         address=address)


def _evaluate(out: Path, all_items: list[Item], chosen: list[Item], specs: list[Method], client: Any,
              client_params: dict[str, Any] | None, run: dict[str, Any], facts: dict[str, Any], corpus: str | Path,
              backend: Backend, *, workers: int, progress: bool | None, retry_errors: bool, executor: str,
              address: str | None) -> pl.DataFrame:
    from .manifest import check_resume, write_manifest

    check_resume(out, facts)
    log, state = ResultsLog(out / "results.jsonl"), RunState()
    wanted = {(m.name, m.params_hash, run["backend"], run["model"], i.question_id, run["seed"])
              for m in specs for i in chosen}
    if retry_errors:
        state.dropped = log.drop(lambda r: row_key(r) in wanted and r.get("error") in EXCEPTION_ERRORS)
    done = {row_key(r) for r in log.rows} & wanted
    state.resumed = len(done)
    groups = make_groups(specs, chosen, lambda m, i: (m.name, m.params_hash, run["backend"], run["model"],
                                                      i.question_id, run["seed"]) in done)
    store = TrajectoryStore(corpus)
    if executor == "thread":  # process workers load their own
        preload(store, groups)
    usage_before = json.loads(json.dumps(client.usage.counts))
    write_manifest(out, state, facts, specs, client, run, usage_before, log.rows)
    bar = progress_bar(total=len(wanted), initial=len(done), desc="answering", unit="item",
                       disable=None if progress is None else not progress)

    def emit_row(row: dict[str, Any]) -> None:
        log.append(row)
        state.written += 1
        bar.update(1)

    def add_usage(delta: dict[str, dict[str, int]]) -> None:
        for phase, counts in delta.items():
            client.usage.add(phase, **counts)

    try:
        if executor == "ray" and groups:
            from ..util.executors import get_executor
            from .parallel import run_on_executor

            run_on_executor(groups, executor=get_executor("ray", workers=workers, address=address), corpus=corpus,
                            backend_name=backend, backend_params=client_params, run=run, emit_row=emit_row,
                            add_usage=add_usage)
        elif executor == "process" and workers > 1 and groups:
            from .parallel import run_in_processes

            run_in_processes(groups, corpus=corpus, backend_name=backend, backend_params=client_params, run=run,
                             workers=int(workers), emit_row=emit_row, add_usage=add_usage)
        else:
            with one_blas_thread(), tallied(client) as tally:
                run_groups(groups, inputs=SharedInputs(store, groups), ingests=SharedIngests(groups), backend=client,
                           tally=tally, workers=max(1, int(workers)),
                           emit=lambda g, i, f: emit_row(make_row(g, i, f, run)))
        state.status = "complete"
    except BaseException:
        state.status = "interrupted"
        raise
    finally:
        log.close()
        bar.close()
        write_manifest(out, state, facts, specs, client, run, usage_before, log.rows)
    return _selection_frame(log.rows, wanted, specs, chosen)


def _selection_frame(rows: list[dict[str, Any]], wanted: set[tuple], specs: list[Method],
                     chosen: list[Item]) -> pl.DataFrame:
    method_order = {(m.name, m.params_hash): i for i, m in enumerate(specs)}
    item_order = {item.question_id: i for i, item in enumerate(chosen)}
    keep = sorted((r for r in rows if row_key(r) in wanted),
                  key=lambda r: (method_order[(r["method"], r["params_hash"])], item_order[r["question_id"]]))
    return pl.DataFrame([{k: r.get(k) for k in RESULT_SCHEMA} for r in keep], schema=RESULT_SCHEMA)

