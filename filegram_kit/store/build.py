"""Build or refresh a corpus' store: convert the trajectories that are new or changed, drop the gone.

    report = update_store("data/corpus")        # first time: everything; later: only what changed

Trajectories are converted in parts of `CHUNK` (spawned workers when there are several parts), each
part written atomically under a new name; then the index is replaced in one step and parts no row
names any more are deleted. A crash leaves only unnamed parts, removed by the next update. Two
updates of one store wait for each other (a file lock); readers never lock, they read what the index
names. Made by other store code (another `layout.store_code()`), a store is rebuilt from scratch.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..util import atomic
from ..util.executors import Executor, get_executor
from ..util.progress import progress_bar
from .convert import INDEX_SCHEMA, Part
from .layout import (
    FORMAT,
    TABLES,
    StoreError,
    is_ours,
    locked,
    part_path,
    read_index,
    scan_stamps,
    store_code,
    store_dir,
)
from .read import collector_paused

CHUNK = 256  # trajectories per part
PARALLEL_FROM = 4 * CHUNK  # fewer to convert: one process (spawning costs more than it saves)
COMPRESSION = "lz4"  # 4x smaller than the JSON; faster to write than snappy (and zstd), read as fast


@dataclass(frozen=True)
class StoreReport:
    store: Path
    converted: int  # trajectories (re)converted now
    kept: int  # already current
    removed: int  # gone from signal/, their rows dropped
    problems: int  # trajectories the store leaves to the JSON path (see `EventStore.problems`)
    raw_events: int  # raw events converted now
    seconds: float

    def __str__(self) -> str:
        rate = f", {self.raw_events / self.seconds:,.0f} raw events/s" if self.converted and self.seconds else ""
        return (f"{self.store}: converted {self.converted} trajectories ({self.raw_events:,} raw events{rate}), "
                f"{self.kept} already current, {self.removed} removed, {self.problems} left to the JSON path "
                "(problems)")


def _write_part(root: Path, part: str, dirs: list[str], fast: bool) -> list[dict[str, Any]]:
    """Convert these trajectory folders into part `part`; returns their index rows."""
    # ~100K new objects a part, none in a cycle: no cyclic GC until they are freed (a collection while they
    # live rescans them all: 0.08 s a part)
    with collector_paused():
        part_rows = Part(fast=fast)
        for directory in dirs:
            part_rows.add(directory)
        rows = part_rows.frames()
        del part_rows
        for table, frame in zip(TABLES, rows[:len(TABLES)], strict=True):
            path = part_path(root, table, part)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            frame.write_parquet(tmp, compression=COMPRESSION, statistics=True)
            os.replace(tmp, path)
        index = rows.index
        del rows
    return [{**row, "part": part if row["problems"] is None else None} for row in index]


def _next_part(index: pl.DataFrame, root: Path) -> int:
    names = set(index["part"].drop_nulls().to_list())
    for table in TABLES:
        if (root / table).is_dir():
            names.update(p.stem for p in (root / table).glob("part-*.parquet"))
    return 1 + max((int(n.removeprefix("part-")) for n in names if n.removeprefix("part-").isdigit()), default=0)


def _rewrite(root: Path, part: str, drop: set[str], new_part: str) -> None:
    """Part `part` without the rows of `drop`, written as `new_part`."""
    for table in TABLES:
        frame = pl.read_parquet(part_path(root, table, part)).filter(~pl.col("trajectory_id").is_in(sorted(drop)))
        path = part_path(root, table, new_part)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        frame.write_parquet(tmp, compression=COMPRESSION, statistics=True)
        os.replace(tmp, path)


def _convert_all(root: Path, chunks: list[list[str]], first: int, runner: Executor, fast: bool,
                 bar: Any) -> list[dict[str, Any]]:
    """Each chunk a part, converted on `runner` (a unit writes only its own part: re-running one is harmless)."""
    calls = [(root, f"part-{first + k:06d}", chunk, fast) for k, chunk in enumerate(chunks)]
    rows: list[dict[str, Any]] = []
    for index, found in runner.imap(_write_part, calls):
        rows += found
        bar.update(len(chunks[index]))
    return rows


def update_store(corpus: str | Path, *, workers: int | None = None, progress: bool | None = None,
                 rebuild: bool = False, chunk: int = CHUNK, fast: bool = True, executor: str = "process",
                 address: str | None = None) -> StoreReport:
    """Bring `corpus`/store up to date with `corpus`/signal (see the module docstring).

    `workers`: processes for the conversion (default: all cores, one when there is little to do);
    `executor` / `address`: where the parts are converted (filegram_kit.util.executors; the store folder must be
    one every worker sees); `rebuild`: convert everything again; `fast=False`: only the JSON path (for
    tests; same rows).
    """
    started = time.perf_counter()
    corpus = Path(corpus)
    if not (corpus / "signal").is_dir():
        raise StoreError(f"{corpus}: not a corpus folder (it has no signal/ folder of trajectories)")
    root = store_dir(corpus)
    with locked(root):
        if rebuild or not is_ours(root):
            for table in TABLES:
                shutil.rmtree(root / table, ignore_errors=True)
            (root / "index.parquet").unlink(missing_ok=True)
        index = read_index(root)
        stamps = scan_stamps(corpus / "signal")
        known = dict(zip(index["trajectory_id"], index["stamp"], strict=True))
        current = {t for t, s in known.items() if stamps.get(t) == s}
        todo = [t for t in stamps if t not in current]
        gone = set(known) - current
        kept = index.filter(pl.col("trajectory_id").is_in(sorted(current)))
        first = _next_part(index, root)
        for part in sorted(set(index.filter(pl.col("trajectory_id").is_in(sorted(gone)))["part"].drop_nulls())):
            new_part = f"part-{first:06d}"
            _rewrite(root, part, gone, new_part)
            kept = kept.with_columns(pl.when(pl.col("part") == part).then(pl.lit(new_part)).otherwise("part")
                                     .alias("part"))
            first += 1
        signal = f"{os.fspath(corpus)}/signal/"  # plain strings: 32K Path joins cost more than a part's conversion
        chunks = [[signal + t for t in todo[i:i + chunk]] for i in range(0, len(todo), chunk)]
        n_workers = 1 if len(todo) < PARALLEL_FROM else max(1, min(workers or os.cpu_count() or 1, len(chunks)))
        runner = get_executor("serial" if n_workers == 1 and executor != "ray" else executor, workers=n_workers,
                              address=address)
        with progress_bar(total=len(todo), desc="converting trajectories", unit="traj",
                          disable=None if progress is None else not progress) as bar:
            rows = _convert_all(root, chunks, first, runner, fast, bar)
        new = pl.DataFrame(rows, schema=INDEX_SCHEMA) if rows else pl.DataFrame(schema=INDEX_SCHEMA)
        index = pl.concat([kept, new]).sort("trajectory_id")
        index.write_parquet(root / ".index.parquet.tmp")
        os.replace(root / ".index.parquet.tmp", root / "index.parquet")
        atomic.write_text(root / "STORE.json", json.dumps({"format": FORMAT, "code": store_code()}, indent=2) + "\n")
        _remove_unnamed(root, set(index["part"].drop_nulls()))
    return StoreReport(root, len(todo), len(current), len(gone - set(todo)), int(index["problems"].is_not_null().sum()),
                       int(new["raw_events"].sum() or 0), time.perf_counter() - started)


def _remove_unnamed(root: Path, named: set[str]) -> None:
    """Delete every file of the tables that is not a part the index names (old parts, crashed writes)."""
    keep = {f"{part}.parquet" for part in named}
    for table in TABLES:
        folder = root / table
        for path in folder.iterdir() if folder.is_dir() else ():
            if path.name not in keep:
                path.unlink(missing_ok=True)
