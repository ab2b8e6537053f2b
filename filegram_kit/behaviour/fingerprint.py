"""The 17-D procedural fingerprint of a trajectory (paper Table 6), z-scores and deviation (Eq. 1).

    fp = fingerprints(trajs)        one row per trajectory: trajectory_id, profile_id, task_id + FEATURES
    zscores(fp)                     z_<key> columns, normalised within each profile's sessions
    deviations(fp)                  distance of each session to its profile's centroid; outliers flagged
    extended_features(trajs)        the further per-trajectory statistics of the release code (spec 8.3)

Every feature is a count, sum, mean or ratio over one trajectory's atomic actions (spec 8.1): all
ratios divide by max(denominator, 1); "create" is a `file_write` whose operation is "create"; a file's
extension is read from `file_path`, case-insensitively. Everything is polars: per-event indicator
columns first, then one group_by with plain sums and maxima, so 1M events take well under a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import polars as pl

from ..traces.frames import TABLE_ROW, TABLE_ROWS, events_frame, table_rows_of  # noqa: F401 (public here too)
from ..traces.schema import Trajectory

ID_COLUMNS = ("trajectory_id", "profile_id", "task_id")
STRUCTURED_EXTENSIONS = frozenset({"csv", "json", "xlsx", "yaml", "xml", "tsv"})  # spec set: "yml" is not in it
IMAGE_EXTENSIONS = frozenset({"png", "jpg", "jpeg", "svg", "gif"})  # spec set: "webp" is not in it
SMALL_EDIT_LINES = 10  # an edit with added + deleted lines below this is "small"


class FeatureDefinition(NamedTuple):
    dimension: str  # "A".."F"
    group: str  # the release's group name
    source: str  # which events it reads
    computation: str
    interpretation: str
    high: str  # the tier expected to show more of it (paper Table 2 semantics)
    low: str  # the tier expected to show least


_D = FeatureDefinition
FEATURE_DEFINITIONS: dict[str, FeatureDefinition] = {
    "search_ratio": _D("A", "reading_strategy", "file_search, file_read, file_browse",
                       "searches / max(reads + browses + searches, 1)",
                       "How much of the looking-around is keyword or pattern search", "M", "L"),
    "browse_ratio": _D("A", "reading_strategy", "file_browse, file_read, file_search",
                       "browses / max(reads + browses + searches, 1)",
                       "How much of it is listing folders rather than opening files", "R", "L"),
    "revisit_ratio": _D("A", "reading_strategy", "file_read", "reads with view_count > 1 / max(reads, 1)",
                        "Share of reads that go back to a file already seen", "L", "R"),
    "avg_output_length": _D("B", "output_detail", "file_write (create)", "mean content_length of creates (0 if none)",
                            "Typical size of a new file, in characters", "L", "R"),
    "files_created": _D("B", "output_detail", "file_write (create)", "number of creates",
                        "How many new files the session leaves", "L", "R"),
    "total_output_chars": _D("B", "output_detail", "file_write (create)", "sum of content_length over creates",
                             "Overall amount of new text", "L", "R"),
    "dirs_created": _D("C", "directory_style", "dir_create", "number of dir_create events",
                       "Whether the user builds folder structure", "L", "R"),
    "max_dir_depth": _D("C", "directory_style", "dir_create", "largest depth of a created folder (0 if none)",
                        "How deep the folders it makes go", "L", "R"),
    "files_moved": _D("C", "directory_style", "file_move", "number of file_move events",
                      "Tidying by moving files into other folders", "L", "R"),
    "total_edits": _D("D", "edit_strategy", "file_edit", "number of file_edit events",
                      "How often existing files are revised in place", "L", "R"),
    "avg_lines_changed": _D("D", "edit_strategy", "file_edit", "mean of lines_added + lines_deleted per edit",
                            "Size of a typical revision", "R", "L"),
    "small_edit_ratio": _D("D", "edit_strategy", "file_edit",
                           f"edits with added + deleted < {SMALL_EDIT_LINES} / max(edits, 1)",
                           "Share of revisions that are small touch-ups", "L", "R"),
    "total_deletes": _D("E", "version_strategy", "file_delete", "number of file_delete events",
                        "How actively files are cleaned away", "L", "R"),
    "delete_to_create": _D("E", "version_strategy", "file_delete, file_write (create)",
                           "deletes / max(creates, 1)", "Cleanup relative to production: prune vs keep", "L", "R"),
    "structured_files": _D("F", "cross_modal", "file_write (create)",
                           "creates whose extension is csv, json, xlsx, yaml, xml or tsv",
                           "Data files produced beside prose", "L", "R"),
    "md_table_rows": _D("F", "cross_modal", "file_write (create) + its content",
                        "lines of created files' text that begin with | and hold another |, separator rows too",
                        "Tabular content written inline in Markdown", "M", "R"),
    "image_files": _D("F", "cross_modal", "file_write (create)",
                      "creates whose extension is png, jpg, jpeg, svg or gif", "Charts and figures produced", "L", "R"),
}
FEATURES: tuple[str, ...] = tuple(FEATURE_DEFINITIONS)
FEATURE_DIMENSION: dict[str, str] = {key: d.dimension for key, d in FEATURE_DEFINITIONS.items()}
_NEEDED = ("trajectory_id", "profile_id", "task_id", "event_type", "operation", "content_length", "view_count",
           "depth", "lines_added", "lines_deleted", "file_path", "content")
_NEEDED_COUNTED = (*_NEEDED[:-1], TABLE_ROWS)  # the table-row count instead of the text


def _require(events: pl.DataFrame | pl.LazyFrame, columns: Iterable[str]) -> None:
    names = events.collect_schema().names() if isinstance(events, pl.LazyFrame) else events.columns
    missing = [c for c in columns if c not in names]
    if missing:
        hint = " (build the frame with events_frame(trajs, with_content=True))" if "content" in missing else ""
        raise ValueError(f"events frame lacks column(s) {', '.join(missing)}{hint}")


def _is(event_type: str) -> pl.Expr:
    return pl.col("event_type") == event_type


_CREATE = _is("file_write") & (pl.col("operation") == "create")


def _extension(path: pl.Expr) -> pl.Expr:
    """Lower-cased text after the last dot of the file name (null when there is none)."""
    return path.str.extract(r"\.([^./\\]+)$", 1).str.to_lowercase()


_EXT = _extension(pl.col("file_path"))


def _flags(frame: pl.LazyFrame) -> pl.LazyFrame:
    """Per-event indicator and value columns; a trajectory's features are plain sums/maxima of them. A frame
    with `TABLE_ROWS` (and no text) is read for md_table_rows as it is: the count was made from the text."""
    counted = TABLE_ROWS in frame.collect_schema().names() and "content" not in frame.collect_schema().names()
    table_rows = pl.col(TABLE_ROWS) if counted else table_rows_of(pl.col("content"))
    edit_lines = pl.col("lines_added").fill_null(0) + pl.col("lines_deleted").fill_null(0)
    ext = _extension(pl.when(_CREATE).then(pl.col("file_path")))  # masked first: regex on creates only
    return frame.select(
        *ID_COLUMNS,
        reads=_is("file_read"), browses=_is("file_browse"), searches=_is("file_search"),
        revisits=_is("file_read") & (pl.col("view_count") > 1),
        creates=_CREATE, out_chars=pl.when(_CREATE).then(pl.col("content_length").fill_null(0)).otherwise(0),
        dirs=_is("dir_create"), dir_depth=pl.when(_is("dir_create")).then(pl.col("depth")),
        moves=_is("file_move"), edits=_is("file_edit"),
        edit_lines=pl.when(_is("file_edit")).then(edit_lines).otherwise(0),
        small_edits=_is("file_edit") & (edit_lines < SMALL_EDIT_LINES),
        deletes=_is("file_delete"),
        structured=ext.is_in(sorted(STRUCTURED_EXTENSIONS)).fill_null(False),  # only creates have an ext here
        images=ext.is_in(sorted(IMAGE_EXTENSIONS)).fill_null(False),
        table_rows=pl.when(_CREATE).then(table_rows).fill_null(0),
    )


def _ratio(num: str, den: pl.Expr) -> pl.Expr:
    return pl.col(num) / pl.max_horizontal(den, pl.lit(1))


def _per_trajectory(flags: pl.LazyFrame) -> pl.LazyFrame:
    summed = [c for c in flags.collect_schema().names() if c not in (*ID_COLUMNS, "dir_depth")]
    return flags.group_by("trajectory_id").agg(
        pl.col("profile_id", "task_id").first(), pl.col(summed).cast(pl.Int64).sum(),
        pl.col("dir_depth").max().fill_null(0))


def fingerprint_frame(events: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """The 17 features (`FEATURES`) per trajectory of an events frame (or a lazy one) with a `content` column
    (or `TABLE_ROWS`, the count of its table rows). Rows are sorted by trajectory_id; values are Float64
    rounded to 3 decimals.
    """
    names = events.collect_schema().names() if isinstance(events, pl.LazyFrame) else events.columns
    _require(events, _NEEDED_COUNTED if TABLE_ROWS in names and "content" not in names else _NEEDED)
    consumed = pl.col("reads") + pl.col("browses") + pl.col("searches")
    values = {
        "search_ratio": _ratio("searches", consumed), "browse_ratio": _ratio("browses", consumed),
        "revisit_ratio": _ratio("revisits", pl.col("reads")),
        "avg_output_length": _ratio("out_chars", pl.col("creates")), "files_created": pl.col("creates"),
        "total_output_chars": pl.col("out_chars"), "dirs_created": pl.col("dirs"), "max_dir_depth": pl.col("dir_depth"),
        "files_moved": pl.col("moves"), "total_edits": pl.col("edits"),
        "avg_lines_changed": _ratio("edit_lines", pl.col("edits")),
        "small_edit_ratio": _ratio("small_edits", pl.col("edits")), "total_deletes": pl.col("deletes"),
        "delete_to_create": _ratio("deletes", pl.col("creates")), "structured_files": pl.col("structured"),
        "md_table_rows": pl.col("table_rows"), "image_files": pl.col("images"),
    }
    return (events.lazy().pipe(_flags).pipe(_per_trajectory)
            .select(*ID_COLUMNS, *(values[k].cast(pl.Float64).round(3).alias(k) for k in FEATURES))
            .sort("trajectory_id").collect())


TrajectoriesOrFrame = Trajectory | Iterable[Trajectory] | pl.DataFrame | pl.LazyFrame | str | Path


def _frame_and_ids(trajs: TrajectoriesOrFrame, *, text: bool = False
                   ) -> tuple[pl.DataFrame | pl.LazyFrame, pl.DataFrame | None]:
    """The events frame (with content) and, for trajectory or corpus input, every trajectory's ids (empty ones
    too). A corpus folder is read through its columnar store where it is current (`store.behaviour`): with
    text=False only each text's table-row count is read (all the 17 features need of it), in no set order."""
    if isinstance(trajs, pl.DataFrame | pl.LazyFrame):
        return trajs, None
    if isinstance(trajs, str | Path):
        from ..store.read import behaviour

        return behaviour(trajs, with_content=text, table_rows=not text, check_media=False, ordered=text,
                         whole=False)
    items = [trajs] if isinstance(trajs, Trajectory) else list(trajs)
    ids = pl.DataFrame([(t.id, t.profile_id, t.task_id) for t in items], schema=list(ID_COLUMNS), orient="row")
    return events_frame(items, with_content=True), ids


