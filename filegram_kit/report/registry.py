"""The registry of reproducible artifacts: name = output file stem, plus where it comes from.

    @artifact("table02_dimensions", paper="Table 2", notebook="01_persona_design", title="...")
    def table02_dimensions() -> pl.DataFrame: ...

A table function returns the numbers as a polars frame; `reproduce` writes them as `<name>.csv`
(what tests check) and `<name>.md` (what people read).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class Artifact:
    name: str  # output file stem
    function: Callable[[], pl.DataFrame]
    title: str
    paper: str | None  # e.g. "Table 2"; None for project-only outputs
    notebook: str | None  # the notebook that explores it
    note: str = ""  # caption line under the title

    @property
    def qualname(self) -> str:
        return f"{self.function.__module__}.{self.function.__name__}"


ARTIFACTS: dict[str, Artifact] = {}


def artifact(name: str, *, title: str, paper: str | None = None, notebook: str | None = None, note: str = ""):
    def register(fn: Callable[[], pl.DataFrame]) -> Callable[[], pl.DataFrame]:
        if name in ARTIFACTS:
            raise ValueError(f"artifact {name!r} registered twice")
        ARTIFACTS[name] = Artifact(name, fn, title, paper, notebook, note)
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
