"""Read a corpus through its store: polars lazy scans of the events, and Trajectory objects without JSON.

    store = EventStore.open("data/corpus")        # None when there is no store made by this code
    frame, ids = behaviour("data/corpus", with_content=True)   # cleaned events (lazy) + every trajectory id

`behaviour` is `events_frame(clean(load_trajectories(corpus)).trajectories)` for a whole corpus or a
selection: rows of current trajectories come from the store, the rest (new, changed, or with a problem
the JSON path must report) from the JSON path, so the answer never depends on whether a store is there.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cached_property
from itertools import chain, repeat
from pathlib import Path

import polars as pl

from ..traces.frames import SCHEMA, TABLE_ROWS
from ..traces.schema import Event, Trajectory
from .convert import INDEX_SCHEMA, STAMPED, loaded_trajectory, stamp
from .layout import corpus_root, is_ours, part_path, read_index, scan_stamps, store_dir
from .lazyfields import LazyFields, TrajectoryJSON, mismatch

_EVENT = Event.__new__  # Events are built without __init__ (frozen: six object.__setattr__ calls each)
_SET = object.__setattr__  # a frozen Event's __dict__ is given whole


class EventStore:
    """A corpus' store (see `layout`). Build or refresh it with `update_store`."""

    def __init__(self, corpus: str | Path):
        self.corpus = Path(corpus)
        self.root = store_dir(self.corpus)
        self.signal = self.corpus / "signal"

    @classmethod
    def open(cls, path: str | Path) -> EventStore | None:
        """The store of the corpus at `path` (its root or signal/ folder), or None (no store made by this code)."""
        root = corpus_root(path)
        return cls(root) if root is not None and is_ours(store_dir(root)) else None

    @cached_property
    def index(self) -> pl.DataFrame:
        """The index without the summaries (`convert.INDEX_SCHEMA` but `summary`, which `load` reads itself)."""
        return read_index(self.root, [c for c in INDEX_SCHEMA if c != "summary"])

    @cached_property
    def _entries(self) -> dict[str, tuple[str, str | None]]:
        columns = [self.index[c].to_list() for c in ("trajectory_id", "stamp", "part")]
        return {tid: (stamp_, part) for tid, stamp_, part in zip(*columns, strict=True)}

    def served(self, dirs: Iterable[Path]) -> tuple[list[str], list[Path]]:
        """(ids whose rows the store holds and are current, folders the JSON path must read)."""
        mine, rest = [], []
        for directory in dirs:
            entry = self._entries.get(directory.name)
            if (entry is not None and entry[1] is not None and directory.parent == self.signal
                    and stamp(directory) == entry[0]):
                mine.append(directory.name)
            else:
                rest.append(directory)
        return mine, rest

    def split(self, path: str | Path, profiles: Iterable[str] | None = None, tasks: Iterable[str] | None = None, *,
              whole: bool = True) -> tuple[list[str], list[Path]]:
        """`served` of the trajectory folders `load_trajectories(path, profiles=, tasks=)` would read; a whole
        corpus is listed by name and stamped by plain stats (no Path per folder). `whole=False` compares only
        events.json's stamp (for frames: summary.json is in none of their columns)."""
        stamps = (scan_stamps(self.signal, STAMPED if whole else STAMPED[:1])
                  if profiles is None and tasks is None and corpus_root(path) else {})
        if not stamps:  # a selection, one trajectory folder, or nothing there (find_trajectory_dirs says so)
            from ..traces.folders import find_trajectory_dirs

            return self.served(find_trajectory_dirs(path, profiles, tasks))
        mine, rest = [], []
        for name, now in stamps.items():
            entry = self._entries.get(name)
            if entry is not None and entry[1] is not None and (entry[0] if whole else entry[0].split("|")[0]) == now:
                mine.append(name)
            else:
                rest.append(self.signal / name)
        return mine, rest

    def status(self) -> pl.DataFrame:
        """One row per trajectory folder or index entry: trajectory_id, `state` (current | stale | new | gone |
        problems: which reader a load uses), raw and behavioural event counts as converted."""
        now = scan_stamps(self.signal)
        index = self.index.select("trajectory_id", "stamp", "problems", "raw_events", "events")
        found = pl.DataFrame({"trajectory_id": list(now), "now": list(now.values())},
                             schema={"trajectory_id": pl.String, "now": pl.String})
        state = (pl.when(pl.col("stamp").is_null()).then(pl.lit("new"))
                 .when(pl.col("now").is_null()).then(pl.lit("gone"))
                 .when(pl.col("problems").is_not_null()).then(pl.lit("problems"))
                 .when(pl.col("stamp") == pl.col("now")).then(pl.lit("current")).otherwise(pl.lit("stale")))
        return (index.join(found, on="trajectory_id", how="full", coalesce=True)
                .select("trajectory_id", state.alias("state"), "raw_events", "events").sort("trajectory_id"))

    def problems(self) -> pl.DataFrame:
        """Trajectories the store leaves to the JSON path, with what is wrong (one row per problem)."""
        rows = self.index.filter(pl.col("problems").is_not_null()).select("trajectory_id", "problems")
        return (rows.with_columns(pl.col("problems").str.json_decode(
            pl.List(pl.Struct({"file": pl.String, "event_index": pl.Int64, "field": pl.String, "reason": pl.String}))))
            .explode("problems").unnest("problems"))

    def _scan(self, table: str, ids: list[str] | None) -> pl.LazyFrame:
        index = self.index if ids is None else self.index.filter(pl.col("trajectory_id").is_in(ids))
        parts = sorted(set(index["part"].drop_nulls()))
        if not parts:
            return pl.LazyFrame(schema=_schema(table))
        frame = pl.scan_parquet([part_path(self.root, table, p) for p in parts])
        return frame if ids is None else frame.filter(pl.col("trajectory_id").is_in(ids))

    def scan_events(self, ids: list[str] | None = None, *, with_content: bool = False,
                    table_rows: bool = False) -> pl.LazyFrame:
        """The stored behavioural events (cleaned) of `ids` (default: all stored), `frames.SCHEMA` columns, then
        `content` and `fingerprint.TABLE_ROWS` if asked."""
        extra = [c for c, wanted in (("content", with_content), (TABLE_ROWS, table_rows)) if wanted]
        return self._scan("events", ids).select(*SCHEMA, *extra)

    def scan_raw(self, ids: list[str] | None = None) -> pl.LazyFrame:
        """Every stored raw event: trajectory_id, event_index and its envelope columns (`scan_json`: its fields)."""
        return self._scan("raw", ids)

    def scan_json(self, ids: list[str] | None = None) -> pl.LazyFrame:
        """One row per stored trajectory: trajectory_id, `json` (its events as one JSON array: events.json's
        bytes; `fastparse.split_events` cuts it into each event's bytes)."""
        return self._scan("json", ids)

    def load(self, ids: list[str]) -> list[Trajectory]:
        """The trajectories of `ids` (stored and current: see `served`), as the JSON path would load them."""
        if not ids:
            return []
        raw = self.scan_raw(ids).collect()
        if not raw.get_column("trajectory_id").is_sorted():  # parts are written in id order
            raw = raw.sort("trajectory_id", "event_index", maintain_order=True)
        index = {r["trajectory_id"]: r for r in pl.scan_parquet(self.root / "index.parquet")
                 .filter(pl.col("trajectory_id").is_in(ids)).collect().iter_rows(named=True)}
        blobs = self.scan_json(ids).collect()
        counts = dict(raw.group_by("trajectory_id", maintain_order=True).len().iter_rows())
        columns = [raw[c].to_list() for c in ("event_id", "event_type", "timestamp", "session_id", "profile_id")]
        with collector_paused():  # ~77K new objects per 640 trajectories: the cyclic GC would rescan them often
            found = {tid: TrajectoryJSON(data, counts.get(tid, 0), f"{self.root}: trajectory {tid}")
                     for tid, data in zip(blobs["trajectory_id"], blobs["json"], strict=True)}
            if missing := sorted(counts.keys() - found.keys()):
                raise mismatch(f"{self.root}: trajectory {missing[0]}", counts[missing[0]], 0)
            sources = chain.from_iterable(zip(repeat(found[tid], n), range(n), strict=True)
                                          for tid, n in counts.items())  # (its trajectory's JSON, k) per event
            events = []
            for event_id, kind, timestamp, session, profile, (source, k) in zip(*columns, sources, strict=True):
                event = _EVENT(Event)
                _SET(event, "__dict__", {"event_id": event_id, "event_type": kind, "timestamp": timestamp,
                                         "session_id": session, "profile_id": profile, "fields": LazyFields(source, k)})
                events.append(event)
            by_id, start = {}, 0
            for tid, n in counts.items():
                by_id[tid], start = tuple(events[start:start + n]), start + n
            return [loaded_trajectory(index[tid], by_id.get(tid, ()), self.signal) for tid in ids]


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside (the objects built here hold no cycles), as before afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _schema(table: str) -> dict[str, pl.DataType]:
    from .convert import EVENTS_SCHEMA, JSON_SCHEMA, RAW_SCHEMA

    return {"raw": RAW_SCHEMA, "events": EVENTS_SCHEMA, "json": JSON_SCHEMA}[table]


