"""Views of one trajectory for notebooks: event timeline, workspace tree before/after, content deltas,
and behavior stats to compare personas side by side.

    frame = events_frame(raw_trajectory)                  # metadata included, or events_frame(cleaned)
    timeline_figure(frame, metadata=False)                # events over simulated time, coloured by category
    tree_text(after, before=before)                       # '+' created, '-' gone since `before`
    content_delta(trajectory, event_index)                # the diff (edit) or full text (write) behind an event
    behavior_stats(frame) / event_type_counts(frame)      # one row (column) per trajectory
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import plotly.graph_objects as go
import polars as pl

from ..traces.cleaning import anonymise_path
from ..traces.media import MediaError
from ..traces.schema import EVENT_TYPES, RETAINED_EVENT_TYPES, Trajectory
from .figures import CATEGORY_COLORS

_SANDBOX_PREFIX = r"^(?:.*?/)?sandbox/[^/]+/?"  # the release's '.../sandbox/<profile>_<task>/' prefix


def _relative(column: str) -> pl.Expr:
    return pl.col(column).str.replace(_SANDBOX_PREFIX, "")


def timeline_frame(frame: pl.DataFrame, *, metadata: bool = False) -> pl.DataFrame:
    """Events with `seconds` since the trajectory's first event and a short `detail` (path, query, ...)."""
    out = frame if metadata else frame.filter(pl.col("category") != "metadata")
    start = frame["timestamp"].min() if frame.height else 0.0
    detail = pl.coalesce(_relative("file_path"), _relative("dir_path"), _relative("target_file"), pl.col("query"),
                         pl.lit(""))
    return out.with_columns(seconds=(pl.col("timestamp") - start) / 1000, detail=detail)


def timeline_figure(frame: pl.DataFrame, *, metadata: bool = False, title: str | None = None) -> go.Figure:
    """Each event a marker at (simulated seconds, event type), coloured by category; hover shows the path."""
    data = timeline_frame(frame, metadata=metadata)
    order = [t for t in EVENT_TYPES if t in set(data["event_type"])] if data.height else []
    fig = go.Figure()
    for category, color in CATEGORY_COLORS.items():
        part = data.filter(pl.col("category") == category)
        if part.height:
            fig.add_trace(go.Scatter(
                x=part["seconds"].to_list(), y=part["event_type"].to_list(), mode="markers", name=category,
                marker=dict(color=color, size=9 if category != "metadata" else 6, line=dict(width=0)),
                customdata=part.select("event_index", "detail").rows(),
                hovertemplate="#%{customdata[0]} %{y}<br>%{customdata[1]}<br>%{x:.1f} s<extra></extra>"))
    fig.update_yaxes(categoryorder="array", categoryarray=order[::-1], title=None)
    fig.update_xaxes(title="simulated seconds since session start", rangemode="tozero")
    fig.update_layout(title=title or "Event timeline", template="plotly_white", legend_title="category",
                      height=max(320, 28 * len(order) + 140), margin=dict(l=10, r=10, t=50, b=40))
    return fig


def listing(root: str | Path) -> list[str]:
    """Relative POSIX paths of everything under `root` (folders end in '/'), hidden entries skipped."""
    root = Path(root)
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue
        out.append(rel.as_posix() + ("/" if path.is_dir() else ""))
    return out


def snapshot_listing(traj: Trajectory, which: int = -1) -> list[str]:
    """The workspace tree stored by an fs_snapshot event (the last one by default) of a raw trajectory."""
    snapshots = [e for e in traj.events if e.event_type == "fs_snapshot"]
    if not snapshots:
        raise ValueError(f"{traj.id}: no fs_snapshot events (cleaned trajectories have none; load the raw one)")
    ref = snapshots[which].get("media_ref")
    if ref is None or traj.media is None:
        return []
    paths = json.loads(traj.media.read(ref))
    parents = {str(PurePosixPath(p).parent) for p in paths}
    return [p + "/" if p in parents else p for p in paths]


def _nested(paths: list[str]) -> dict:
    tree: dict = {}
    for path in paths:
        node = tree
        for part in PurePosixPath(path.rstrip("/")).parts:
            node = node.setdefault(part, {})
    return tree


def tree_text(paths: list[str], *, before: list[str] | None = None) -> str:
    """An indented tree (`tree` style). With `before`, entries are marked '+' (new) or '-' (gone)."""
    now = {p.rstrip("/") for p in paths}
    old = None if before is None else {p.rstrip("/") for p in before}
    lines: list[str] = []

    def walk(node: dict, prefix: str, parent: str) -> None:
        names = sorted(node)
        for i, name in enumerate(names):
            path = f"{parent}{name}"
            mark = "" if old is None else ("+ " if path not in old else "- " if path not in now else "  ")
            last = i == len(names) - 1
            lines.append(f"{mark}{prefix}{'└── ' if last else '├── '}{name}{'/' if node[name] else ''}")
            walk(node[name], prefix + ("    " if last else "│   "), f"{path}/")

    walk(_nested(sorted(now | (old or set()))), "", "")
    return "\n".join(lines)


