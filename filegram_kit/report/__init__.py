"""Paper tables and figures, one registered function each, written by `filegram reproduce`."""

from . import baseline_tables, bench_figures, bench_tables, figures, memory_tables, tables  # noqa: F401 (registers)
from .registry import ARTIFACTS, Artifact, FigureData, to_markdown
from .reproduce import reproduce

__all__ = ["ARTIFACTS", "Artifact", "FigureData", "reproduce", "to_markdown"]
