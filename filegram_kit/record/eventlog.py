"""A generic event log (JSON lines or CSV) -> Observations, every row checked against one schema.

Use it for any monitor or audit trail you can export (inotify/fswatch/auditd output after a small
conversion, another tool's JSON, a spreadsheet): one row = one file operation.

Schema
------
  field         required   value
  time          yes        epoch seconds or milliseconds, a number or numeric text: below 1e11 it is
                           seconds (1e11 s is the year 5138), from 1e11 up to 1e14 milliseconds (1e14 ms is
                           also the year 5138); larger values (micro-/nanoseconds) and negative ones are
                           rejected. Or ISO 8601 text with a timezone ("2024-03-01T09:30:00+01:00",
                           "2024-03-01T08:30:00Z"); without a timezone it is read as UTC.
  op            yes        what happened, case-insensitive: an observation kind or a synonym
                             write   create created modify modified update updated
                             read    open opened access accessed
                             browse  list ls
                             search
                             mkdir   dir_create
                             move    rename renamed moved mv
                             copy    cp copied
                             delete  remove removed unlink deleted rm
                             baseline  (a file that existed when recording started)
  path          yes        the file or directory: relative to the recorded root, or absolute under `root`
                           (made relative). Absolute or `..` paths outside root are an error, or with
                           outside="skip" the row is skipped and counted.
  dest          move/copy  where it went (same rules as path)
  is_dir        no         true/false: a JSON bool, or "true"/"false"/"1"/"0" (default false; mkdir: true)
  size          no         bytes, an integer >= 0 (default: the UTF-8 length of `content` when given)
  content       no         the text after a write (also sets content_hash = sha256[:16] of its UTF-8 bytes)
  query         no         search query
  search_type   no         grep | glob | codesearch
  matches       no         search hits: a JSON list of paths; in CSV (or as JSON text) separated by ";"
  files_listed  no         browse: entries listed, an integer >= 0
  anything else no         kept as is in the observation's `extra`, beside "line"

Files: `.jsonl`, `.ndjson` and `.json` are JSON lines (one object per line, blank lines skipped); `.csv`
has a header row (line 1; UTF-8, a BOM is fine); in CSV an empty cell means the field is absent.
`format="jsonl"|"csv"` overrides the suffix.

Errors: a bad row raises `ObservationError(file, reason, line=N, field=name)` (N: the 1-based line, in
CSV counting the header as line 1). With errors="collect" bad rows go to `LogReport.problems` with the
same information and the other rows are imported. A file that cannot be read, or a CSV header without
time/op/path, always raises.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import posixpath
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .observations import Observation, ObservationError

OPS: dict[str, str] = {
    **{kind: kind for kind in ("write", "read", "browse", "search", "mkdir", "move", "copy", "delete", "baseline")},
    **dict.fromkeys(("create", "created", "modify", "modified", "update", "updated"), "write"),
    **dict.fromkeys(("open", "opened", "access", "accessed"), "read"),
    **dict.fromkeys(("list", "ls"), "browse"),
    "dir_create": "mkdir",
    **dict.fromkeys(("rename", "renamed", "moved", "mv"), "move"),
    **dict.fromkeys(("cp", "copied"), "copy"),
    **dict.fromkeys(("remove", "removed", "unlink", "deleted", "rm"), "delete"),
}
KNOWN_FIELDS = ("time", "op", "path", "dest", "is_dir", "size", "content", "query", "search_type", "matches",
                "files_listed")
SEARCH_TYPES = ("grep", "glob", "codesearch")
_SECONDS_BELOW, _MS_BELOW = 1e11, 1e14
_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv"}


class _Outside(Exception):
    """A path outside the root (an error, or a counted skip with outside="skip")."""


# -- field parsers: value -> typed value, or ValueError with the reason ------------------------------


def parse_time(value: Any) -> float:
    """Epoch ms from epoch seconds / ms (by magnitude) or ISO 8601 (naive = UTC)."""
    if isinstance(value, bool):
        raise ValueError(f"expected epoch seconds, milliseconds or ISO 8601, got {value!r}")
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text)
        except ValueError:
            try:
                moment = datetime.fromisoformat(text)
            except ValueError:
                raise ValueError(f"expected epoch seconds, milliseconds or ISO 8601, got {value!r}") from None
            moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
            return moment.timestamp() * 1000.0
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"expected epoch seconds, milliseconds or ISO 8601, got {value!r}")
    if value < 0:
        raise ValueError(f"a negative epoch time ({value}) is not supported")
    if value >= _MS_BELOW:
        raise ValueError(f"{value} is too large for epoch milliseconds (micro- or nanoseconds?); "
                         "give seconds or milliseconds")
    return float(value) * 1000.0 if value < _SECONDS_BELOW else float(value)


def parse_op(value: Any) -> str:
    kind = OPS.get(value.strip().lower()) if isinstance(value, str) else None
    if kind is None:
        raise ValueError(f"unknown op {value!r} (expected one of {', '.join(OPS)})")
    return kind


def parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, str | int) else None
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise ValueError(f"expected true/false (or \"1\"/\"0\"), got {value!r}")


def parse_count(value: Any) -> int:
    """An integer >= 0, from a JSON number or text."""
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip()) if value.strip() else None
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, int | float) or not float(number).is_integer():
        raise ValueError(f"expected a whole number >= 0, got {value!r}")
    if number < 0:
        raise ValueError(f"expected a whole number >= 0, got {value!r}")
    return int(number)


def parse_text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__} {value!r:.60}")
    return value


def parse_search_type(value: Any) -> str:
    if value not in SEARCH_TYPES:
        raise ValueError(f"unknown search_type {value!r} (expected one of {', '.join(SEARCH_TYPES)})")
    return value


def parse_path(value: Any, root: str | None) -> str:
    """A POSIX path relative to root ("." for the root). Raises _Outside for a path outside root."""
    text = parse_text(value).strip()
    if not text:
        raise ValueError("empty path")
    if text.startswith("/"):
        if root is None:
            raise ValueError(f"absolute path {text!r} but no root= was given to make it relative")
        path = posixpath.normpath(text)
        if path != root and not path.startswith(root.rstrip("/") + "/"):
            raise _Outside(f"{text!r} is outside the root {root}")
        return "." if path == root else path[len(root.rstrip("/")) + 1:]
    rel = posixpath.normpath(text)
    if rel == ".." or rel.startswith("../"):
        raise _Outside(f"{text!r} leaves the root")
    return rel


def parse_matches(value: Any, root: str | None) -> tuple[str, ...]:
    items = value.split(";") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise ValueError(f"expected a list of paths (or text separated by ';'), got {value!r:.60}")
    return tuple(parse_path(item, root) for item in items if item.strip())


# -- rows ------------------------------------------------------------------------------------------


def _jsonl_rows(text: str, where: str) -> Iterator[tuple[int, dict[str, Any] | ObservationError]]:
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if _not_utf8(line):
            yield number, ObservationError(where, "this line is not valid UTF-8", line=number)
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            yield number, ObservationError(where, f"not valid JSON ({err.msg} at column {err.colno})", line=number)
            continue
        if not isinstance(row, dict):
            hint = " (a JSON array? this importer wants one object per line)" if isinstance(row, list) else ""
            yield number, ObservationError(where, f"expected a JSON object, got {type(row).__name__}{hint}",
                                           line=number)
            continue
        yield number, row


class _CountedLines:
    """Hands lines to csv.reader and counts them, so a record's first line number is known."""

    def __init__(self, text: str):
        self._lines, self.count = iter(io.StringIO(text, newline="")), 0  # splits at \n, \r\n, \r only

    def __iter__(self) -> _CountedLines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.count += 1
        return line


