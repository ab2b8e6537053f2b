"""How the CLI prints a frame: a Markdown table (default), CSV or JSON."""

from __future__ import annotations

import sys

import polars as pl


def emit(frame: pl.DataFrame, fmt: str) -> None:
    from ..report import to_markdown

    if fmt == "csv":
        sys.stdout.write(frame.write_csv())
    elif fmt == "json":
        sys.stdout.write(frame.write_json() + "\n")
    else:
        sys.stdout.write(to_markdown(frame))
