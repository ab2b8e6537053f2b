"""Atomic file writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _file_mode() -> int:
    """The mode a plain `open(..., "w")` would give (mkstemp's 0600 would hide results from other users)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _file_mode()


def write_bytes(path: str | Path, data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, _MODE)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | Path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


def append_text(path: str | Path, text: str) -> Path:
    """The file's current text (none if it does not exist) followed by `text`, written atomically."""
    path = Path(path)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    return write_text(path, old + text)


def write_json(path: str | Path, obj: Any, *, indent: int | None = 2) -> Path:
    """JSON as the release writes it: UTF-8, non-ASCII kept, trailing newline."""
    return write_text(path, json.dumps(obj, indent=indent, ensure_ascii=False) + "\n")