def behaviour(path: str | Path, *, with_content: bool = False, profiles: Iterable[str] | None = None,
              tasks: Iterable[str] | None = None, quarantine: bool = False, check_media: bool = True,
              progress: bool | None = None, ordered: bool = True, table_rows: bool = False,
              whole: bool = True) -> tuple[pl.LazyFrame, pl.DataFrame]:
    """(cleaned behavioural events of the trajectories under `path`, their ids), store first (module docstring).

    The ids frame (trajectory_id, profile_id, task_id) lists every trajectory, those without a behavioural
    event too. `ordered=False` skips the final sort by trajectory and event (fingerprints do not need it);
    `table_rows` adds `fingerprint.TABLE_ROWS`, each text's table-row count, which the store keeps (so the
    17 features read no text). `whole=False`: a trajectory is current while its events.json is (its
    summary.json, which no frame column holds, is not looked at: one stat fewer per trajectory).
    """
    from ..traces.folders import find_trajectory_dirs

    store = EventStore.open(path)
    if store is not None:
        mine, rest = store.split(path, profiles, tasks, whole=whole)
    else:
        mine, rest = [], find_trajectory_dirs(path, profiles, tasks)
    extra, ids = _json_path(rest, path, with_content=with_content, table_rows=table_rows, quarantine=quarantine,
                            check_media=check_media, progress=progress)
    if store is None or not mine:
        return extra.lazy(), ids
    frame = pl.concat([store.scan_events(None if len(mine) == len(store.index) else mine,
                                         with_content=with_content, table_rows=table_rows), extra.lazy()])
    ids = _with_stored_ids(store, mine, ids)
    return (frame.sort("trajectory_id", "event_index") if ordered else frame), ids