def content_events(frame: pl.DataFrame) -> pl.DataFrame:
    """The write/edit events of a frame, with a `label` for pickers: '#12 file_edit report.md (+3 -1)'."""
    delta = pl.when(pl.col("event_type") == "file_edit").then(
        pl.format("+{} -{}", pl.col("lines_added").fill_null(0), pl.col("lines_deleted").fill_null(0))
    ).otherwise(pl.col("operation").fill_null("write"))
    return (frame.filter(pl.col("event_type").is_in(["file_write", "file_edit"]))
            .select("trajectory_id", "event_index", "event_type", path=_relative("file_path"), delta=delta)
            .with_columns(label=pl.format("#{} {} {} ({})", "event_index", "event_type", "path", "delta")))


def content_delta(traj: Trajectory, event_index: int) -> tuple[str, str]:
    """('diff', unified diff) for an edit or overwrite, ('blob', full text) for a new file,
    ('none', reason) when no text was stored (binary outputs). Sandbox prefixes are stripped."""
    event = traj.events[event_index]
    if event.event_type not in ("file_write", "file_edit"):
        raise ValueError(f"{traj.id}: event {event_index} is a {event.event_type}, not a file_write/file_edit")
    for kind, field in (("diff", "media_ref_diff"), ("blob", "media_ref_new"), ("blob", "media_ref")):
        ref = event.get(field)
        if ref is not None and traj.media is not None:
            try:
                return kind, anonymise_path(traj.media.read(ref))[0]
            except MediaError as exc:
                raise MediaError(f"{traj.id}: event {event_index}: field {field!r}: {exc}") from None
    return "none", "(no text stored for this event: binary content or an unchanged file)"


def behavior_stats(frame: pl.DataFrame) -> pl.DataFrame:
    """Key behavior numbers per trajectory from its (raw or cleaned) events frame."""
    kind = pl.col("event_type")
    return frame.group_by("trajectory_id", "profile_id", "task_id", maintain_order=True).agg(
        atomic_actions=kind.is_in(RETAINED_EVENT_TYPES).sum(),
        files_read=pl.col("file_path").filter(kind == "file_read").n_unique(),
        rereads=(pl.col("view_count").filter(kind == "file_read") > 1).sum(),
        searches=(kind == "file_search").sum(),
        files_created=((kind == "file_write") & (pl.col("operation") == "create")).sum(),
        edits=(kind == "file_edit").sum(),
        lines_added=pl.col("lines_added").filter(kind == "file_edit").sum(),
        dirs_created=(kind == "dir_create").sum(),
        max_depth=pl.col("depth").filter(kind.is_in(["file_write", "dir_create", "file_move"])).max().fill_null(0),
        backups=pl.col("is_backup").filter(kind == "file_copy").sum(),
        moves_renames=kind.is_in(["file_move", "file_rename"]).sum(),
        deletes=(kind == "file_delete").sum(),
        context_switches=(kind == "context_switch").sum(),
        seconds=((pl.col("timestamp").max() - pl.col("timestamp").min()) / 1000).round(1),
    )


def event_type_counts(frame: pl.DataFrame, *, metadata: bool = False) -> pl.DataFrame:
    """Event types as rows, one count column per trajectory (every type listed, zeros included)."""
    types = list(EVENT_TYPES if metadata else RETAINED_EVENT_TYPES)
    ids = list(dict.fromkeys(frame["trajectory_id"]))
    counts = frame.filter(pl.col("event_type").is_in(types)).group_by("event_type", "trajectory_id").len()
    wide = counts.pivot(on="trajectory_id", index="event_type", values="len") if counts.height else None
    base = pl.DataFrame({"event_type": types})
    out = base.join(wide, on="event_type", how="left") if wide is not None else base
    return out.with_columns([pl.col(i).fill_null(0).cast(pl.Int64) if i in out.columns else pl.lit(0).alias(i)
                             for i in ids]).select("event_type", *ids)


def compare_table(frame: pl.DataFrame) -> pl.DataFrame:
    """`behavior_stats` turned sideways: one row per statistic, one column per trajectory."""
    stats = behavior_stats(frame)
    values = stats.drop("trajectory_id", "profile_id", "task_id").cast(pl.Float64)
    columns = {tid: list(row) for tid, row in zip(stats["trajectory_id"], values.iter_rows(), strict=True)}
    return pl.DataFrame({"statistic": values.columns, **columns})


def counts_figure(counts: pl.DataFrame, *, title: str = "Event types per trajectory") -> go.Figure:
    """Grouped bars of an `event_type_counts` frame, one colour per trajectory."""
    fig = go.Figure([go.Bar(x=counts["event_type"].to_list(), y=counts[c].to_list(), name=c)
                     for c in counts.columns[1:]])
    fig.update_layout(barmode="group", title=title, template="plotly_white", height=380,
                      legend=dict(orientation="h", y=1.02, yanchor="bottom"), margin=dict(l=10, r=10, t=70, b=10))
    return fig
