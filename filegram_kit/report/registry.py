"""The registry of reproducible artifacts: name = output file stem, plus where it comes from.

    @artifact("table02_dimensions", paper="Table 2", notebook="01_persona_design", title="...")
    def table02_dimensions() -> pl.DataFrame: ...

A table function returns the numbers as a polars frame; `reproduce` writes them as `<name>.csv`
(what tests check) and `<name>.md` (what people read). A figure function returns a `FigureData`
(the plotly figure and the frame of numbers drawn); `reproduce` adds `<name>.html` (loads the
`plotly.min.js` written beside it, so it opens offline) and `<name>.png`. Artifacts registered with
`corpus=True` are computed from a trace corpus: their function takes `corpus=PATH`, and `reproduce`
passes the default 640-trajectory corpus (built once into data/corpus) unless told another.
A function that takes `settings=` gets the run's `RunSettings` (backend, item seeds, methods:
settings.py). One that returns `TableData(table, data)` also gets `<name>_data.csv`: the numbers
the table is computed from, so tests recompute the table from them. `reads=(names)` makes an
artifact a function of other artifacts' tables (it takes `tables={name: frame}`, written first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go
import polars as pl


@dataclass(frozen=True)
class FigureData:
    """What a figure function returns: the figure and the numbers it draws (saved as the .csv)."""

    figure: go.Figure
    data: pl.DataFrame


@dataclass(frozen=True)
class TableData:
    """What a table function may return instead of a frame: the table and the numbers it is computed from."""

    table: pl.DataFrame
    data: pl.DataFrame


@dataclass(frozen=True)
class Artifact:
    name: str  # output file stem
    function: Callable[..., Any]  # () -> DataFrame | FigureData, or (corpus=PATH) -> ... when `corpus`
    title: str
    paper: str | None  # e.g. "Table 2"; None for project-only outputs
    notebook: str | None  # the notebook that explores it
    note: str = ""  # caption line under the title
    corpus: bool = False  # computed from a trace corpus (the function takes `corpus=`)
    figure: bool = False  # returns FigureData: also written as .html and .png
    reads: tuple[str, ...] = ()  # artifacts whose tables this one is computed from (`tables=` argument)

    @property
    def qualname(self) -> str:
        return f"{self.function.__module__}.{self.function.__name__}"


ARTIFACTS: dict[str, Artifact] = {}


def artifact(name: str, *, title: str, paper: str | None = None, notebook: str | None = None, note: str = "",
             corpus: bool = False, figure: bool = False, reads: tuple[str, ...] = ()):
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in ARTIFACTS:
            raise ValueError(f"artifact {name!r} registered twice")
        ARTIFACTS[name] = Artifact(name, fn, title, paper, notebook, note, corpus, figure, tuple(reads))
        return fn

    return register


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(frame: pl.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of the whole frame."""
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * frame.width]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame.iter_rows()]
    return "\n".join(lines) + "\n"