def _with_empty(out: pl.DataFrame, ids: pl.DataFrame | None, fill: float | None = 0.0) -> pl.DataFrame:
    """Add a row for each trajectory that had no event at all (features `fill`)."""
    if ids is None:
        return out
    missing = ids.unique("trajectory_id").join(out, on="trajectory_id", how="anti")
    if missing.is_empty():
        return out
    rows = missing.with_columns(pl.lit(fill, pl.Float64).alias(c) for c in out.columns if c not in ID_COLUMNS)
    return pl.concat([out, rows.select(out.columns).cast(out.schema)]).sort("trajectory_id")


def fingerprints(trajs: TrajectoriesOrFrame) -> pl.DataFrame:
    """`fingerprint_frame` of a Trajectory, an iterable of them, an events frame (which needs `content`), or a
    corpus folder (its trajectories cleaned; read from its columnar store where current, `filegram_kit.store`).

    Trajectories without any event still get a row (all zeros).
    """
    if isinstance(trajs, str | Path):  # a corpus: the features are computed while its currency is checked
        from ..store.read import per_trajectory

        out, ids = per_trajectory(trajs, fingerprint_frame, table_rows=True, check_media=False)
        return _with_empty(out.sort("trajectory_id"), ids)
    frame, ids = _frame_and_ids(trajs)
    return _with_empty(fingerprint_frame(frame), ids)


