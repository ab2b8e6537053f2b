"""Deterministic task sandboxes of real, openable files (paper Table 10's input composition).

    plan_workspace(task, seed=0)            -> [InputFile]  what the workspace holds (path, title, text, ...)
    build_workspace(task, root, seed=0)     -> [Path]       write it under an empty or new root
    ensure_template(task, cache_dir, seed=0) -> Path        build once into cache_dir/<seed>/<task>/, then reuse

Every task gets exactly its Table 10 composition, themed to its prompt (analyst notes for T-01,
legal materials for T-02/T-17/T-25, landmarks for T-23, Shadow the cat for T-28, Singapore
company profiles for T-29, ...), drawn with `numpy.random.default_rng` from (seed, task id).
Same (task, seed) gives the same bytes: see `workspace.formats` for how each encoder is pinned.
Encoders: fpdf2 (PDF), python-docx / openpyxl / python-pptx (Office), Pillow (PNG/JPEG/GIF) and
PyAV's bundled FFmpeg for MP3 (libmp3lame) and MP4/MKV (MPEG-4 part 2); all install as PyPI wheels.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path, PurePosixPath

import numpy as np

from ..traces.schema import Task
from ..util.seeds import stable_seed
from .content import Composer, InputFile
from .formats import render
from .layouts import layout_for, plan_files
from .themes import THEMES

__all__ = ["InputFile", "plan_workspace", "build_workspace", "ensure_template", "GENERATOR_VERSION"]

GENERATOR_VERSION = 1  # bump when planned content or encoding changes, so cached templates are rebuilt
MARKER_SUFFIX = ".complete.json"
_ENCODER_PACKAGES = ("numpy", "pillow", "av", "fpdf2", "python-docx", "openpyxl", "python-pptx")
_MTIME_BASE = dt.datetime(2024, 6, 1, tzinfo=dt.UTC).timestamp()


def plan_workspace(task: Task, *, seed: int = 0) -> list[InputFile]:
    """The files of a task's workspace, sorted by path; [] for tasks with an empty workspace."""
    composition = {ext: n for ext, n in task.input_files.items() if n}
    if not composition:
        return []
    layout = layout_for(task.id)
    rng = np.random.default_rng([int(seed), zlib.crc32(task.id.encode("utf-8"))])
    files = plan_files(task.id, composition, Composer(THEMES[layout.theme], rng), layout)
    for f in files:
        pure = PurePosixPath(f.path)
        if pure.is_absolute() or ".." in pure.parts or not pure.name:
            raise ValueError(f"{task.id}: planned path {f.path!r} is not a plain relative path")
    return sorted(files, key=lambda f: f.path)


def build_workspace(task: Task, root: str | Path, *, seed: int = 0) -> list[Path]:
    """Write the planned files under root (created; must be new or empty) and return their paths."""
    root = Path(root)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise FileExistsError(f"workspace root {root} exists and is not an empty directory; refusing to write into it")
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for f in plan_workspace(task, seed=seed):
        dest = root.joinpath(*PurePosixPath(f.path).parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(render(f))
        stamp = _mtime(f)
        os.utime(dest, (stamp, stamp))
        written.append(dest)
    return written


def _mtime(f: InputFile) -> float:
    """A fixed, plausible modification time: days before June 2024, expired temporaries two years older."""
    days = stable_seed(f.path, bits=16) % 180
    return _MTIME_BASE - 86_400 * (days + (730 if "expired" in f.flags else 0))


def ensure_template(task: Task, cache_dir: str | Path, *, seed: int = 0) -> Path:
    """cache_dir/<seed>/<task id>/, built once (atomically, under a lock) and reused while its marker is valid.

    The marker `<task id>.complete.json` sits beside the workspace (never inside it, so agents do not
    see it) and records the generator version, encoder library versions and the file list. A directory
    without a valid marker is a half-built leftover and is rebuilt.
    """
    parent = Path(cache_dir) / str(int(seed))
    target, marker = parent / task.id, parent / f"{task.id}{MARKER_SUFFIX}"
    if _is_complete(target, marker, task, seed):
        return target
    parent.mkdir(parents=True, exist_ok=True)
    with _locked(parent / f".{task.id}.lock"):
        if _is_complete(target, marker, task, seed):  # another process finished while we waited
            return target
        tmp = Path(tempfile.mkdtemp(prefix=f".{task.id}.build-", dir=parent))
        try:
            files = build_workspace(task, tmp / "ws", seed=seed)
            listing = [{"path": p.relative_to(tmp / "ws").as_posix(), "size": p.stat().st_size} for p in files]
            marker.unlink(missing_ok=True)
            if target.exists():
                stale = parent / f".{task.id}.stale-{os.getpid()}"
                os.replace(target, stale)
                shutil.rmtree(stale, ignore_errors=True)
            os.replace(tmp / "ws", target)
            _write_marker(marker, {**_marker_header(task, seed), "files": listing})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


@functools.cache
def _library_versions() -> tuple[tuple[str, str | None], ...]:
    """Encoder versions: a template built with other encoders may differ in bytes, so it is rebuilt."""
    out = []
    for name in _ENCODER_PACKAGES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, None))
    return tuple(out)


def _marker_header(task: Task, seed: int) -> dict:
    return {"generator_version": GENERATOR_VERSION, "task": task.id, "seed": int(seed),
            "libraries": dict(_library_versions())}


def _is_complete(target: Path, marker: Path, task: Task, seed: int) -> bool:
    try:
        info = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not target.is_dir() or {k: info.get(k) for k in _marker_header(task, seed)} != _marker_header(task, seed):
        return False
    try:
        return all((target / f["path"]).stat().st_size == f["size"] for f in info["files"])
    except (OSError, KeyError, TypeError):
        return False


def _write_marker(marker: Path, info: dict) -> None:
    tmp = marker.with_name(f".{marker.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, marker)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock (POSIX flock); elsewhere the atomic rename alone keeps builds whole."""
    with open(path, "a+b") as fh:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - non-POSIX
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
