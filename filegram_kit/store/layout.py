"""Where a corpus' store lives, what code made it, and which of its trajectories are current.

    <corpus>/store/STORE.json        format version and the digest of the code that decides the rows
                  /index.parquet     one row per trajectory (`convert.INDEX_SCHEMA`); `part` names its rows
                  /raw/<part>.parquet     every event's envelope columns
                  /events/<part>.parquet  the behavioural events after clean(), frames.SCHEMA + content +
                                          content_table_rows (the one count of a text the fingerprint reads)
                  /json/<part>.parquet    per trajectory its events as one JSON array (events.json's bytes)

A trajectory's rows are current while its files' stamps (size and mtime of events.json and
summary.json; media are content-addressed, a new text is a new file and reference) are those in the
index and the store was made by this code; anything else is read through the JSON path. Frames check
events.json alone (no frame column holds the summary). Readers trust only parts the index names.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import polars as pl

from .convert import INDEX_SCHEMA, STAMPED, stamp

FORMAT = 2  # 2: the events' JSON per trajectory (json/), no longer per event in raw/
STORE_DIR = "store"
TABLES = ("raw", "events", "json")  # `convert.Rows` order
# the code whose change changes the rows (not the import closure: it reaches the package __init__)
STORE_SOURCES = ("store/*.py", "traces/frames.py", "traces/cleaning.py", "traces/schema.py",
                 "traces/validation.py", "traces/media.py", "traces/folders.py")


class StoreError(RuntimeError):
    """The folder is not a corpus (no signal/ folder), its store cannot be written, or it contradicts itself."""


@cache
def store_code() -> str:
    """The digest of STORE_SOURCES and of the one pattern the stored table-row counts were made with."""
    import hashlib

    from ..traces.frames import TABLE_ROW
    from ..util.code_closure import PACKAGE, digest

    files = digest([p for pattern in STORE_SOURCES for p in PACKAGE.glob(pattern)])
    return hashlib.sha256(f"{files}\0{TABLE_ROW}".encode()).hexdigest()[:16]


def corpus_root(path: str | Path) -> Path | None:
    """The corpus folder of `path` (the corpus root or its signal/ folder), or None for anything else."""
    path = Path(path)
    if path.name == "signal" and path.is_dir():
        return path.parent
    return path if (path / "signal").is_dir() else None


def store_dir(corpus: str | Path) -> Path:
    return Path(corpus) / STORE_DIR


def manifest(root: Path) -> dict | None:
    try:
        return json.loads((root / "STORE.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def is_ours(root: Path) -> bool:
    """A store of this format, made by this code (else it is rebuilt, never read)."""
    found = manifest(root)
    return bool(found) and found.get("format") == FORMAT and found.get("code") == store_code()


def read_index(root: Path, columns: list[str] | None = None) -> pl.DataFrame:
    """The index (or these of its columns: the summaries are most of its bytes and only loads need them)."""
    path = root / "index.parquet"
    if not path.is_file():
        return pl.DataFrame(schema={c: t for c, t in INDEX_SCHEMA.items() if columns is None or c in columns})
    return pl.read_parquet(path, columns=columns)


def part_path(root: Path, table: str, part: str) -> Path:
    return root / table / f"{part}.parquet"


@contextmanager
def locked(root: Path) -> Iterator[None]:
    """One writer at a time: a second `update_store` on the same store waits for the first."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def scan_stamps(signal: Path, files: tuple[str, ...] = STAMPED) -> dict[str, str]:
    """Every trajectory folder under `signal` -> its stamp of `files` (the folders `traces.find_trajectory_dirs`
    finds: those holding an events.json file), one stat per file."""
    base = os.fspath(signal)
    try:
        names = sorted(os.listdir(base))
    except FileNotFoundError:
        return {}
    stamps = {name: stamp(f"{base}/{name}", files) for name in names}
    return {name: s for name, s in stamps.items() if s is not None}