# -- normalisation and deviation (spec 8.2) --------------------------------------------------------------


def _over(expr: pl.Expr, by: str | Sequence[str] | None) -> pl.Expr:
    return expr if by is None else expr.over(by)


def zscores(fp: pl.DataFrame, *, by: str | Sequence[str] | None = "profile_id",
            features: Sequence[str] = FEATURES) -> pl.DataFrame:
    """Add z_<key> = (f - mean) / std within each `by` group (sample std); 0 where all values agree
    (std 0, or a single session) and where the value is missing. `by=None`: one group."""
    _require(fp, [*features, *([by] if isinstance(by, str) else by or [])])
    out = []
    for key in features:
        col = pl.col(key)
        z = (col - _over(col.mean(), by)) / _over(col.std(ddof=1), by)
        spread = _over(col.max(), by) > _over(col.min(), by)  # exact test: float std of equal values is ~1e-17
        out.append(pl.when(spread).then(z).otherwise(0.0).fill_null(0.0).alias(f"z_{key}"))
    return fp.with_columns(out)


def with_zscores(fp: pl.DataFrame, *, by: str | Sequence[str] | None = "profile_id",
                 features: Sequence[str] = FEATURES) -> pl.DataFrame:
    """`fp` as it is when it already carries every z_<key> column (a caller scored it once for several
    readers), else `zscores(fp, by=by, features=features)`."""
    return fp if all(f"z_{k}" in fp.columns for k in features) else zscores(fp, by=by, features=features)


