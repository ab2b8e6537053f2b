"""What a source saw, before it becomes a typed event: the one contract between recorders and importers.

A file-system monitor, a shell history and a generic event log all report low-level facts ("this
path now holds these bytes", "this path moved there"). Each becomes an `Observation`; `translate`
turns a stream of them into the release's typed events with the spec 4.3 rules (create vs overwrite
vs edit, move vs rename, copies by content hash, file age, cross-file references, context switches).

Paths are POSIX paths relative to the recorded root ("" or "." is the root itself). Times are epoch
milliseconds as the source reported them; sources may deliver them out of order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import polars as pl

# kind -> what it means; translate() maps each to zero or more typed events
OBSERVATION_KINDS: dict[str, str] = {
    "baseline": "a file that existed when recording started (content seeds later diffs; no event)",
    "write": "a file now holds new content (created or modified)",
    "read": "a file was opened and closed without writing",
    "browse": "a directory was listed",
    "search": "files were searched (grep/find/glob)",
    "mkdir": "a directory was created",
    "move": "a file or directory moved from path to dest",
    "copy": "a file was copied from path to dest (explicit, e.g. a `cp` command)",
    "delete": "a file or directory was removed",
}


class ObservationError(ValueError):
    """An observation that cannot be used; names where it came from (file, line) and the field."""

    def __init__(self, where: str, reason: str, *, line: int | None = None, field: str | None = None):
        self.where, self.line, self.field, self.reason = where, line, field, reason
        parts = [where]
        if line is not None:
            parts.append(f"line {line}")
        if field is not None:
            parts.append(f"field '{field}'")
        super().__init__(": ".join([*parts, reason]))


_TYPES: dict[str, tuple[type, ...]] = {
    "path": (str,), "time_ms": (int, float), "dest": (str, type(None)), "is_dir": (bool,),
    "content": (str, type(None)), "content_hash": (str, type(None)), "size": (int, type(None)),
    "query": (str, type(None)), "search_type": (str, type(None)), "matched": (tuple,),
    "files_listed": (int, type(None)), "sibling_count": (int, type(None)), "source": (str,), "extra": (dict,)}
_TYPE_NAMES = {name: " or ".join("null" if k is type(None) else {"str": "a string", "int": "an integer",
                                                                  "float": "a number", "bool": "true or false",
                                                                  "tuple": "a list", "dict": "an object"}[k.__name__]
                                for k in kinds) for name, kinds in _TYPES.items()}


@dataclass(frozen=True)
class Observation:
    """One low-level fact. Only `kind`, `path` and `time_ms` are always set."""

    kind: str
    path: str
    time_ms: float
    dest: str | None = None  # move / copy target
    is_dir: bool = False
    content: str | None = None  # text after a write/baseline; None: binary, too large, metadata-only or unknown
    content_hash: str | None = None  # sha256[:16] of the bytes on disk (also for binary files): copy detection
    size: int | None = None  # bytes on disk after a write/baseline (or a read's length)
    query: str | None = None  # search query
    search_type: str | None = None  # "grep" | "glob" | "codesearch"
    matched: tuple[str, ...] = ()  # search hits (relative paths)
    files_listed: int | None = None  # browse: entries listed
    sibling_count: int | None = None  # mkdir: sibling directories at that moment (None: derive from the stream)
    source: str = "watchdog"  # "watchdog" | "bash" | "zsh" | "log" | ...
    extra: dict[str, Any] = field(default_factory=dict)  # source-specific details kept for provenance;
    # extra["time_synthesised"] = True: the source had no time (e.g. plain bash history), so no rule that
    # depends on intervals (cross-file references within 30 s) applies to it

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or self.kind not in OBSERVATION_KINDS:
            raise ObservationError("observation", f"unknown kind {self.kind!r} (expected one of "
                                                  f"{', '.join(OBSERVATION_KINDS)})", field="kind")
        for name, kinds in _TYPES.items():  # the translator relies on these types (a journal may hold anything)
            value = getattr(self, name)
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                raise ObservationError("observation", f"expected {_TYPE_NAMES[name]}, got {value!r}", field=name)
        if not math.isfinite(self.time_ms):
            raise ObservationError("observation", f"expected a finite time, got {self.time_ms!r}", field="time_ms")
        if any(not isinstance(hit, str) for hit in self.matched):
            raise ObservationError("observation", f"expected paths, got {self.matched!r}", field="matched")
        if self.kind in ("move", "copy") and not self.dest:
            raise ObservationError("observation", f"a {self.kind} needs a dest", field="dest")
        for name in ("path", "dest"):
            value = getattr(self, name)
            if value is not None and (value.startswith("/") or ".." in value.split("/")):
                raise ObservationError("observation", f"paths are relative to the recorded root and stay inside "
                                                      f"it, got {value!r}", field=name)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, without empty optional fields (journal lines stay short)."""
        empty = lambda v: v is None or v is False or (isinstance(v, tuple | dict) and not v)  # noqa: E731 (0 stays)
        out = {k: v for k, v in asdict(self).items() if not empty(v) or k == "path"}
        if self.matched:
            out["matched"] = list(self.matched)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "observation", line: int | None = None) -> Observation:
        if not isinstance(data, dict):
            raise ObservationError(where, f"expected an object, got {type(data).__name__}", line=line)
        for name in ("kind", "path", "time_ms"):
            if name not in data:
                raise ObservationError(where, "missing", line=line, field=name)
        if not isinstance(data["time_ms"], int | float) or isinstance(data["time_ms"], bool):
            raise ObservationError(where, f"expected a number, got {data['time_ms']!r}", line=line, field="time_ms")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "matched" in known:
            if not isinstance(known["matched"], list):
                raise ObservationError(where, f"expected a list of paths, got {known['matched']!r}", line=line,
                                       field="matched")
            known["matched"] = tuple(known["matched"])
        try:
            return cls(**known)
        except ObservationError as err:
            raise ObservationError(where, err.reason, line=line, field=err.field) from None
        except TypeError as err:
            raise ObservationError(where, str(err), line=line) from None


OBSERVATION_COLUMNS = {"time_ms": pl.Float64, "kind": pl.String, "path": pl.String, "dest": pl.String,
                       "size": pl.Int64, "has_content": pl.Boolean, "source": pl.String}


def observations_frame(observations: Iterable[Observation]) -> pl.DataFrame:
    """One row per observation (content itself left out: a notebook table stays readable)."""
    rows = [{"time_ms": o.time_ms, "kind": o.kind, "path": o.path, "dest": o.dest, "size": o.size,
             "has_content": o.content is not None, "source": o.source} for o in observations]
    return pl.DataFrame(rows, schema=OBSERVATION_COLUMNS)
