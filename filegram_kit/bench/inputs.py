"""An item's input trajectories as a memory may see them: cleaned, anonymous, interleaved if asked.

Trajectory ids and profile ids name the persona (`p3_efficient_executor_T-05`), and an impostor
question would be answered by reading them. So every input is re-labelled by its task id (or, for
items whose options name sessions, by the item's label for it: "Session 3"), its
profile id and summary.json are dropped, and events lose their envelope `profile_id`. Trace
Disentanglement items (`metadata["interleave"]`) get the two users' sessions as "Session 1" and
"Session 2", interleaved in time (both start together, as in the paper's interleaved streams): what
tells the users apart stays visible to a memory, which names each session by its label.
`interleave` (one merged stream without labels) is kept for readers of a single trace.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..traces.cleaning import clean
from ..traces.load import load_trajectories, parse_trajectory_id
from ..traces.schema import Trajectory
from .schema import Item
from .templates import option_label


class MergedMedia:
    """Reads a media reference from the first store that has it (content-addressed, so any is right)."""

    def __init__(self, stores: list[Any]):
        self.stores = [s for s in stores if s is not None]

    @property
    def entries(self) -> dict[str, dict[str, Any]]:
        return {k: v for store in reversed(self.stores) for k, v in store.entries.items()}

    def view(self, entries: dict[str, dict[str, Any]], transform: Any = None) -> MergedMedia:
        """The same stores seen through `MediaStore.view` (what clean() asks of a media store)."""
        return MergedMedia([s.view({k: entries.get(k, v) for k, v in s.entries.items()}, transform)
                            for s in self.stores])

    def exists(self, ref: Any) -> bool:
        return any(s.exists(ref) for s in self.stores)

    def read(self, ref: Any) -> str:
        for store in self.stores:
            if store.exists(ref):
                return store.read(ref)
        return self.stores[0].read(ref)  # raises the store's own "missing" error


class TrajectoryStore:
    """A corpus' trajectories, loaded and cleaned on first use and kept (one load per trajectory)."""

    def __init__(self, corpus: str | Path):
        self.corpus = Path(corpus)
        self._cache: dict[str, Trajectory] = {}
        self._anonymous: dict[str, Trajectory] = {}

    def anonymous(self, trajectory_id: str) -> Trajectory:
        """`anonymise(get(id))`, made once: the same object every time, so memories can cache by it."""
        if trajectory_id not in self._anonymous:
            self._anonymous[trajectory_id] = anonymise(self.get(trajectory_id))
        return self._anonymous[trajectory_id]

    def get(self, trajectory_id: str) -> Trajectory:
        if trajectory_id not in self._cache:
            self.preload([trajectory_id])  # through the corpus, so its store serves it
        if trajectory_id not in self._cache:  # not there: the folder's own load says why
            self._load_folder(trajectory_id)
        return self._cache[trajectory_id]

    def _load_folder(self, trajectory_id: str) -> None:
        found = load_trajectories(self.corpus / "signal" / trajectory_id, progress=False)
        self._cache[trajectory_id] = clean(found).trajectories[0]

    def preload(self, trajectory_ids: list[str] | None = None) -> None:
        """Load many at once (faster than one by one); all of the corpus when no ids are given."""
        wanted = None if trajectory_ids is None else sorted(set(trajectory_ids) - set(self._cache))
        if wanted == []:
            return
        parsed = {} if wanted is None else {t: parse_trajectory_id(t) for t in wanted}
        regular = {t: pt for t, pt in parsed.items() if pt[1] is not None}  # <profile>_<task>: select by name
        if wanted is None or regular:
            tasks = None if wanted is None else sorted({task for _, task in regular.values()})
            profiles = None if wanted is None else sorted({profile for profile, _ in regular.values()})
            for traj in clean(load_trajectories(self.corpus, profiles=profiles, tasks=tasks,
                                                progress=False)).trajectories:
                self._cache.setdefault(traj.id, traj)
        for trajectory_id in sorted(set(parsed) - set(regular)):  # other names (a recording): their own folder
            self._load_folder(trajectory_id)


def anonymise(traj: Trajectory, label: str | None = None) -> Trajectory:
    """The trajectory under a neutral id (its task id), without profile ids or summary.json; `label` is the name
    the item's options give it, which memories show (memory.serialize.session_labels: "Session 3 (T-11)")."""
    events = tuple(replace(e, profile_id=None) for e in traj.events)
    return replace(traj, id=label or traj.task_id or "session", profile_id=None, summary={}, events=events,
                   label=label)


def interleave(first: Trajectory, second: Trajectory) -> Trajectory:
    """One stream of both sessions' events, ordered by time since each session's start (ties: first's)."""
    def relative(traj: Trajectory) -> list[tuple[float, int, Any]]:
        start = min((e.timestamp for e in traj.events), default=0.0)
        return [(e.timestamp - start, i, e) for i, e in enumerate(traj.events)]

    base = min((e.timestamp for e in first.events), default=0.0)
    merged = sorted([(t, 0, i, e) for t, i, e in relative(first)] + [(t, 1, i, e) for t, i, e in relative(second)],
                    key=lambda x: (x[0], x[1], x[2]))
    events = tuple(replace(e, timestamp=base + t, profile_id=None) for t, _, _, e in merged)
    return Trajectory(first.task_id or "session", events, None, first.task_id, {},
                      MergedMedia([first.media, second.media]))


def side_by_side(first: Trajectory, second: Trajectory) -> list[Trajectory]:
    """Two users' sessions as "Session 1" and "Session 2", the second's times moved to start with the first's."""
    start = min((e.timestamp for e in first.events), default=0.0)
    other = min((e.timestamp for e in second.events), default=0.0)
    moved = replace(second, events=tuple(replace(e, timestamp=e.timestamp - other + start) for e in second.events))
    return [anonymise(first, option_label(1)), anonymise(moved, option_label(2))]


def materialise(item: Item, store: TrajectoryStore) -> list[Trajectory]:
    """The trajectories a memory ingests for this item, anonymised (see the module docstring)."""
    pair = item.metadata.get("interleave")
    if pair:
        return side_by_side(store.get(pair[0]), store.get(pair[1]))
    labels = item.metadata.get("labels")
    if labels:  # the options name sessions by these labels ("Session 3"), so the memory must see them
        return [anonymise(store.get(tid), labels[tid]) for tid in item.input_trajectories]
    return [store.anonymous(tid) for tid in item.input_trajectories]
