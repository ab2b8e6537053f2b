"""Read and write trajectories in the release's on-disk layout (spec 4.1), ours and the official ones.

    <root>/signal/{profile_id}_{task_id}/events.json     JSON array of events
                                        /summary.json    run summary
                                        /media/          blobs, diffs, manifest (see media.py)

`load_trajectories(path)` accepts the corpus root, its `signal/` folder or one trajectory folder.
Strict by default: the first malformed event raises `TraceError` naming file, event index and
field. With `quarantine=True` bad events (and unreadable files) are set aside, listed in the
result's `.quarantine`, and a warning says how many: nothing is dropped silently.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..util import atomic
from ..util.progress import progress_bar
from .cleaning import Cleaned, CleanReport, anonymise_path, clean  # noqa: F401  (public API)
from .folders import (  # noqa: F401  (public API: the folder readers live in folders.py)
    TrajectoryList,
    find_trajectory_dirs,
    load_dirs,
    parse_trajectory_id,
    read_trajectory,
    trajectory_identity,
)
from .frames import events_frame  # noqa: F401  (public API)
from .media import MediaStore
from .schema import MEDIA_REF_FIELDS, Trajectory
from .validation import Quarantined, TraceError

__all__ = ["Cleaned", "CleanReport", "Quarantined", "TraceError", "TrajectoryList", "anonymise_path", "clean",
           "events_frame", "find_trajectory_dirs", "load_trajectories", "parse_trajectory_id", "read_trajectory",
           "save_trajectories", "write_trajectory"]


def load_trajectories(path: str | Path, *, profiles: Iterable[str] | None = None, tasks: Iterable[str] | None = None,
                      quarantine: bool = False, check_media: bool = True, progress: bool | None = None,
                      store: bool = True) -> TrajectoryList:
    """Every trajectory under `path`, sorted by id (see module docstring for `quarantine`).

    `profiles` / `tasks` load only those personas / tasks, chosen by folder name before anything is read.
    A corpus with a columnar store (`filegram_kit.store`) is read from it wherever the store is current
    (same trajectories, ~10x faster); `store=False` reads every events.json.
    """
    from ..store.read import EventStore  # the fast path where a current store serves the same trajectories

    found = EventStore.open(path) if store else None
    served: list[Trajectory] = []
    if found is not None:
        ids, dirs = found.split(path, profiles, tasks)
        served = found.load(ids)
    else:
        dirs = find_trajectory_dirs(path, profiles, tasks)
    out = load_dirs(dirs, quarantine=quarantine, check_media=check_media, progress=progress, where=path)
    if served:
        merged = sorted([*served, *out], key=lambda t: t.id)
        out = TrajectoryList(merged, out.quarantine)
    return out


# ---------------------------------------------------------------------------------------------
# Writing


def _copy_media(traj: Trajectory, dest: MediaStore) -> None:
    refs = [(e.get(name), name) for e in traj.events for name in MEDIA_REF_FIELDS if e.get(name) is not None]
    if refs and traj.media is None:
        raise TraceError(traj.id, "events reference media but the trajectory has no media store")
    for ref, _ in refs:
        dest.import_ref(traj.media, ref)


def write_trajectory(traj: Trajectory, directory: str | Path) -> Path:
    """Write `traj` into `directory` (events.json, summary.json, the media it references).

    Built in a temporary sibling folder and swapped in, so readers never see a half-written trajectory.
    """
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    try:
        store = MediaStore(tmp / "media")
        _copy_media(traj, store)
        if store.entries:
            store.flush()
        if traj.summary:
            atomic.write_json(tmp / "summary.json", dict(traj.summary))
        atomic.write_json(tmp / "events.json", [e.to_dict() for e in traj.events])
        old = None
        if directory.exists():
            old = directory.with_name(f".{directory.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            directory.rename(old)
        tmp.rename(directory)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return directory


def save_trajectories(trajs: Iterable[Trajectory], root: str | Path, *, progress: bool | None = None) -> Path:
    """Write trajectories under `root/signal/<id>/`, the release layout; returns the signal folder."""
    signal = Path(root) / "signal"
    trajs = list(trajs)
    for traj in progress_bar(trajs, desc="writing trajectories", unit="traj",
                             disable=None if progress is None else not progress):
        write_trajectory(traj, signal / traj.id)
    return signal
