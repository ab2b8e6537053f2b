"""Paper Tables 1, 4 and 7: the literature comparisons and the use-case derivation of the six dimensions.

The rows are data (`filegram_kit/data/literature/literature.json`, transcribed from the paper): a comparison
table is the paper's rows plus this workbench's own, told apart by the `source` column. Our rows
carry a reason for every cell, and each table's note says, from the data, where our row differs
from the paper's own row (FileGramBench / FileGramOS) and why. Table 7 gets one column of ours:
the sub-tasks of this workbench's bench that exercise each use case.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import polars as pl

from ..bench.schema import SUB_TRACKS
from .registry import artifact

# in a folder of its own: the engine fingerprints data/*.json (engine/corpus.py), and a file there that the
# engine never reads would still mark every corpus stale
DATA_DIR, DATA_FILE = "literature", "literature.json"
PAPER, OURS = "paper", "this workbench"
PARTIAL = "partial"
NONE = "-"


class LiteratureError(ValueError):
    """A malformed row of literature.json (names the table, the row and the field)."""


@cache
def literature() -> dict[str, Any]:
    text = resources.files("filegram_kit").joinpath("data", DATA_DIR, DATA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def qa_label(value: int | str) -> str:
    """A QA count as the paper prints it: 194, 9.8K; strings ('-', '4.6K') pass through."""
    if isinstance(value, str):
        return value
    return f"{value / 1000:.1f}K" if value >= 1000 else str(value)


def mark(value: object) -> str:
    """How a check-mark cell reads in text: ✓, ✗, partial, or the value itself."""
    if isinstance(value, bool):
        return "✓" if value else "✗"
    return qa_label(value) if isinstance(value, int) else str(value)


def _column(values: list[Any]) -> pl.Series:
    """Booleans stay Boolean (the writer marks them ✓/✗); a column that also holds 'partial' becomes text."""
    if all(isinstance(v, bool) for v in values):
        return pl.Series(values, dtype=pl.Boolean)
    return pl.Series([mark(v) for v in values], dtype=pl.String)


def comparison_frame(name: str) -> pl.DataFrame:
    """The paper's rows, then ours, with a `source` column; every cell checked against the table's columns."""
    spec = literature()[name]
    columns = spec["columns"]
    rows = [(row, PAPER) for row in spec["paper"]] + [(row, OURS) for row in spec["ours"]]
    for index, (row, source) in enumerate(rows):
        missing = [c for c in columns if c not in row]
        if missing:
            raise LiteratureError(f"{DATA_FILE}: {name}: {source} row {index} ({row.get(columns[0])!r}): "
                                  f"missing field(s) {missing}")
    frame = pl.DataFrame({c: _column([row[c] for row, _ in rows]) for c in columns})
    return frame.with_columns(source=pl.Series([source for _, source in rows], dtype=pl.String))


def differences(name: str) -> list[dict[str, str]]:
    """Per our row and column where it differs from the paper's own row: both values and our reason."""
    spec = literature()[name]
    key = spec["columns"][0]
    paper_own = next(r for r in spec["paper"] if r[key] == spec["paper_own_row"])
    out = []
    for row in spec["ours"]:
        for column in spec["columns"][1:]:
            ours, theirs = mark(row[column]), mark(paper_own[column])
            if ours != theirs:
                out.append({"row": row[key], "column": column, "ours": ours, "paper": theirs,
                            "why": row.get("why", {}).get(column, "")})
    return out


def comparison_note(name: str, subject: str) -> str:
    """The note under a comparison table: the legend, then where our row departs from the paper's and why."""
    spec = literature()[name]
    diffs = "; ".join(f"{d['column']} ({d['ours']} here, {d['paper']} in the paper): "
                      f"{d['why'].rstrip('.') or 'no reason recorded'}" for d in differences(name))
    departs = f"Where it differs from the paper's own {subject} row: {diffs}." if diffs else \
        f"It matches the paper's own {subject} row in every column."
    return (f"{spec['legend']} Rows with source `{PAPER}` are the paper's, as printed; the `{OURS}` row is this "
            f"project's, each cell with its reason in filegram_kit/data/{DATA_DIR}/{DATA_FILE}. {departs}")


@artifact("table01_benchmarks", paper="Table 1", notebook="05_benchmark",
          title="Table 1: FileGramBench beside representative benchmarks, with this workbench's bench as built",
          note=comparison_note("table01_benchmarks", "FileGramBench"))
def table01_benchmarks() -> pl.DataFrame:
    return comparison_frame("table01_benchmarks")


@artifact("table04_memory_frameworks", paper="Table 4", notebook="04_memory_channels",
          title="Table 4: memory frameworks compared, with this workbench's FileGramOS as implemented",
          note=comparison_note("table04_memory_frameworks", "FileGramOS"))
def table04_memory_frameworks() -> pl.DataFrame:
    return comparison_frame("table04_memory_frameworks")


def exercised_by(use_case: str) -> tuple[list[str], str]:
    """(the bench sub-tasks exercising a use case, as paper abbreviations; why) from literature.json."""
    entry = literature()["table07_dimension_derivation"]["bench_sub_tasks"].get(use_case)
    if entry is None:
        raise LiteratureError(f"{DATA_FILE}: table07_dimension_derivation: bench_sub_tasks has no entry for "
                              f"{use_case!r}")
    unknown = [s for s in entry["sub_tracks"] if s not in SUB_TRACKS]
    if unknown:
        raise LiteratureError(f"{DATA_FILE}: table07_dimension_derivation: {use_case}: field 'sub_tracks': "
                              f"{unknown} are not bench sub-tasks ({', '.join(SUB_TRACKS)})")
    return [SUB_TRACKS[s][1] for s in entry["sub_tracks"]], entry["why"]


@artifact("table07_dimension_derivation", paper="Table 7", notebook="01_persona_design",
          title="Table 7: the six dimensions derived from seven OS-agent use cases, and where this bench tests each",
          note="The use-case cells are the paper's (\"-\" = the use case needs none of that dimension). The last "
               "two columns are ours: the FileGramBench sub-tasks of this workbench (bench/schema.py SUB_TRACKS) "
               "that ask what the use case needs, and why; \"-\" where none does. A judgement from what each "
               "sub-task asks, not a measurement.")
def table07_dimension_derivation() -> pl.DataFrame:
    spec = literature()["table07_dimension_derivation"]
    rows = []
    for row in spec["paper"]:
        abbrs, why = exercised_by(row["Use case"])
        rows.append({**{c: row[c] for c in spec["columns"]},
                     "exercised here by": ", ".join(abbrs) or NONE, "why (this workbench)": why})
    return pl.DataFrame(rows)
