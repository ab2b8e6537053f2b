"""results.jsonl: one JSON line per answered item, appended whole, read back as a polars frame.

Each row is keyed by (method, params_hash, backend, model, question_id, seed); RESULT_SCHEMA lists
every column. Lines are written in one call each and flushed; the file is fsynced every SYNC_EVERY
rows and at the end, so a crash can only tear the last line, which the next open cuts off.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from ..util.atomic import write_text

SYNC_EVERY = 50  # rows between fsyncs of results.jsonl
KEY = ("method", "params_hash", "backend", "model", "question_id", "seed")
RESULT_SCHEMA: dict[str, Any] = {
    "method": pl.String, "params_hash": pl.String, "backend": pl.String, "model": pl.String,
    "question_id": pl.String, "seed": pl.Int64, "item_seed": pl.Int64, "profile_id": pl.String,
    "control": pl.Boolean, "sub_track": pl.String, "channel": pl.String, "mcq": pl.Boolean,
    "input_key": pl.String, "answer": pl.String, "score": pl.Float64, "is_correct": pl.Boolean, "likert": pl.Int64,
    "confidence": pl.Float64, "rationale": pl.String, "context_tokens": pl.Int64, "memory_tokens": pl.Int64,
    "latency_s": pl.Float64, "ingest_s": pl.Float64, "ingest_calls": pl.Int64, "ingest_tokens_in": pl.Int64,
    "ingest_tokens_out": pl.Int64, "ingest_est_tokens_in": pl.Int64, "ingest_est_tokens_out": pl.Int64,
    "cache_hit": pl.Boolean, "reader_tokens_in": pl.Int64,
    "reader_tokens_out": pl.Int64, "error": pl.String, "error_message": pl.String,
}


def _current(row: dict[str, Any]) -> dict[str, Any]:
    """A row in today's columns: rows written before the rename hold the verdict as `correct`."""
    if "correct" in row and "is_correct" not in row:
        row["is_correct"] = row.pop("correct")
    return row


class ResultsLog:
    """Whole JSON lines appended to a file. On open, a torn last line (a crash mid-write) is cut off."""

    def __init__(self, path: Path, *, repair: bool = True):
        self.path = Path(path)
        self.rows = self._read(repair)
        self._fh: Any = None
        self._unsynced = 0

    def _read(self, repair: bool) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            warnings.warn(f"{self.path}: {'cut' if repair else 'skipped'} an incomplete last line "
                          f"({len(data) - end} bytes) left by an interrupted run", stacklevel=3)
            if repair:
                with open(self.path, "r+b") as fh:
                    fh.truncate(end)
        rows = []
        for number, line in enumerate(data[:end].decode("utf-8").splitlines(), 1):
            if line.strip():
                try:
                    rows.append(_current(json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{self.path}: line {number} is not JSON ({exc}); the file was edited or "
                                     "damaged outside the harness") from None
        return rows

    def drop(self, predicate: Callable[[dict[str, Any]], bool]) -> int:
        """Remove the rows matching `predicate` (rewrites the file atomically); how many were removed."""
        kept = [r for r in self.rows if not predicate(r)]
        removed = len(self.rows) - len(kept)
        if removed:
            write_text(self.path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
            self.rows = kept
        return removed

    def append(self, row: dict[str, Any]) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed in close())
        self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._fh.flush()
        self.rows.append(row)
        self._unsynced += 1
        if self._unsynced >= SYNC_EVERY:
            self.sync()

    def sync(self) -> None:
        if self._fh is not None and self._unsynced:
            os.fsync(self._fh.fileno())
            self._unsynced = 0

    def close(self) -> None:
        if self._fh is not None:
            self.sync()
            self._fh.close()
            self._fh = None


def row_key(row: Mapping[str, Any]) -> tuple:
    return tuple(row.get(k) for k in KEY)


def load_results(path: str | Path) -> pl.DataFrame:
    """A results.jsonl (or the folder holding one) as a frame with RESULT_SCHEMA's columns."""
    path = Path(path)
    path = path / "results.jsonl" if path.is_dir() else path
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no results (run `filegram eval ... --out {path.parent}` first)")
    rows = ResultsLog(path, repair=False).rows
    return pl.DataFrame([{k: r.get(k) for k in RESULT_SCHEMA} for r in rows], schema=RESULT_SCHEMA)


class ErrorRows(RuntimeError):
    """Result rows that hold errors where a finished run is expected (a reproduce step): a number computed over
    them would silently count each error as a wrong answer."""


def check_no_errors(rows: pl.DataFrame, where: str | Path) -> None:
    """Raise ErrorRows naming how many rows of `where` hold errors, by kind, and the first one's method, item
    and message."""
    bad = rows.filter(pl.col("error").is_not_null())
    if bad.is_empty():
        return
    first = bad.row(0, named=True)
    kinds = ", ".join(f"{k['error']}: {k['count']}" for k in bad["error"].value_counts(sort=True).to_dicts())
    raise ErrorRows(f"{where}: {bad.height} of {rows.height} result rows hold errors ({kinds}); first: method "
                    f"{first['method']}, item {first['question_id']} (seed {first['item_seed']}): {first['error']}: "
                    f"{first['error_message']}. Fix the cause and rerun (`filegram reproduce` retries rows that hold "
                    f"errors; `filegram eval` with --retry-errors), or pass --allow-errors to keep them as they are")
