"""`run_knowact`: the per-case table of one corpus, methods and backend, resumable, in one output folder.

    out/
      knowact.json                    what the folder was made from (corpus, seed, backend, agent); a rerun with
                                      other settings is refused, more methods or personas are added
      splits.json                     every persona's ingest / act split and evidence labels (split.py)
      cases.parquet                   one row per (method, persona, dimension): every reported rate reads it
      units/<persona>/<method>.json   the rows of one (persona, method), written as each finishes (resume)
      act/<agent>/<key>/s<k>/signal/<persona>_<task>/   the act runs, in the release layout (browse them with
                                      load_trajectories); <key> is what the agent was given: the offline
                                      agent's inferred tiers (LxMxxR: x unknown, xxxxxx = zero memory), the
                                      LLM agent's context hash; <key>/given.json says so. Every condition
                                      (zero memory, each method's context, the oracle evidence, the stated
                                      preference) that gives the same tiers shares the same runs.
      workspaces/                     the act tasks' workspace templates

One persona is one unit of work (all its methods, so runs shared by methods are made once); units run
on a pool of spawned processes (`workers`, serial with 1; a caller script needs the usual
`if __name__ == "__main__":` guard).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl

from ..bench.items import PARQUET_OPTIONS
from ..bench.manifest import corpus_info
from ..traces.schema import Profile
from ..util import atomic
from ..util.progress import progress_bar
from .case import persona_rows, persona_split
from .split import ACT_RUNS

VERSION = 2  # 2: several act tasks and seeds per dimension, read together (act_reader.py)
DEFAULT_METHODS = ("no_context", "full_context", "naive_rag", "filegramos", "eager_summary", "mem0", "zep", "memos")
CASES = "cases.parquet"
MIN_PERSONAS = 3  # the persona under test and at least two others to fit its Act reader on
FIXED = ("version", "corpus_engine", "corpus_seed", "seed", "backend", "model", "backend_params", "agent", "act_runs")
DEFAULTS = {"act_runs": ACT_RUNS}  # what a manifest written before the key existed was run with


class KnowActError(ValueError):
    """The output folder holds a run this one must not mix with."""


def _manifest(out: Path, new: dict[str, Any]) -> dict[str, Any]:
    path = out / "knowact.json"
    if not path.is_file():
        return new
    old = json.loads(path.read_text(encoding="utf-8"))
    for key in FIXED:
        if old.get(key, DEFAULTS.get(key)) != new[key]:
            raise KnowActError(f"{out} holds a KnowAct run made with {key}={old.get(key, DEFAULTS.get(key))!r}, not "
                               f"{new[key]!r}; its "
                               "rows would mix with these: use another --out folder or delete this one")
    return {**new, **{k: list(dict.fromkeys(old.get(k, []) + new[k])) for k in ("methods", "personas")}}


def _unit(corpus: str, out: str, pid: str, methods: tuple[str, ...], backend: str, params_json: str, agent: str,
          seed: int, act_runs: int = ACT_RUNS) -> str:
    persona_rows(_state(corpus, backend, params_json), Path(out), pid, methods, agent=agent, seed=seed,
                 act_runs=act_runs)
    return pid


@cache
def _state(corpus: str, backend: str, params_json: str):
    """Per worker process: the corpus facts, its trajectory store, the backend and the calibration."""
    from .case import UnitState

    return UnitState.load(corpus, backend, json.loads(params_json))


def _run_units(calls: list[tuple], workers: int, progress: bool | None, executor: str = "process",
               address: str | None = None) -> None:
    """Every persona unit on `executor` (filegram_kit.util.executors: spawned processes by default, never forked:
    polars and the offline backend's threads do not survive a fork). A unit writes its files atomically, so a
    unit Ray runs again after a lost worker leaves the same files."""
    from ..util.executors import get_executor

    runner = get_executor("serial" if workers == 1 and executor != "ray" else executor, workers=workers,
                          address=address)
    with progress_bar(total=len(calls), desc="knowact", unit="persona",
                      disable=None if progress is None else not progress) as bar:
        for _ in runner.imap(_unit, calls):
            bar.update()


def _current(row: dict[str, Any]) -> dict[str, Any]:
    """A case row in today's columns: rows written before the rename count the attributes passed as
    `know_attributes_correct`."""
    if "know_attributes_correct" in row and "know_attributes_passed" not in row:
        row["know_attributes_passed"] = row.pop("know_attributes_correct")
    return row


def load_cases(out: str | Path, methods: Sequence[str] | None = None, personas: Sequence[str] | None = None
               ) -> pl.DataFrame:
    """The case rows under `out/units`, in method order, then persona and dimension."""
    out = Path(out)
    rows = []
    for path in sorted((out / "units").glob("*/*.json")):
        if (methods is None or path.stem in methods) and (personas is None or path.parent.name in personas):
            rows += [_current(row) for row in json.loads(path.read_text(encoding="utf-8"))]
    if not rows:
        raise FileNotFoundError(f"{out}: no KnowAct case rows; run `filegram knowact --out {out}` first")
    order = {m: i for i, m in enumerate(methods or dict.fromkeys(r["method"] for r in rows))}
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return frame.sort(pl.col("method").replace_strict(order, default=len(order)), "persona", "dimension")


def run_knowact(corpus: str | Path, out: str | Path, *, methods: Iterable[str] = DEFAULT_METHODS,
                backend: str = "offline", backend_params: dict[str, Any] | None = None, agent: str = "offline",
                seed: int = 0, personas: Iterable[str | Profile] | None = None, workers: int | None = None,
                progress: bool | None = None, executor: str = "process", address: str | None = None,
                act_runs: int = ACT_RUNS) -> pl.DataFrame:
    """Know and Act for every (method, persona, dimension); writes `out/cases.parquet` and returns it.

    `executor` / `address`: where the persona units run ("process", "thread", "serial" or "ray").
    `act_runs`: act runs per dimension and condition, read together (default ACT_RUNS = 3 act tasks x 3 seeds;
    fewer cost fewer agent runs, which counts with an LLM agent, and read each dimension with less power)."""
    from ..bench.ground_truth import corpus_facts
    from ..llm import get_backend
    from ..memory.base import MEMORIES
    from ..util.plugins import is_reference
    from .act import AGENTS

    if agent not in AGENTS:
        raise ValueError(f"unknown acting agent {agent!r}; agents: {', '.join(AGENTS)}")
    if act_runs < 1:
        raise ValueError(f"act_runs must be at least 1 (every act task runs at least once), got {act_runs}")
    corpus, out = Path(corpus), Path(out)
    methods = tuple(dict.fromkeys(methods))
    unknown = [m for m in methods if m not in MEMORIES and not is_reference(m)]
    if unknown:
        raise KeyError(f"unknown method(s) {unknown}; methods: {', '.join(sorted(MEMORIES))}")
    facts = corpus_facts(corpus)
    if len(facts.sessions) < MIN_PERSONAS:
        raise KnowActError(f"{corpus}: KnowAct needs at least {MIN_PERSONAS} personas in the corpus (the Act reader of "
                           f"a persona is fit on the other personas' sessions), it has {len(facts.sessions)}; build "
                           "it with more (`filegram corpus --profiles ...` or `--sample N`)")
    chosen = [p.id if isinstance(p, Profile) else p for p in (personas or sorted(facts.sessions))]
    missing = [p for p in chosen if p not in facts.sessions]
    if missing:
        raise KeyError(f"{corpus}: no sessions of persona(s) {missing}; personas: {', '.join(sorted(facts.sessions))}")
    params = dict(backend_params or {})
    model = get_backend(backend, **params).model  # a missing key fails here, before anything runs
    info = corpus_info(corpus)
    manifest = _manifest(out, {"version": VERSION, "corpus_engine": info["engine"], "corpus_seed": info["seed"],
                               "seed": seed, "backend": backend, "model": model, "backend_params": params,
                               "agent": agent, "act_runs": act_runs, "methods": list(methods), "personas": chosen})
    out.mkdir(parents=True, exist_ok=True)
    atomic.write_json(out / "knowact.json", manifest)
    atomic.write_json(out / "splits.json", [persona_split(facts, p, seed).as_dict() for p in chosen])
    params_json = json.dumps(params, sort_keys=True)
    _state.cache_clear()  # a serial run in this process must read this corpus as it is now
    calls = [(str(corpus), str(out), pid, methods, backend, params_json, agent, seed, act_runs) for pid in chosen]
    _run_units(calls, max(1, min(workers or os.cpu_count() or 1, len(calls))), progress, executor, address)
    cases = load_cases(out, methods, chosen)
    buffer = io.BytesIO()
    cases.write_parquet(buffer, **PARQUET_OPTIONS)
    atomic.write_bytes(out / CASES, buffer.getvalue())
    return cases
