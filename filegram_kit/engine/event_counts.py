"""How a corpus compares with the paper's Table 5 (event counts over 640 trajectories)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import polars as pl

from ..traces.load import find_trajectory_dirs
from ..traces.schema import EVENT_CATEGORY, METADATA_EVENT_TYPES, RETAINED_EVENT_TYPES

PAPER_TRAJECTORIES = 640
PAPER_TABLE5: dict[str, int] = {
    "file_read": 4541, "file_browse": 1649, "file_search": 294, "file_write": 3024, "file_edit": 1057,
    "dir_create": 944, "file_copy": 211, "file_move": 130, "file_delete": 92, "file_rename": 83,
    "cross_file_reference": 4094, "context_switch": 3909,
    "tool_call": 15301, "llm_response": 13096, "iteration_start": 13096, "iteration_end": 13096,
    "fs_snapshot": 1280, "session_start": 640, "session_end": 640, "error_encounter": 233,
    "error_response": 215, "compaction_triggered": 214,
}
TOLERANCE = 0.25  # the engine is calibrated to within +-25% of each retained type
METADATA_SHARE_TOLERANCE = 0.05


def count_events(path: str | Path) -> tuple[Counter[str], int]:
    """Raw event-type counts over every trajectory under `path`, and the number of trajectories (a corpus'
    columnar store counts the trajectories it holds current, one group_by)."""
    from ..store import EventStore

    counts: Counter[str] = Counter()
    dirs = find_trajectory_dirs(path)
    store = EventStore.open(path)
    served, rest = store.served(dirs) if store is not None else ([], dirs)
    if served:
        frame = store.scan_raw(None if len(served) == store.index.height else served).group_by("event_type").len()
        counts.update(dict(frame.collect().iter_rows()))
    for directory in rest:
        events = json.loads((directory / "events.json").read_text(encoding="utf-8"))
        counts.update(e.get("event_type") for e in events)
    return counts, len(dirs)


def table5(counts: Counter[str], trajectories: int) -> pl.DataFrame:
    """Ours vs paper per event type; ours is scaled to 640 trajectories so subsets compare fairly."""
    scale = PAPER_TRAJECTORIES / max(1, trajectories)
    rows = []
    for event_type in RETAINED_EVENT_TYPES + METADATA_EVENT_TYPES:
        ours, paper = counts.get(event_type, 0), PAPER_TABLE5[event_type]
        scaled = ours * scale
        rows.append({"event_type": event_type, "category": EVENT_CATEGORY[event_type],
                     "retained": event_type in RETAINED_EVENT_TYPES, "ours": ours,
                     "ours_per_640": round(scaled, 1), "paper": paper, "ratio": round(scaled / paper, 3),
                     "within_tolerance": abs(scaled / paper - 1) <= TOLERANCE})
    return pl.DataFrame(rows)


def metadata_share(counts: Counter[str]) -> float:
    meta = sum(counts.get(t, 0) for t in METADATA_EVENT_TYPES)
    kept = sum(counts.get(t, 0) for t in RETAINED_EVENT_TYPES)
    return meta / max(1, meta + kept)


PAPER_METADATA_SHARE = sum(PAPER_TABLE5[t] for t in METADATA_EVENT_TYPES) / sum(PAPER_TABLE5.values())


def format_comparison(counts: Counter[str], trajectories: int) -> str:
    """The text `filegram corpus --stats` prints."""
    frame = table5(counts, trajectories)
    lines = [f"{trajectories} trajectories (ours scaled to {PAPER_TRAJECTORIES} for comparison)", "",
             f"{'event type':<22}{'ours':>9}{'per 640':>10}{'paper':>9}{'ratio':>8}  ok"]
    for row in frame.iter_rows(named=True):
        mark = "yes" if row["within_tolerance"] else ("NO" if row["retained"] else "-")
        lines.append(f"{row['event_type']:<22}{row['ours']:>9}{row['ours_per_640']:>10.0f}{row['paper']:>9}"
                     f"{row['ratio']:>8.2f}  {mark}")
    retained = frame.filter(pl.col("retained"))
    share = metadata_share(counts)
    lines += ["", f"retained types within +-{TOLERANCE:.0%}: {retained['within_tolerance'].sum()}/{retained.height}",
              f"simulation-metadata share: {share:.1%} (paper {PAPER_METADATA_SHARE:.1%}, "
              f"{'ok' if abs(share - PAPER_METADATA_SHARE) <= METADATA_SHARE_TOLERANCE else 'OFF'})"]
    return "\n".join(lines)
