"""Trajectory folders in the release layout (`<id>/events.json`, `summary.json`, `media/`): finding them under a
corpus, reading one with validation and quarantine, and reading a list of them. This is the JSON path every
reader shares: `load_trajectories` (load.py) and the columnar store (store/), which never import each other's
internals.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

from ..util.progress import progress_bar
from .media import MediaError, MediaStore
from .schema import MEDIA_REF_FIELDS, Event, Trajectory
from .tasks import normalize_task_id
from .validation import Quarantined, TraceError, parse_event

_ID_RE = re.compile(r"^(?P<profile>.+?)_(?P<task>[Tt]-?\d{1,3})$")



class TrajectoryList(list):
    """A list of trajectories that also carries what loading set aside (`quarantine`)."""

    def __init__(self, items: Iterable[Trajectory] = (), quarantine: Iterable[Quarantined] = ()):
        super().__init__(items)
        self.quarantine: list[Quarantined] = list(quarantine)

    def by_id(self) -> dict[str, Trajectory]:
        return {t.id: t for t in self}


def parse_trajectory_id(name: str) -> tuple[str | None, str | None]:
    """'p1_methodical_T-05' -> ('p1_methodical', 'T-05'); names without a task suffix -> (None, None)."""
    match = _ID_RE.match(name)
    if not match:
        return None, None
    return match["profile"], normalize_task_id(match["task"])


def find_trajectory_dirs(path: str | Path, profiles: Iterable[str] | None = None,
                         tasks: Iterable[str] | None = None) -> list[Path]:
    """Trajectory folders under `path` (the corpus root, its signal/ folder, or one trajectory), sorted; with
    `profiles` / `tasks`, only those chosen by folder name, and only those are looked at (one persona of a
    32,000-folder corpus costs a listing, not 32,000 stats)."""
    path = Path(path)
    if not path.exists():
        raise TraceError(path, "no such file or directory")
    if (path / "events.json").is_file():
        return _selected([path], profiles, tasks)
    base = path / "signal" if (path / "signal").is_dir() else path
    names = sorted(os.listdir(base))
    chosen = names if profiles is None and tasks is None else list(filter(_wanted(profiles, tasks), names))
    found = [base / n for n in chosen if os.path.isfile(f"{base}/{n}/events.json")]
    if not found and not any(os.path.isfile(f"{base}/{n}/events.json") for n in names):
        raise TraceError(path, "no trajectories found (expected events.json, signal/<id>/events.json "
                               "or <id>/events.json)")
    return found


def read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TraceError(path, f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise TraceError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _check_media(event: Event, index: int, file: Path, media: MediaStore) -> None:
    for name in MEDIA_REF_FIELDS:
        ref = event.get(name)
        if ref is None:
            continue
        try:
            found = media.exists(ref)
        except MediaError as exc:
            raise TraceError(file, str(exc), event_index=index, field=name) from None
        if not found:
            raise TraceError(file, f"referenced {media.relative_path(ref)} is missing from {media.root}",
                             event_index=index, field=name)


def read_trajectory_dir(directory: Path, quarantine: bool, check_media: bool) -> tuple[Trajectory, list[Quarantined]]:
    events_file = directory / "events.json"
    raw = read_json(events_file)
    if not isinstance(raw, list):
        raise TraceError(events_file, f"expected a JSON array of events, got {type(raw).__name__}")
    summary_file = directory / "summary.json"
    summary = read_json(summary_file) if summary_file.is_file() else {}
    if not isinstance(summary, dict):
        raise TraceError(summary_file, f"expected a JSON object, got {type(summary).__name__}")
    media = MediaStore(directory / "media", read_only=True)
    events, dropped = [], []
    for i, item in enumerate(raw):
        try:
            event = parse_event(item, i, events_file)
            if check_media:
                _check_media(event, i, events_file, media)
        except (TraceError, MediaError) as err:
            if not quarantine:
                raise
            err = err if isinstance(err, TraceError) else TraceError(events_file, str(err), event_index=i)
            dropped.append(Quarantined.from_error(err, item.get("event_type") if isinstance(item, dict) else None))
            continue
        events.append(event)
    profile_id, task_id = trajectory_identity(directory.name, summary, (e.profile_id for e in events))
    return Trajectory(directory.name, tuple(events), profile_id, task_id, summary, media, directory), dropped


def trajectory_identity(name: str, summary: dict, event_profiles: Iterable[str | None]) -> tuple[str | None,
                                                                                              str | None]:
    """(profile id, task id) of a trajectory folder: from its name, else its summary.json and events."""
    profile_id, task_id = parse_trajectory_id(name)
    if profile_id is None:
        profile_id = summary.get("profile_id") or next((p for p in event_profiles if p), None)
        task_id = summary.get("task_id")
    return profile_id, task_id


def read_trajectory(directory: str | Path, *, check_media: bool = True) -> Trajectory:
    """One trajectory folder, strictly validated."""
    return read_trajectory_dir(Path(directory), quarantine=False, check_media=check_media)[0]


def _wanted(profiles: Iterable[str] | None, tasks: Iterable[str] | None) -> Callable[[str], bool]:
    """Whether a trajectory folder's name is one of these personas' / tasks' (None: any)."""
    wanted_profiles = None if profiles is None else set(profiles)
    wanted_tasks = None if tasks is None else {normalize_task_id(t) for t in tasks}
    prefixes = None if wanted_profiles is None else tuple(f"{p}_" for p in wanted_profiles)  # a cheap first cut

    def keep(name: str) -> bool:
        if prefixes is not None and not name.startswith(prefixes):
            return False
        profile_id, task_id = parse_trajectory_id(name)
        return ((wanted_profiles is None or profile_id in wanted_profiles)
                and (wanted_tasks is None or task_id in wanted_tasks))

    return keep


def _selected(dirs: list[Path], profiles: Iterable[str] | None, tasks: Iterable[str] | None) -> list[Path]:
    keep = _wanted(profiles, tasks)
    return [directory for directory in dirs if keep(directory.name)]


def load_dirs(dirs: list[Path], *, quarantine: bool = False, check_media: bool = True, progress: bool | None = None,
              where: str | Path = "") -> TrajectoryList:
    """These trajectory folders through the JSON path, in order (`load_trajectories` without a store)."""
    out = TrajectoryList()
    for directory in progress_bar(dirs, desc="loading trajectories", unit="traj",
                                  disable=None if progress is None else not progress):
        try:
            traj, dropped = read_trajectory_dir(directory, quarantine, check_media)
        except TraceError as err:
            if not quarantine:
                raise
            out.quarantine.append(Quarantined.from_error(err))
            continue
        out.append(traj)
        out.quarantine.extend(dropped)
    if out.quarantine:
        files = len({q.file for q in out.quarantine})
        warnings.warn(f"quarantined {len(out.quarantine)} invalid events/files in {files} file(s) under {where}; "
                      "see .quarantine for each reason", stacklevel=3)
    return out
