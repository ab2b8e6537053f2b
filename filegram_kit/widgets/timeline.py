"""TimelineBrowser: a trajectory's events along time, coloured by category, with a detail pane.

    from filegram_kit.widgets import TimelineBrowser
    TimelineBrowser(trajs)                          # JupyterLab: the widget itself is the cell's output
    mo.ui.anywidget(TimelineBrowser(trajs))         # marimo

What the browser shows is computed here, in Python, by pure functions that tests check:
`timeline_events(traj)` (one dict per event: index, type, category, seconds since the first event, path)
and `event_detail(traj, index)` (the event's fields, its sizes and the text of its content delta).
The widget syncs them as traitlets and the plain-DOM/SVG code in `timeline.js` only draws them.
Raw trajectories (with simulation metadata) and cleaned ones both work; paths are shown without the
sandbox prefix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anywidget
import polars as pl
import traitlets

from ..traces.cleaning import anonymise_path
from ..traces.frames import events_frame
from ..traces.media import MediaError
from ..traces.schema import EVENT_CATEGORY, EVENT_TYPES, MEDIA_REF_FIELDS, Trajectory
from .jupyter_kernel import restore_jupyter_kernel

# one colour per event category (the palette of the plotly timeline, report.figures.CATEGORY_COLORS)
CATEGORY_COLORS = {"read": "#3b6ea8", "write": "#c0504d", "organize": "#8a9a3b", "flow": "#d99a2b",
                   "metadata": "#9a9a9a", "unknown": "#5f5f5f"}
SIZE_FIELDS = ("content_length", "lines_added", "lines_deleted", "lines_modified", "files_listed", "files_matched",
               "sibling_count", "total_files")
PREVIEW_CHARS = 4000
_STATIC = Path(__file__).parent


def _as_list(trajectories: Trajectory | Iterable[Trajectory]) -> list[Trajectory]:
    trajs = [trajectories] if isinstance(trajectories, Trajectory) else list(trajectories)
    if not trajs:
        raise ValueError("TimelineBrowser: no trajectories given")
    seen: set[str] = set()
    for traj in trajs:
        if traj.id in seen:
            raise ValueError(f"TimelineBrowser: trajectory id {traj.id!r} is given twice")
        seen.add(traj.id)
    return trajs


def trajectory_choices(trajectories: Trajectory | Iterable[Trajectory]) -> list[dict[str, Any]]:
    """The selector's options, in the order given: id, label, and how many events (all / behavioral)."""
    return [{"id": t.id, "label": f"{t.id} ({sum(e.is_behavioral for e in t.events)} actions, {len(t)} events)",
             "events": len(t), "actions": sum(e.is_behavioral for e in t.events)} for t in _as_list(trajectories)]


def timeline_events(traj: Trajectory, *, metadata: bool = False) -> list[dict[str, Any]]:
    """One dict per event in recorded order: index (in `traj.events`), type, category, seconds since the
    trajectory's first event, and the main path (file, folder, destination or search query).
    Simulation-metadata events only with `metadata=True`."""
    frame = events_frame(traj)
    if frame.is_empty():
        return []
    start = frame["timestamp"].min()
    path = pl.coalesce("file_path", "dir_path", "target_file", "query", pl.lit(""))
    shown = frame if metadata else frame.filter(pl.col("category") != "metadata")
    rows = shown.select(index="event_index", type="event_type", category="category",
                        seconds=((pl.col("timestamp") - start) / 1000).round(3), path=path).to_dicts()
    for row in rows:
        row["path"] = anonymise_path(row["path"])[0]
    return rows


def row_order(events: list[dict[str, Any]]) -> list[str]:
    """The event types present, in the schema's order (behavioral first), for the timeline's rows."""
    present = {e["type"] for e in events}
    return [t for t in EVENT_TYPES if t in present] + sorted(present - set(EVENT_TYPES))


def _shown_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return anonymise_path(text)[0]


def content_preview(traj: Trajectory, index: int, *, limit: int = PREVIEW_CHARS) -> dict[str, Any]:
    """The text behind a write or edit: {kind: 'diff' | 'blob' | 'none', text, chars, truncated}.
    An edit (or overwrite) shows its unified diff, a new file its full text; one media file is read."""
    event = traj.events[index]
    if event.event_type not in ("file_write", "file_edit"):
        return {"kind": "none", "text": "", "chars": 0, "truncated": False}
    for kind, name in (("diff", "media_ref_diff"), ("blob", "media_ref_new"), ("blob", "media_ref")):
        ref = event.get(name)
        if ref is None or traj.media is None:
            continue
        try:
            text = anonymise_path(traj.media.read(ref))[0]
        except MediaError as exc:
            raise MediaError(f"{traj.id}: event {index}: field {name!r}: {exc}") from None
        return {"kind": kind, "text": text[:limit], "chars": len(text), "truncated": len(text) > limit}
    return {"kind": "none", "text": "(no text stored for this event: binary content or an unchanged file)",
            "chars": 0, "truncated": False}


