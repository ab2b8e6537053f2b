"""The numbers of paper Figure 3 (data distribution), from a cleaned corpus's events frame.

    distribution_data(frame) -> long frame: panel, x, series, value

panels (the paper's caption: "20 profiles x 32 tasks yield 640 trajectories comprising 10K output
files and 20,028 atomic actions"):

    totals                     trajectories, output_files, atomic_actions
    actions_by_task_type       atomic actions (the 12 retained event types) per task type and category
    output_files_by_type       files a persona created (file_write with operation=create, or a
                               file_copy destination), per extension
    actions_per_trajectory     histogram of atomic actions per trajectory (bins of BIN_WIDTH)
    trajectories_by_task_type  trajectories per task type
"""

from __future__ import annotations

import polars as pl

from ..traces.schema import RETAINED_EVENT_TYPES
from ..traces.tasks import load_tasks

BIN_WIDTH = 10
CATEGORIES = ("read", "write", "organize", "flow")
_SCHEMA = {"panel": pl.String, "x": pl.String, "series": pl.String, "value": pl.Int64}


def task_types() -> dict[str, str]:
    """task id -> type, in the order of the paper's task list."""
    return {t.id: t.type for t in load_tasks().values()}


def _type_order() -> list[str]:
    return list(dict.fromkeys(task_types().values()))


def output_files(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per distinct (trajectory_id, path) the persona created, with its extension."""
    created = pl.concat([
        frame.filter((pl.col("event_type") == "file_write") & (pl.col("operation") == "create"))
        .select("trajectory_id", path=pl.col("file_path")),
        frame.filter(pl.col("event_type") == "file_copy").select("trajectory_id", path=pl.col("target_file")),
    ])
    ext = pl.col("path").str.extract(r"\.([A-Za-z0-9]+)$").str.to_lowercase().fill_null("(none)")
    return created.unique(maintain_order=True).with_columns(extension=ext)


def _long(frame: pl.DataFrame, panel: str, x: str, series: str | pl.Expr, value: str) -> pl.DataFrame:
    series_expr = pl.lit(series) if isinstance(series, str) else series
    return frame.select(panel=pl.lit(panel), x=pl.col(x).cast(pl.String), series=series_expr,
                        value=pl.col(value).cast(pl.Int64))


def _histogram(values: pl.Series) -> pl.DataFrame:
    """Counts per bin of BIN_WIDTH (labelled 'lo-hi'), empty bins between the extremes included."""
    binned = (values // BIN_WIDTH * BIN_WIDTH).alias("lo")
    counts = binned.value_counts(name="n")
    if counts.is_empty():
        return pl.DataFrame(schema={"x": pl.String, "n": pl.Int64})
    edges = pl.DataFrame({"lo": pl.int_range(binned.min(), binned.max() + 1, BIN_WIDTH, eager=True)})
    return (edges.join(counts, on="lo", how="left").with_columns(pl.col("n").fill_null(0))
            .select(x=pl.format("{}-{}", "lo", pl.col("lo") + BIN_WIDTH - 1), n="n"))


def distribution_data(frame: pl.DataFrame) -> pl.DataFrame:
    """Figure 3's numbers from a cleaned events frame (metadata events, if present, are ignored)."""
    types = task_types()
    actions = frame.filter(pl.col("event_type").is_in(RETAINED_EVENT_TYPES)).with_columns(
        task_type=pl.col("task_id").replace_strict(types, default="unknown"))
    trajectories = frame.select("trajectory_id", "task_id").unique().with_columns(
        task_type=pl.col("task_id").replace_strict(types, default="unknown"))
    files = output_files(frame)
    order = {t: i for i, t in enumerate(_type_order())}
    by_type = (actions.group_by("task_type", "category").len()
               .sort(pl.col("task_type").replace_strict(order, default=99),
                     pl.col("category").replace_strict({c: i for i, c in enumerate(CATEGORIES)}, default=99)))
    per_traj = trajectories.join(actions.group_by("trajectory_id").len(), on="trajectory_id", how="left")
    hist = _histogram(per_traj["len"].fill_null(0))
    traj_types = trajectories.group_by("task_type").len().sort(pl.col("task_type").replace_strict(order, default=99))
    by_ext = files.group_by("extension").len().sort(pl.col("len"), pl.col("extension"), descending=[True, False])
    totals = pl.DataFrame({"x": ["trajectories", "output_files", "atomic_actions"],
                           "value": [trajectories.height, files.height, actions.height]})
    return pl.concat([
        _long(totals, "totals", "x", "total", "value"),
        _long(by_type, "actions_by_task_type", "task_type", pl.col("category"), "len"),
        _long(by_ext, "output_files_by_type", "extension", "created", "len"),
        _long(hist, "actions_per_trajectory", "x", "trajectories", "n"),
        _long(traj_types, "trajectories_by_task_type", "task_type", "trajectories", "len"),
    ]).cast(_SCHEMA)


def panel(data: pl.DataFrame, name: str) -> pl.DataFrame:
    """One panel's rows (x, series, value)."""
    return data.filter(pl.col("panel") == name).drop("panel")


def totals(data: pl.DataFrame) -> dict[str, int]:
    return dict(panel(data, "totals").select("x", "value").iter_rows())
