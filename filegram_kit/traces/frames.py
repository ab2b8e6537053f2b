"""events_frame(): every event of every trajectory in one polars frame with one canonical column set.

Fields that mean the same thing under different names are unified (as the release's consumer
side does), so one column answers one question whatever the event type:

    file_path            `file_path` of read/write/edit/delete (and error_encounter)
    dir_path             dir_create `dir_path`, file_browse `directory_path`
    depth                `directory_depth` (read/write), `depth` (browse, dir_create),
                         `destination_directory_depth` (move)
    source_file, target_file
                         cross_file_reference `source_file/target_file`, file_copy `source_path/dest_path`,
                         move/rename `old_path/new_path`, context_switch `from_file/to_file`
    view_start, view_end file_read `view_range`
    content_ref, before_ref, diff_ref
                         media references as 'blobs/<hash>.blob' / 'diffs/<hash>.diff'
    extra                JSON of any field with no column (metadata payloads, unknown fields)

Every other column carries the field of the same name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import polars as pl

from .media import MediaError, make_ref
from .schema import EVENT_CATEGORY, EVENT_FIELDS, Trajectory

ENVELOPE_SCHEMA: dict[str, pl.DataType] = {
    "trajectory_id": pl.String, "profile_id": pl.String, "task_id": pl.String, "session_id": pl.String,
    "event_index": pl.Int32, "event_id": pl.String, "event_type": pl.String, "category": pl.String,
    "timestamp": pl.Float64,
}
# canonical column -> (dtype, source field names; the first one an event type has is used)
COLUMNS: dict[str, tuple[pl.DataType, tuple[str, ...]]] = {
    "file_path": (pl.String, ("file_path",)),
    "file_type": (pl.String, ("file_type",)),
    "dir_path": (pl.String, ("dir_path", "directory_path")),
    "depth": (pl.Int64, ("directory_depth", "depth", "destination_directory_depth")),
    "source_file": (pl.String, ("source_file", "source_path", "old_path", "from_file")),
    "target_file": (pl.String, ("target_file", "dest_path", "new_path", "to_file")),
    "operation": (pl.String, ("operation",)),
    "content_length": (pl.Int64, ("content_length",)),
    "view_count": (pl.Int64, ("view_count",)),
    "view_start": (pl.Int64, ()),
    "view_end": (pl.Int64, ()),
    "revisit_interval_ms": (pl.Float64, ("revisit_interval_ms",)),
    "search_type": (pl.String, ("search_type",)),
    "query": (pl.String, ("query",)),
    "files_matched": (pl.Int64, ("files_matched",)),
    "files_opened_after": (pl.List(pl.String), ("files_opened_after",)),
    "files_listed": (pl.Int64, ("files_listed",)),
    "edit_tool": (pl.String, ("edit_tool",)),
    "lines_added": (pl.Int64, ("lines_added",)),
    "lines_deleted": (pl.Int64, ("lines_deleted",)),
    "lines_modified": (pl.Int64, ("lines_modified",)),
    "diff_summary": (pl.String, ("diff_summary",)),
    "before_hash": (pl.String, ("before_hash",)),
    "after_hash": (pl.String, ("after_hash",)),
    "sibling_count": (pl.Int64, ("sibling_count",)),
    "is_backup": (pl.Boolean, ("is_backup",)),
    "file_age_ms": (pl.Float64, ("file_age_ms",)),
    "was_temporary": (pl.Boolean, ("was_temporary",)),
    "naming_pattern_change": (pl.String, ("naming_pattern_change",)),
    "reference_type": (pl.String, ("reference_type",)),
    "interval_ms": (pl.Float64, ("interval_ms",)),
    "trigger": (pl.String, ("trigger",)),
    "switch_count": (pl.Int64, ("switch_count",)),
    "max_depth": (pl.Int64, ("max_depth",)),
    "total_files": (pl.Int64, ("total_files",)),
    "content_ref": (pl.String, ("media_ref_new", "media_ref")),
    "before_ref": (pl.String, ("media_ref_old",)),
    "diff_ref": (pl.String, ("media_ref_diff",)),
    "extra": (pl.String, ()),
}
SCHEMA: dict[str, pl.DataType] = {**ENVELOPE_SCHEMA, **{c: dtype for c, (dtype, _) in COLUMNS.items()}}
REF_COLUMNS = ("content_ref", "before_ref", "diff_ref")

TABLE_ROW = r"(?m)^\|.*\|"  # a Markdown table line, separator rows (|---|) included
TABLE_ROWS = "content_table_rows"  # a frame may carry this count instead of `content` (the store keeps it)


def table_rows_of(content: pl.Expr) -> pl.Expr:
    """Lines of a text that are Markdown table rows (what md_table_rows counts for a create)."""
    return content.str.count_matches(TABLE_ROW)



def _mapping_for(fields: Iterable[str]) -> dict[str, str]:
    """source field -> canonical column for an event type with these fields."""
    fields = list(fields)
    out = {}
    for column, (_, sources) in COLUMNS.items():
        source = next((s for s in sources if s in fields), None)
        if source is not None:
            out[source] = column
    return out


COLUMN_MAPPINGS: dict[str, dict[str, str]] = {t: _mapping_for(spec) for t, spec in EVENT_FIELDS.items()}


def _ref_path(ref: Any, kind: str) -> str | None:
    """'blobs/<hash>.blob' or 'diffs/<hash>.diff' for any reference form (dict, path, bare hash)."""
    if isinstance(ref, dict):
        if isinstance(ref.get("path"), str):
            return ref["path"]
        if ref.get("type") in ("blob", "diff") and isinstance(ref.get("hash"), str):
            return make_ref(ref["type"], ref["hash"])["path"]
        return None
    if isinstance(ref, str):
        return ref if "/" in ref else make_ref(kind, ref)["path"]
    return None


def _row(traj: Trajectory, index: int, event: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "trajectory_id": traj.id, "profile_id": event.profile_id or traj.profile_id, "task_id": traj.task_id,
        "session_id": event.session_id, "event_index": index, "event_id": event.event_id,
        "event_type": event.event_type, "category": EVENT_CATEGORY.get(event.event_type, "unknown"),
        "timestamp": event.timestamp,
    }
    mapping = COLUMN_MAPPINGS.get(event.event_type, {})
    extra = {}
    for name, value in event.fields.items():
        column = mapping.get(name)
        if column is None:
            if name != "view_range":  # becomes view_start / view_end below
                extra[name] = value
        elif column in REF_COLUMNS:
            row[column] = _ref_path(value, "diff" if column == "diff_ref" else "blob")
        else:
            row[column] = value
    view = event.fields.get("view_range")
    if event.event_type == "file_read" and isinstance(view, list) and len(view) == 2:
        row["view_start"], row["view_end"] = view
    if extra:
        row["extra"] = json.dumps(extra, ensure_ascii=False, sort_keys=True, default=str)
    return row


def events_frame(trajs: Trajectory | Iterable[Trajectory], *, with_content: bool = False) -> pl.DataFrame:
    """One row per event, columns `SCHEMA` (see module docstring), in trajectory then event order.

    `with_content=True` adds `content`: the full text a write or edit left behind, read from media.
    """
    items = [trajs] if isinstance(trajs, Trajectory) else list(trajs)
    rows = [_row(t, i, e) for t in items for i, e in enumerate(t.events)]
    frame = pl.from_dicts(rows, schema=SCHEMA, strict=False) if rows else pl.DataFrame(schema=SCHEMA)
    if with_content:
        frame = frame.with_columns(pl.Series("content", _contents(items), dtype=pl.String))
    return frame


def _contents(items: list[Trajectory]) -> list[str | None]:
    out = []
    for traj in items:
        for i, event in enumerate(traj.events):
            ref = event.fields.get("media_ref_new", event.fields.get("media_ref"))
            if ref is None or event.event_type not in ("file_write", "file_edit") or traj.media is None:
                out.append(None)
                continue
            try:
                out.append(traj.media.read(ref))
            except MediaError as exc:
                raise MediaError(f"{traj.id}: event {i}: field 'media_ref': {exc}") from None
    return out