def deviations(fp: pl.DataFrame, *, by: str | Sequence[str] | None = "profile_id", tau: float = 1.5,
               features: Sequence[str] = FEATURES, min_sessions: int = 3) -> pl.DataFrame:
    """Paper Eq. 1 per session: `deviation` = ||z - mean z of the group||, `threshold` = mean + tau * std
    of the group's deviations (null for groups under `min_sessions`), `flagged` = deviation > threshold
    (never when all deviations are equal), `shifted_features` = up to three features farthest from the
    centroid, largest first, ties in FEATURES order (features with no gap at all are not listed).
    `fp` may already carry the z_<key> columns of `zscores(fp, by=by)`; they are used as they are.
    """
    groups = [by] if isinstance(by, str) else list(by or [])
    z = with_zscores(fp, by=by, features=features).with_row_index("_row")
    gaps = z.select("_row", *groups, *((pl.col(f"z_{k}") - _over(pl.col(f"z_{k}").mean(), by)).abs().alias(k)
                                       for k in features))
    deviation = pl.sum_horizontal(pl.col(k) ** 2 for k in features).sqrt().round(6)  # rounded: equal stays equal
    dev = pl.col("deviation")
    stats = gaps.select("_row", *groups, deviation.alias("deviation")).select(
        "_row", "deviation",
        threshold=pl.when(_over(pl.len(), by) >= min_sessions).then(_over(dev.mean() + tau * dev.std(ddof=1), by)),
        spread=_over(dev.max(), by) > _over(dev.min(), by))
    stats = stats.with_columns(flagged=(pl.col("spread") & (dev > pl.col("threshold"))).fill_null(False))
    order = pl.DataFrame({"variable": list(features), "_order": range(len(features))})
    top = (gaps.unpivot(list(features), index="_row", value_name="gap").filter(pl.col("gap") > 0)
           .join(order, on="variable").sort(["_row", "gap", "_order"], descending=[False, True, False])
           .group_by("_row").agg(shifted_features=pl.col("variable").head(3)))
    keys = list(dict.fromkeys(c for c in (*ID_COLUMNS, *groups) if c in fp.columns))
    return (z.select("_row", *keys).join(stats, on="_row").join(top, on="_row", how="left").sort("_row")
            .select(*keys, "deviation", "threshold", "flagged",
                    pl.col("shifted_features").fill_null(pl.lit([], pl.List(pl.String)))))


# -- extended features (spec 8.3) ------------------------------------------------------------------------

