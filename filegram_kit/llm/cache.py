"""A content-addressed cache of LLM and embedding results: rerunning an experiment costs zero calls.

    key = cache_key(backend=..., model=..., task=..., prompt_version=..., inputs=..., params=...)
    value, hit = default_cache().get_or_compute(key, lambda: call_the_model(), meta={"task": ..., ...})

The key is the sha256 of a canonical JSON of exactly what changes the output, so the same call
gives the same key on every machine. Each entry is one JSON file, `root/<key[:2]>/<key>.json`
holding `{"key", "value", "meta", "created_at"}`, written atomically. Modes:

    use      read hits, compute and store misses (the default)
    replay   read hits, a miss raises CacheMiss (CI, `make reproduce`: no call may slip through)
    refresh  always compute, overwrite the entry
    off      never read or write

Errors (compute raised) and refusals (a result with `cacheable = False`) are never stored. Each entry
carries the sha256 of its value's canonical JSON: a corrupt entry (truncated, not JSON, or a value that
no longer matches its checksum) is reported with a warning and recomputed, never a crash and never
served; `verify()` (and `filegram cache verify`) lists it. Two processes missing the same key take turns
(a lock per key while it is computed): the second finds the first one's entry instead of calling again.
Entries written before checksums existed are read as they are.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..util.atomic import write_json
from ..util.locks import exclusive
from ..util.paths import ENV_DIR, cache_dir  # noqa: F401 (cache_dir: public here too)

MODES = ("use", "replay", "refresh", "off")
ENV_MODE = "FILEGRAM_CACHE_MODE"
_KEY = re.compile(r"[0-9a-f]{64}")


# --- keys ------------------------------------------------------------------------------------------------------------


def _jsonable(obj: Any, where: str) -> Any:
    """Plain JSON types (numpy arrays/scalars and tuples become lists/numbers); TypeError says what and where."""
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if isinstance(obj, np.ndarray | np.generic):
        return obj.tolist()
    if isinstance(obj, list | tuple):
        return [_jsonable(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, Mapping):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: dict key {k!r} is {type(k).__name__}; keys must be str to be hashed "
                                "or stored as JSON")
            out[k] = _jsonable(v, f"{where}[{k!r}]")
        return out
    raise TypeError(f"{where}: {type(obj).__module__}.{type(obj).__qualname__} is not JSON-serialisable; "
                    "convert it to dict/list/str/number first")


def canonical_json(obj: Any, *, where: str = "value") -> str:
    """One byte string per value: sorted keys, UTF-8 kept, no spaces, floats as Python's shortest round-trip repr."""
    return json.dumps(_jsonable(obj, where), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(*, backend: str, model: str, task: str, prompt_version: int | str, inputs: Any,
              params: Mapping) -> str:
    """sha256 hex of exactly what decides a response; any change in any part gives another key."""
    parts = {"backend": backend, "model": model, "task": task, "prompt_version": prompt_version,
             "inputs": inputs, "params": params}
    return hashlib.sha256(canonical_json(parts, where="cache key").encode("utf-8")).hexdigest()


# --- errors and entries ----------------------------------------------------------------------------------------------


class CacheMiss(LookupError):
    """Replay mode met a call that was never cached: the run would otherwise reach a model."""

    def __init__(self, key: str, meta: Mapping | None = None, root: Path | None = None, reason: str = ""):
        meta = meta or {}
        what = ", ".join(f"{part} {meta.get(part, '?')!s}" for part in ("task", "backend", "model"))
        where = f" in {root}" if root is not None else ""
        extra = f" ({reason})" if reason else ""
        super().__init__(f"no cached response for {what}, key {key[:12]}...{where}{extra}; replay mode never calls "
                         f"a model: run once with cache mode 'use' ({ENV_MODE}=use) to fill the cache")
        self.key, self.meta = key, dict(meta)


class Entry(NamedTuple):
    key: str
    meta: dict
    created_at: datetime | None
    size: int


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _parse_time(text: Any) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _read(path: Path) -> tuple[dict | None, str]:
    """The entry stored at `path`, or None and why it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, "missing"
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"unreadable: {exc}"
    try:
        entry = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc}"
    if not isinstance(entry, dict) or "key" not in entry or "value" not in entry:
        return None, "not a cache entry (needs an object with 'key' and 'value')"
    if entry["key"] != path.stem:
        return None, f"stored key {str(entry['key'])[:12]}... does not match the file name"
    if "sha256" in entry and entry["sha256"] != _checksum(entry["value"]):
        return None, "checksum mismatch: the stored value was altered"
    return entry, ""


def _checksum(value: Any) -> str | None:
    try:
        return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
    except (TypeError, ValueError):
        return None


# --- the cache -------------------------------------------------------------------------------------------------------


class ResponseCache:
    """Entries under `root`, one JSON file each; counters for hits, misses, stores and errors."""

    def __init__(self, root: str | Path, mode: str = "use"):
        if mode not in MODES:
            raise ValueError(f"cache mode {mode!r} is not one of {', '.join(MODES)}")
        self.root, self.mode = Path(root), mode
        self.hits = self.misses = self.stores = self.errors = self.corrupt = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.root)!r}, mode={self.mode!r})"

    def path(self, key: str) -> Path:
        """Where `key` is stored (a key is 64 lowercase hex digits, so it cannot escape the root)."""
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise ValueError(f"cache key must be 64 lowercase hex digits (cache_key(...)), got {key!r}")
        return self.root / key[:2] / f"{key}.json"

    def _count(self, counter: str) -> None:
        with self._lock:
            setattr(self, counter, getattr(self, counter) + 1)

    def _lookup(self, path: Path) -> tuple[dict | None, str]:
        entry, reason = _read(path)
        if entry is None and reason != "missing":
            self._count("corrupt")
        return entry, reason

    def get_or_compute(self, key: str, compute: Callable[[], Any], *,
                       meta: Mapping | None = None) -> tuple[Any, bool]:
        """(value, was_hit). A miss returns the value as JSON stores it, so hit and miss give equal values."""
        path = self.path(key)
        if self.mode in ("use", "replay"):
            entry, reason = self._lookup(path)
            if entry is not None:
                self._count("hits")
                return entry["value"], True
            if reason != "missing":
                warnings.warn(f"{path}: corrupt cache entry ({reason}); "
                              + ("replay mode cannot recompute it" if self.mode == "replay" else "recomputing"),
                              stacklevel=2)
            if self.mode == "replay":
                self._count("misses")
                raise CacheMiss(key, meta, self.root, "" if reason == "missing" else reason)
        if self.mode != "use":
            return self._compute(key, path, compute, meta)
        with _turn(path):  # another process computing this key: wait, then take its entry
            entry, _ = _read(path)
            if entry is not None:
                self._count("hits")
                return entry["value"], True
            return self._compute(key, path, compute, meta)

    def _compute(self, key: str, path: Path, compute: Callable[[], Any], meta: Mapping | None) -> tuple[Any, bool]:
        self._count("misses")
        try:
            value = compute()
        except Exception:
            self._count("errors")
            raise
        if not getattr(value, "cacheable", True):
            return value, False  # a refusal or partial answer: returned, never stored
        value = _jsonable(value, f"value of {key[:12]}...")
        if self.mode != "off":
            record = {"key": key, "value": value, "sha256": _checksum(value),
                      "meta": _jsonable(dict(meta or {}), "meta"), "created_at": _now()}
            write_json(path, record)
            self._count("stores")
        return value, False

    def _files(self) -> list[Path]:
        return sorted(self.root.glob("??/*.json")) if self.root.is_dir() else []

    def entries(self) -> Iterator[Entry]:
        """Every readable entry (corrupt ones are left to `verify`)."""
        for path in self._files():
            entry, _ = _read(path)
            if entry is not None:
                meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
                yield Entry(entry["key"], meta, _parse_time(entry.get("created_at")), _size(path))

    def verify(self) -> list[tuple[Path, str]]:
        """Entries a run cannot use: unreadable, not JSON, not an entry, or filed under another key."""
        broken = []
        for path in self._files():
            entry, reason = _read(path)
            if entry is None and reason != "missing":
                broken.append((path, reason))
            elif entry is not None and path.parent.name != path.stem[:2]:
                broken.append((path, f"filed under {path.parent.name}/, expected {path.stem[:2]}/"))
        return broken

    def prune(self, *, older_than_days: float | None = None, keep: Iterable[str] | None = None,
              dry_run: bool = False) -> list[Path]:
        """Remove entries meeting every bound given: older than `older_than_days`, and/or not in `keep`."""
        if older_than_days is None and keep is None:
            raise ValueError("prune needs older_than_days, keep, or both (refusing to empty the whole cache)")
        kept = None if keep is None else set(keep)
        cutoff = None if older_than_days is None else time.time() - older_than_days * 86400
        doomed = [p for p in self._files()
                  if (kept is None or p.stem not in kept) and (cutoff is None or _created(p) < cutoff)]
        if not dry_run:
            for path in doomed:
                path.unlink(missing_ok=True)
                _rmdir_if_empty(path.parent)
        return doomed

    def stats(self) -> dict[str, int]:
        """This instance's counters, plus what is on disk now."""
        files = self._files()
        with self._lock:
            counters = {"hits": self.hits, "misses": self.misses, "stores": self.stores, "errors": self.errors,
                        "corrupt": self.corrupt}
        return {**counters, "entries": len(files), "bytes": sum(_size(p) for p in files)}


@contextmanager
def _turn(path: Path) -> Iterator[None]:
    """The lock of one entry while it is computed (`locks.exclusive` on <key>.lock, removed after: a process
    that opened it just before is let in on the removed file and finds the stored entry)."""
    lock = path.with_suffix(".lock")
    with exclusive(lock):
        try:
            yield
        finally:
            lock.unlink(missing_ok=True)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _created(path: Path) -> float:
    """When an entry was written: its `created_at`, else (corrupt entry) the file's mtime."""
    entry, _ = _read(path)
    stamp = _parse_time(entry.get("created_at")) if entry is not None else None
    if stamp is not None:
        return stamp.timestamp()
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()


def _rmdir_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass  # not empty (or already gone)


# --- defaults --------------------------------------------------------------------------------------------------------


def default_cache(mode: str | None = None) -> ResponseCache:
    """The project's cache, in `mode`, else $FILEGRAM_CACHE_MODE, else `use`."""
    mode = mode or os.environ.get(ENV_MODE) or "use"
    if mode not in MODES:
        raise ValueError(f"cache mode {mode!r} (from {ENV_MODE} or the caller) is not one of {', '.join(MODES)}")
    return ResponseCache(cache_dir(), mode)
