"""FileGramEngine, offline: personas do tasks in real sandboxes through recording tools.

    workspace template -> sandbox copy -> OfflineAgent (policy: tiers -> behavior)
      -> ToolBox (read/write/edit/grep/glob/ls/bash act on the sandbox) -> Recorder (typed events,
      media blobs and diffs, summary) -> signal/<profile>_<task>/
"""

from .corpus import BuildReport, CorpusError, build_corpus, generate_trajectory, plan_jobs, trajectory_id
from .event_counts import PAPER_TABLE5, count_events, format_comparison, metadata_share, table5

__all__ = [
    "BuildReport", "CorpusError", "PAPER_TABLE5", "build_corpus", "count_events", "format_comparison",
    "generate_trajectory", "metadata_share", "plan_jobs", "table5", "trajectory_id",
]
