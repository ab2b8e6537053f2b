"""One trajectory folder -> the store's rows: its raw events, its cleaned behavioural events, its index row.

    raw rows     every event as loaded: its envelope columns
    event rows   the behavioural events after `clean()`, in `frames.SCHEMA` columns, + `content`
    json row     the trajectory's events as one JSON array: events.json's bytes as they are (each event's
                 fields are read from them when a loaded event's `fields` are first looked at)
    index row    id, profile, task, summary.json, the files' stamps, counts, problems

Two paths give the same rows. The fast one (`fastparse`, no Event objects) takes what it can prove
valid; the slow one is the JSON path itself (`traces`, `clean`, `events_frame`) and takes everything
else. A trajectory with a problem (an event `parse_event` refuses, missing media, an unreadable file)
keeps no rows, only its index row listing the problems: readers send it to the JSON path, so a user
gets there exactly the error, quarantine and warning they get without a store.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import polars as pl

from ..traces.cleaning import clean
from ..traces.folders import read_trajectory_dir, trajectory_identity
from ..traces.frames import SCHEMA, TABLE_ROWS, events_frame, table_rows_of
from ..traces.media import MediaError, MediaStore
from ..traces.schema import Event, Trajectory
from ..traces.validation import TraceError
from . import fastparse, fastrows

RAW_SCHEMA: dict[str, pl.DataType] = {
    "trajectory_id": pl.String, "event_index": pl.Int32, "event_type": pl.String, "timestamp": pl.Float64,
    "event_id": pl.String, "session_id": pl.String, "profile_id": pl.String,
}
# one row per trajectory, not per event: 127K small values cost more to gather and write than 1K large ones
JSON_SCHEMA: dict[str, pl.DataType] = {"trajectory_id": pl.String, "json": pl.Binary}
EVENTS_SCHEMA: dict[str, pl.DataType] = {**SCHEMA, "content": pl.String, TABLE_ROWS: pl.Int32}
INDEX_SCHEMA: dict[str, pl.DataType] = {
    "trajectory_id": pl.String, "profile_id": pl.String, "task_id": pl.String, "stamp": pl.String,
    "summary": pl.String, "raw_events": pl.Int32, "events": pl.Int32, "problems": pl.String, "part": pl.String,
    "path": pl.String,
}
STAMPED = ("events.json", "summary.json")  # media are content-addressed: a new text is a new file and reference


def stamp(directory: Path | str, files: tuple[str, ...] = STAMPED) -> str | None:
    """Size and mtime (ns) of the files a trajectory is read from (it changes whenever they do); None when
    the folder holds no events.json file (`files` starts with it). Plain strings and stats: a corpus of
    32K trajectories is stamped in a fraction of a second."""
    prefix = f"{os.fspath(directory)}/"
    try:
        st = os.stat(prefix + files[0])
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    parts = [f"{st.st_size}:{st.st_mtime_ns}"]
    for name in files[1:]:
        try:
            st = os.stat(prefix + name)
        except (FileNotFoundError, NotADirectoryError):
            parts.append("-")
            continue
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


class Rows(NamedTuple):
    """A part's frames, one per table (`layout.TABLES` order), and its index rows."""

    raw: pl.DataFrame
    events: pl.DataFrame
    json: pl.DataFrame
    index: list[dict[str, Any]]


class Part:
    """The rows of a batch of trajectories, gathered column by column and then made one frame per table.

        part = Part(); part.add(folder) ...; raw, events, json, index = part.frames()
    """

    def __init__(self, *, fast: bool = True):
        self.fast = fast
        self.rows = fastrows.FastRows()
        self.slow: list[tuple[pl.DataFrame, pl.DataFrame]] = []
        self.json: dict[str, list] = {"trajectory_id": [], "json": []}
        self.index: list[dict[str, Any]] = []
        self.json_path = 0  # trajectories the fast path left to the JSON path

    def add(self, directory: str | Path) -> dict[str, Any]:
        """Convert one trajectory folder; returns its index row (`problems` set: it keeps no rows)."""
        directory = Path(directory)
        stamp_ = stamp(directory)
        taken = None
        if self.fast:
            try:
                taken = self._fast(directory, stamp_)
            except (OSError, ValueError, MediaError, msgspec.MsgspecError, RecursionError):
                taken = None  # UnicodeDecodeError is a ValueError; nothing was taken (FastRows.add)
        if taken is None:
            self.json_path += 1
            row, frames, data = _slow(directory, stamp_)
            if frames is not None:
                self.slow.append(frames)
        else:
            row, data = taken
        if data is not None:
            self.json["trajectory_id"].append(row["trajectory_id"])
            self.json["json"].append(data)
        self.index.append(row)
        return row

    def _fast(self, directory: Path, stamp_: str | None) -> tuple[dict[str, Any], bytes] | None:
        """(index row, events.json's bytes), or None: the JSON path decides."""
        data = (directory / "events.json").read_bytes()
        records = fastparse.decode(data)
        if records is None or stamp_ is None:
            return None
        summary_text, summary = None, {}
        if stamp_.split("|")[1] != "-":  # summary.json is there
            summary_text = (directory / "summary.json").read_text(encoding="utf-8")
            summary = msgspec.json.decode(summary_text)
            if not isinstance(summary, dict):
                return None
        profile_id, task_id = trajectory_identity(directory.name, summary,
                                                  (None if r.profile_id is msgspec.UNSET else r.profile_id
                                                   for r in records))
        events = self.rows.add(directory.name, profile_id, task_id, records, f"{directory}/media")
        if events is None:
            return None
        return _index(directory, stamp_, profile_id, task_id, summary_text, len(records), events), data

    def frames(self) -> Rows:
        """The part's frames in the store's column types, sorted by trajectory (and event), and its index rows."""
        raw = [pl.DataFrame(self.rows.raw, schema=RAW_SCHEMA)]
        events = [with_table_rows(self.rows.event_frame(EVENTS_SCHEMA))]
        blobs = pl.DataFrame(self.json, schema=JSON_SCHEMA).sort("trajectory_id")
        if not self.slow:
            return Rows(raw[0], events[0], blobs, self.index)
        raw += [r.select(list(RAW_SCHEMA)).cast(RAW_SCHEMA) for r, _ in self.slow]
        events += [with_table_rows(e).select(list(EVENTS_SCHEMA)).cast(EVENTS_SCHEMA) for _, e in self.slow]
        return Rows(pl.concat(raw).sort("trajectory_id", "event_index"),
                    pl.concat(events).sort("trajectory_id", "event_index"), blobs, self.index)