def _csv_rows(text: str, where: str) -> Iterator[tuple[int, dict[str, Any] | ObservationError]]:
    lines = _CountedLines(text)
    reader = csv.reader(lines)
    header = [name.strip() for name in next(reader, [])]
    for name in ("time", "op", "path"):
        if name not in header:
            raise ObservationError(where, f"the header has no {name!r} column (columns: {', '.join(header)})",
                                   line=1, field=name)
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if duplicates:
        raise ObservationError(where, f"column {duplicates[0]!r} appears twice in the header", line=1)
    while True:
        start = lines.count + 1
        cells = next(reader, None)
        if cells is None:
            return
        if not cells:
            continue
        if len(cells) > len(header):
            yield start, ObservationError(where, f"{len(cells)} values but the header has {len(header)} columns",
                                          line=start)
            continue
        bad = next((name for name, cell in zip(header, cells, strict=False) if _not_utf8(cell)), None)
        if bad is not None:
            yield start, ObservationError(where, "not valid UTF-8", line=start, field=bad)
            continue
        yield start, {name: cell for name, cell in zip(header, cells, strict=False) if cell != ""}


def _not_utf8(text: str) -> bool:
    return any("\udc80" <= ch <= "\udcff" for ch in text)


def row_to_observation(row: dict[str, Any], *, where: str, line: int, root: str | None) -> Observation:
    """One validated row. Raises ObservationError naming the field, or _Outside (with the field set)."""

    def get(name: str, parse: Callable[[Any], Any], required: bool = False) -> Any:
        value = row.get(name)
        if value is None:
            if required:
                raise ObservationError(where, f"missing (this row has: {', '.join(map(str, row)) or 'nothing'})",
                                       line=line, field=name)
            return None
        try:
            return parse(value)
        except ValueError as err:
            raise ObservationError(where, str(err), line=line, field=name) from None
        except _Outside as err:
            raise _Outside(name, str(err)) from None

    kind = get("op", parse_op, True)
    time_ms = get("time", parse_time, True)
    path = get("path", lambda v: parse_path(v, root), True)
    dest = get("dest", lambda v: parse_path(v, root), kind in ("move", "copy"))
    content = get("content", parse_text)
    size = get("size", parse_count)
    is_dir = get("is_dir", parse_bool)
    extra = {("log_line" if key == "line" else key): value for key, value in row.items() if key not in KNOWN_FIELDS}
    return Observation(
        kind, path, time_ms, dest=dest, is_dir=kind == "mkdir" if is_dir is None else is_dir, content=content,
        content_hash=None if content is None else hashlib.sha256(content.encode("utf-8")).hexdigest()[:16],
        size=len(content.encode("utf-8")) if size is None and content is not None else size,
        query=get("query", parse_text), search_type=get("search_type", parse_search_type),
        matched=get("matches", lambda v: parse_matches(v, root)) or (), files_listed=get("files_listed", parse_count),
        source="log", extra={"line": line, **extra})