EXTENDED_FEATURES: dict[str, str] = {  # key -> release group
    **dict.fromkeys(("total_reads", "total_browses", "total_searches", "read_ratio", "avg_content_length",
                     "unique_files_read", "context_switch_rate"), "reading_strategy"),
    **dict.fromkeys(("max_output_length", "output_length_std"), "output_detail"),
    **dict.fromkeys(("distinct_file_types", "has_markdown", "has_structured_data", "has_markdown_tables"),
                    "output_structure"),
    **dict.fromkeys(("avg_dir_depth", "final_fs_max_depth"), "directory_style"),
    **dict.fromkeys(("avg_filename_length", "has_date_prefix", "has_numeric_prefix", "has_underscores",
                     "has_hyphens", "avg_word_count", "total_renames"), "naming"),
    **dict.fromkeys(("max_lines_changed", "edits_per_file"), "edit_strategy"),
    **dict.fromkeys(("total_copies", "backup_copies", "total_overwrites", "has_backup_behavior"), "version_strategy"),
    **dict.fromkeys(("primary_files_created", "supplementary_ratio", "total_files_created", "has_tables_or_data",
                     "has_images"), "cross_modal"),
    **dict.fromkeys(("heading_count", "heading_max_depth", "table_row_count", "list_item_count",
                     "avg_sentence_length_words", "total_words", "prose_to_structure_ratio"), "tone"),
    **dict.fromkeys(("total_iterations", "avg_tools_per_iteration", "iteration_error_rate",
                     "total_context_switches"), "work_rhythm"),
}
"""Left out: `file_types_created` (a per-extension mapping, not a number; `distinct_file_types` and the
has_* flags carry it). Not in a cleaned trajectory, hence null there: `final_fs_max_depth` (needs
fs_snapshot) and the first three work_rhythm features (need iteration_end); both are simulation metadata."""
PRIMARY_EXTENSIONS = frozenset({"md", "txt", "docx", "pdf"})
_WORD = r"\p{Han}|[[\p{L}\p{N}]--\p{Han}]+"  # a run of letters/digits, or one Chinese character
_SENTENCE_END = r"[。！？]|[.!?]+(?:\s|$)"
_HEADING = r"(?m)^#{1,6}[ \t]"
_LIST_ITEM = r"(?m)^[ \t]*(?:[-*+]|\d+[.)])[ \t]"


def _text_stats(events: pl.LazyFrame) -> pl.LazyFrame:
    """Tone statistics over the final text of every file the session wrote or edited (last content wins)."""
    text = pl.col("content")
    final = (events.filter(text.is_not_null()).unique(["trajectory_id", "file_path"], keep="last",
                                                      maintain_order=True))
    per_file = final.select(
        "trajectory_id", heading_count=text.str.count_matches(_HEADING),
        heading_max_depth=text.str.extract_all(_HEADING).list.eval(pl.element().str.count_matches("#")).list.max(),
        table_row_count=text.str.count_matches(TABLE_ROW), list_item_count=text.str.count_matches(_LIST_ITEM),
        total_words=text.str.count_matches(_WORD), sentences=text.str.count_matches(_SENTENCE_END),
        lines=text.str.count_matches(r"(?m)^[ \t]*\S"))
    structure = pl.col("heading_count") + pl.col("table_row_count") + pl.col("list_item_count")
    return (per_file.group_by("trajectory_id").agg(pl.all().exclude("heading_max_depth").sum(),
                                                   pl.col("heading_max_depth").max())
            .select("trajectory_id", "heading_count", "heading_max_depth", "table_row_count", "list_item_count",
                    avg_sentence_length_words=_ratio("total_words", pl.col("sentences")),
                    total_words="total_words",
                    prose_to_structure_ratio=(pl.col("lines") - structure) / pl.max_horizontal(structure, 1)))


def _any(cond: pl.Expr) -> pl.Expr:
    return cond.cast(pl.Int8).max()


def _n_unique(value: pl.Expr) -> pl.Expr:
    """Distinct non-null values of a masked column (n_unique counts null as a value)."""
    return value.n_unique() - (value.null_count() > 0).cast(pl.UInt32)