def with_table_rows(events: pl.DataFrame) -> pl.DataFrame:
    """The text's table-row count beside it (the one part of a text the 17-D fingerprint reads)."""
    return events.with_columns(table_rows_of(pl.col("content")).cast(pl.Int32).alias(TABLE_ROWS))


def _index(directory: Path, stamp_: str, profile_id: str | None, task_id: str | None, summary: str | None,
           raw: int, events: int, problems: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"trajectory_id": directory.name, "profile_id": profile_id, "task_id": task_id, "stamp": stamp_,
            "summary": summary, "raw_events": raw, "events": events,
            "problems": json.dumps(problems, ensure_ascii=False) if problems else None, "part": None,
            "path": directory.name}


def _problem(err: Exception) -> dict[str, Any]:
    if isinstance(err, TraceError):
        return {"file": err.file, "event_index": err.event_index, "field": err.field, "reason": err.reason}
    return {"file": None, "event_index": None, "field": None, "reason": f"{type(err).__name__}: {err}"}


def convert(directory: str | Path, *, fast: bool = True) -> tuple[Rows, bool]:
    """(the rows of one trajectory folder, whether the fast path took it) (`fast=False`: the JSON path only)."""
    part = Part(fast=fast)
    part.add(directory)
    return part.frames(), part.json_path == 0


def _slow(directory: Path, stamp_: str) -> tuple[dict[str, Any], tuple[pl.DataFrame, pl.DataFrame] | None,
                                                  bytes | None]:
    """The JSON path: `traces.folders.read_trajectory_dir`, `clean`, `events_frame`; every problem it meets is
    recorded. Returns the index row, the raw and event rows and the events written again as one JSON array (None:
    a problem)."""
    try:
        traj, dropped = read_trajectory_dir(directory, quarantine=True, check_media=True)
    except Exception as err:  # noqa: BLE001 (the whole file is unreadable; readers meet the same error)
        return _index(directory, stamp_, None, None, None, 0, 0, [_problem(err)]), None, None
    problems = [{"file": q.file, "event_index": q.event_index, "field": q.field, "reason": q.reason}
                for q in dropped]
    summary = (directory / "summary.json").read_text(encoding="utf-8") if (directory / "summary.json").is_file() \
        else None  # its text: `read_trajectory_dir` just read it as JSON
    events = None
    if not problems:
        try:
            events = events_frame(clean([traj]).trajectories, with_content=True)
        except Exception as err:  # noqa: BLE001 (missing or undecodable content, a value no column holds)
            problems.append(_problem(err))
    if problems:
        return (_index(directory, stamp_, traj.profile_id, traj.task_id, summary, len(traj.events), 0, problems),
                None, None)
    raw = pl.DataFrame({
        "trajectory_id": [traj.id] * len(traj.events), "event_index": list(range(len(traj.events))),
        "event_type": [e.event_type for e in traj.events], "timestamp": [e.timestamp for e in traj.events],
        "event_id": [e.event_id for e in traj.events], "session_id": [e.session_id for e in traj.events],
        "profile_id": [e.profile_id for e in traj.events]}, schema=RAW_SCHEMA)
    row = _index(directory, stamp_, traj.profile_id, traj.task_id, summary, raw.height, events.height)
    return row, (raw, events), json.dumps([e.to_dict() for e in traj.events]).encode()  # ASCII: surrogates too


def loaded_trajectory(index: dict[str, Any], events: tuple[Event, ...], root: Path) -> Trajectory:
    """The Trajectory a store row set stands for (media read from the folder, as the JSON path does)."""
    directory = root / index["path"]
    summary = fastparse.decode_summary(index["summary"])
    return Trajectory(index["trajectory_id"], events, index["profile_id"], index["task_id"], summary,
                      MediaStore(directory / "media", read_only=True), directory)
