"""One rendered file beside the section it came from and what the shared parser read back (notebook 05).

    files = examples(parse_report(mm), per_format=3)
    shown = open_rendered(mm, files.row(0, named=True))     # .data (the file), .source, .parsed, .loss
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from .build import distinct
from .parse import Loss, measure, parse_files
from .render import markup
from .sections import split_output


@dataclass(frozen=True)
class RenderedFile:
    trajectory_id: str
    path: str  # inside the trajectory's media/ folder
    format: str
    title: str
    data: bytes  # the rendered file
    source: str  # the section as the text setting has it (what the file shows)
    parsed: str  # what a text method reads from the file
    loss: Loss


def examples(report: pl.DataFrame, per_format: int = 3) -> pl.DataFrame:
    """The first `per_format` distinct files of each format, in report order."""
    return (distinct(report).with_row_index("_order").filter(pl.int_range(pl.len()).over("format") < per_format)
            .sort("format", "_order").drop("_order"))


def _source_corpus(mm_corpus: Path) -> Path:
    info = json.loads((mm_corpus / "corpus.json").read_text(encoding="utf-8"))
    return Path(info["render"]["source"])


def open_rendered(mm_corpus: str | Path, row: dict[str, Any]) -> RenderedFile:
    """A parse-report row's file, its source section (from the text corpus the setting was rendered from)
    and the parse, with the loss measured again from them."""
    mm_corpus = Path(mm_corpus)
    data = (mm_corpus / "signal" / row["trajectory_id"] / "media" / row["path"]).read_bytes()
    blob = _source_corpus(mm_corpus) / "signal" / row["trajectory_id"] / "media" / "blobs" / f"{row['blob']}.blob"
    section = split_output(blob.read_text(encoding="utf-8"), row["original_path"])[row["section"]]
    parsed = parse_files([(data, row["format"])])[0]
    return RenderedFile(row["trajectory_id"], row["path"], row["format"], row["title"], data, markup(section),
                        parsed, measure(section, row["format"], parsed))
