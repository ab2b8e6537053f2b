"""Paper tables and figures, one registered function each, written by `filegram reproduce`."""

from . import (  # noqa: F401 (registers the artifacts; reproduce orders them, so import order does not matter)
    ablation_tables,
    baseline_tables,
    bench_figures,
    bench_tables,
    figures,
    knowact_figures,
    literature_tables,
    memory_tables,
    paper_comparison,
    pipeline_figure,
    qa_examples,
    qualitative,
    real_user_tables,
    tables,
)
from .registry import ARTIFACTS, Artifact, FigureData, TableData, to_markdown
from .reproduce import reproduce

__all__ = ["ARTIFACTS", "Artifact", "FigureData", "TableData", "reproduce", "to_markdown"]