def _extended_aggs() -> list[pl.Expr]:
    read, create, edit, dirs = _is("file_read"), _CREATE, _is("file_edit"), _is("dir_create")
    name = pl.when(create).then(pl.col("file_path").str.extract(r"([^/\\]+)$", 1))
    stem = name.str.replace(r"\.[^.]*$", "")
    ext = pl.when(create).then(_EXT)
    lines = pl.when(edit).then(pl.col("lines_added").fill_null(0) + pl.col("lines_deleted").fill_null(0))
    length = pl.when(create).then(pl.col("content_length"))
    iteration = _is("iteration_end")
    extra = pl.when(iteration).then(pl.col("extra"))
    n_reads, n_creates = read.sum(), create.sum()
    consumed = n_reads + _is("file_browse").sum() + _is("file_search").sum()
    primary = (create & _EXT.is_in(sorted(PRIMARY_EXTENSIONS))).sum()
    return [
        n_reads.alias("total_reads"), _is("file_browse").sum().alias("total_browses"),
        _is("file_search").sum().alias("total_searches"), (n_reads / consumed.clip(1)).alias("read_ratio"),
        pl.when(read).then(pl.col("content_length")).mean().fill_null(0).alias("avg_content_length"),
        _n_unique(pl.when(read).then(pl.col("file_path"))).alias("unique_files_read"),
        (_is("context_switch").sum() / n_reads.clip(1)).alias("context_switch_rate"),
        length.max().fill_null(0).alias("max_output_length"),
        length.std(ddof=1).fill_null(0).alias("output_length_std"),
        _n_unique(ext).alias("distinct_file_types"), _any(create & (_EXT == "md")).alias("has_markdown"),
        _any(create & _EXT.is_in(sorted(STRUCTURED_EXTENSIONS))).alias("has_structured_data"),
        _any(pl.when(create).then(pl.col("content")).str.contains(TABLE_ROW).fill_null(False))
        .alias("has_markdown_tables"),
        pl.when(dirs).then(pl.col("depth")).mean().fill_null(0).alias("avg_dir_depth"),
        pl.when(_is("fs_snapshot")).then(pl.col("max_depth")).drop_nulls().last().alias("final_fs_max_depth"),
        name.str.len_chars().mean().fill_null(0).alias("avg_filename_length"),
        _any(stem.str.contains(r"^\d{4}[-_]?\d{2}[-_]?\d{2}").fill_null(False)).alias("has_date_prefix"),
        _any(stem.str.contains(r"^\d{1,3}[-_]").fill_null(False)).alias("has_numeric_prefix"),
        _any(stem.str.contains("_").fill_null(False)).alias("has_underscores"),
        _any(stem.str.contains("-").fill_null(False)).alias("has_hyphens"),
        stem.str.count_matches(r"[^_\-\s.]+").mean().fill_null(0).alias("avg_word_count"),
        _is("file_rename").sum().alias("total_renames"),
        lines.max().fill_null(0).alias("max_lines_changed"),
        (edit.sum() / _n_unique(pl.when(edit).then(pl.col("file_path"))).clip(1)).alias("edits_per_file"),
        _is("file_copy").sum().alias("total_copies"),
        (_is("file_copy") & pl.col("is_backup").fill_null(False)).sum().alias("backup_copies"),
        (_is("file_write") & (pl.col("operation") == "overwrite")).sum().alias("total_overwrites"),
        _any(_is("file_copy") & pl.col("is_backup").fill_null(False)).alias("has_backup_behavior"),
        primary.alias("primary_files_created"),
        ((n_creates - primary) / n_creates.clip(1)).alias("supplementary_ratio"),
        _n_unique(pl.when(create).then(pl.col("file_path"))).alias("total_files_created"),
        _any(create & (_EXT.is_in(sorted(STRUCTURED_EXTENSIONS)) | pl.col("content").str.contains(TABLE_ROW)
                       .fill_null(False))).alias("has_tables_or_data"),
        _any(create & _EXT.is_in(sorted(IMAGE_EXTENSIONS))).alias("has_images"),
        pl.when(iteration.sum() > 0).then(iteration.sum()).alias("total_iterations"),
        extra.str.json_path_match("$.tools_called").cast(pl.Float64).mean().alias("avg_tools_per_iteration"),
        (extra.str.json_path_match("$.has_tool_error") == "true").mean().alias("iteration_error_rate"),
        _is("context_switch").sum().alias("total_context_switches"),
    ]


def extended_features(trajs: TrajectoriesOrFrame) -> pl.DataFrame:
    """The further statistics of spec 8.3 (`EXTENDED_FEATURES`) per trajectory, ids first, sorted by id.

    has_* features are 0/1. Tone features read the last text each written or edited file was left with
    (0 when there is none); naming features read the names of created files.
    """
    frame, ids = _frame_and_ids(trajs, text=True)  # in event order: the tone features keep each file's last text
    _require(frame, [*_NEEDED, "is_backup", "max_depth", "extra"])
    lazy = frame.lazy()
    base = lazy.group_by("trajectory_id").agg(pl.col("profile_id", "task_id").first(), *_extended_aggs())
    tone = [k for k, g in EXTENDED_FEATURES.items() if g == "tone"]
    out = (base.join(_text_stats(lazy), on="trajectory_id", how="left")
           .with_columns(pl.col(tone).fill_null(0))
           .select(*ID_COLUMNS, *(pl.col(k).cast(pl.Float64).round(3) for k in EXTENDED_FEATURES))
           .sort("trajectory_id").collect())
    return _with_empty(out, ids, fill=None).with_columns(
        pl.col(k).fill_null(0.0) for k, g in EXTENDED_FEATURES.items()
        if k not in ("final_fs_max_depth", "total_iterations", "avg_tools_per_iteration", "iteration_error_rate"))