# -- the importer ----------------------------------------------------------------------------------


@dataclass
class LogReport:
    path: str
    format: str
    rows: int = 0
    observations: int = 0
    problems: list[ObservationError] = field(default_factory=list)  # bad rows (errors="collect")
    skipped: Counter[str] = field(default_factory=Counter)  # e.g. "outside root" (outside="skip")

    def __str__(self) -> str:
        lines = [f"{self.format} event log {self.path}: {self.rows} rows -> {self.observations} observations"]
        if self.skipped:
            lines.append("  skipped: " + ", ".join(f"{why} {n}" for why, n in sorted(self.skipped.items())))
        if self.problems:
            lines.append(f"  {len(self.problems)} rows with problems:")
            lines += [f"    {problem}" for problem in self.problems[:20]]
            if len(self.problems) > 20:
                lines.append(f"    ... and {len(self.problems) - 20} more (report.problems has them all)")
        return "\n".join(lines)


@dataclass
class LogImport:
    observations: list[Observation]
    report: LogReport


def _format_of(path: Path, format: str) -> str:
    if format in ("jsonl", "csv"):
        return format
    if format != "auto":
        raise ValueError(f"format must be 'auto', 'jsonl' or 'csv', got {format!r}")
    if path.suffix.lower() not in _SUFFIXES:
        raise ObservationError(str(path), f"cannot tell the format from the suffix {path.suffix!r}; "
                                          "pass format='jsonl' or format='csv'")
    return _SUFFIXES[path.suffix.lower()]


def import_event_log(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
                     format: str = "auto", errors: str = "raise", outside: str = "error") -> LogImport:
    """Observations (source "log", extra["line"]) from a JSONL or CSV event log; see the module docstring."""
    if errors not in ("raise", "collect"):
        raise ValueError(f"errors must be 'raise' or 'collect', got {errors!r}")
    if outside not in ("error", "skip"):
        raise ValueError(f"outside must be 'error' or 'skip', got {outside!r}")
    path = Path(path)
    kind = _format_of(path, format)
    try:
        text = path.read_bytes().decode("utf-8-sig", errors="surrogateescape")
    except OSError as err:
        raise ObservationError(str(path), f"cannot read the event log ({err.strerror or err})") from None
    root_abs = None if root is None else posixpath.normpath(os.path.abspath(os.path.expanduser(os.fspath(root))))
    where, report, observations = str(path), LogReport(str(path), kind), []
    rows = _csv_rows(text, where) if kind == "csv" else _jsonl_rows(text, where)
    for line, row in rows:
        report.rows += 1
        try:
            if isinstance(row, ObservationError):
                raise row
            observations.append(row_to_observation(row, where=where, line=line, root=root_abs))
        except _Outside as signal:
            name, reason = signal.args
            if outside == "skip":
                report.skipped["outside root"] += 1
                continue
            problem = ObservationError(where, reason + " (outside='skip' skips such rows)", line=line, field=name)
            if errors == "raise":
                raise problem from None
            report.problems.append(problem)
        except ObservationError as problem:
            if errors == "raise":
                raise
            report.problems.append(problem)
    report.observations = len(observations)
    return LogImport(observations, report)