def event_detail(traj: Trajectory, index: int, *, limit: int = PREVIEW_CHARS) -> dict[str, Any]:
    """Everything the detail pane shows for `traj.events[index]`: envelope, every type-specific field
    (as display strings, media references left out), the sizes, and the content delta's preview."""
    if not 0 <= index < len(traj.events):
        raise IndexError(f"{traj.id}: no event {index} (it has {len(traj.events)})")
    event = traj.events[index]
    fields = [[name, _shown_value(value)] for name, value in event.fields.items() if name not in MEDIA_REF_FIELDS]
    return {"trajectory_id": traj.id, "index": index, "event_id": event.event_id, "type": event.event_type,
            "category": EVENT_CATEGORY.get(event.event_type, "unknown"),
            "seconds": round((event.timestamp - min(e.timestamp for e in traj.events)) / 1000, 3), "fields": fields,
            "sizes": {k: event.fields[k] for k in SIZE_FIELDS if isinstance(event.fields.get(k), int | float)},
            "preview": content_preview(traj, index, limit=limit)}


class TimelineBrowser(anywidget.AnyWidget):
    """Pick a trajectory, see its events along time (one row per event type), click one for its detail.

    Synced state: `selected` (trajectory id), `metadata` (show simulation metadata events),
    `selected_event` (index in the trajectory's events, -1 for none); `events`, `rows` and `detail`
    are recomputed in Python when those change."""

    _esm = _STATIC / "timeline.js"
    _css = _STATIC / "timeline.css"

    choices = traitlets.List(traitlets.Dict()).tag(sync=True)
    colors = traitlets.Dict().tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    metadata = traitlets.Bool(False).tag(sync=True)
    events = traitlets.List(traitlets.Dict()).tag(sync=True)
    rows = traitlets.List(traitlets.Unicode()).tag(sync=True)
    selected_event = traitlets.Int(-1).tag(sync=True)
    detail = traitlets.Dict().tag(sync=True)

    def __init__(self, trajectories: Trajectory | Iterable[Trajectory], *, metadata: bool = False,
                 preview_chars: int = PREVIEW_CHARS, **kwargs: Any):
        trajs = _as_list(trajectories)
        self._trajectories = {t.id: t for t in trajs}
        self._preview_chars = preview_chars
        restore_jupyter_kernel()  # in a Jupyter kernel: its own comms, even after a marimo layout
        super().__init__(choices=trajectory_choices(trajs), colors=CATEGORY_COLORS, metadata=metadata, **kwargs)
        self.observe(self._on_view, names=["selected", "metadata"])
        self.observe(self._on_event, names=["selected_event"])
        if self.selected not in self._trajectories:
            self.selected = trajs[0].id  # fires _on_view
        else:
            self._on_view(None)

    @property
    def trajectory(self) -> Trajectory:
        """The trajectory on show."""
        return self._trajectories[self.selected]

    @traitlets.validate("selected")
    def _valid_trajectory(self, proposal: dict) -> str:
        if proposal["value"] not in self._trajectories:
            raise traitlets.TraitError(f"TimelineBrowser: unknown trajectory {proposal['value']!r}; "
                                       f"known: {', '.join(self._trajectories)}")
        return proposal["value"]

    @traitlets.validate("selected_event")
    def _valid_event(self, proposal: dict) -> int:
        index = proposal["value"]
        if index != -1 and not any(e["index"] == index for e in self.events):
            raise traitlets.TraitError(f"TimelineBrowser: event {index} is not on the timeline of {self.selected}")
        return index

    def _on_view(self, change: Any) -> None:
        """A new trajectory clears the clicked event; hiding metadata clears it only if it was a metadata one."""
        with self.hold_sync():
            self.events = timeline_events(self.trajectory, metadata=self.metadata)
            self.rows = row_order(self.events)
            new_trajectory = change is not None and change["name"] == "selected"
            if new_trajectory or not any(e["index"] == self.selected_event for e in self.events):
                self.selected_event = -1
            self._on_event(None)

    def _on_event(self, _change: Any) -> None:
        index = self.selected_event
        self.detail = {} if index == -1 else event_detail(self.trajectory, index, limit=self._preview_chars)