def per_trajectory(path: str | Path, compute: Callable[[pl.LazyFrame], pl.DataFrame], *, table_rows: bool = False,
                   quarantine: bool = False, check_media: bool = True, progress: bool | None = None
                   ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(`compute(behaviour(path)[0])`, the ids) for a whole corpus, where `compute` makes each trajectory's rows
    from its events alone (a group_by trajectory_id, say). It runs over every stored row while the currency
    check stats the corpus (both wait on I/O or polars, not the GIL); then the rows of trajectories found
    stale are dropped and theirs made from the JSON path. Events are read as `behaviour(..., whole=False)`."""
    from concurrent.futures import ThreadPoolExecutor

    store = EventStore.open(path)
    if store is None or not corpus_root(path):
        frame, ids = behaviour(path, table_rows=table_rows, quarantine=quarantine, check_media=check_media,
                               progress=progress, ordered=False, whole=False)
        return compute(frame), ids
    store.index  # noqa: B018 (read once here, before both threads want it)
    with ThreadPoolExecutor(1) as pool:
        checked = pool.submit(store.split, path, whole=False)
        optimistic = compute(store.scan_events(table_rows=table_rows))
        mine, rest = checked.result()
    extra, ids = _json_path(rest, path, table_rows=table_rows, quarantine=quarantine, check_media=check_media,
                            progress=progress)
    if len(mine) < len(store.index):  # stale or gone: their stored rows are not theirs any more
        optimistic = optimistic.filter(pl.col("trajectory_id").is_in(mine))
    rows = pl.concat([optimistic, compute(extra.lazy())]) if rest else optimistic
    return rows, _with_stored_ids(store, mine, ids)


def _json_path(rest: list[Path], where: str | Path, *, with_content: bool = False, table_rows: bool = False,
               quarantine: bool = False, check_media: bool = True, progress: bool | None = None
               ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the cleaned events frame of these folders, their ids) read by the JSON path."""
    from ..traces.cleaning import clean
    from ..traces.folders import load_dirs
    from ..traces.frames import events_frame

    loaded = clean(load_dirs(rest, quarantine=quarantine, check_media=check_media, progress=progress,
                             where=where)).trajectories
    extra = events_frame(loaded, with_content=with_content or table_rows)
    if table_rows:
        from ..traces.frames import TABLE_ROWS, table_rows_of

        extra = extra.with_columns(table_rows_of(pl.col("content")).cast(pl.Int32).alias(TABLE_ROWS))
        extra = extra if with_content else extra.drop("content")
    ids = pl.DataFrame([(t.id, t.profile_id, t.task_id) for t in loaded],
                       schema=["trajectory_id", "profile_id", "task_id"], orient="row")
    return extra, ids


def _with_stored_ids(store: EventStore, mine: list[str], ids: pl.DataFrame) -> pl.DataFrame:
    stored = store.index.filter(pl.col("trajectory_id").is_in(mine)).select(ids.columns)
    return pl.concat([stored, ids]).sort("trajectory_id")
