"""Stage 1, episodic unit: a session cut into 2-5 episodes where its focus shifts, each narrated.

The session's actions are rendered as a timeline (one short line per atomic action, about 50
characters, paths anonymised); the `segment_episodes` task proposes boundaries (offline:
change-point segmentation of the action/focus sequence) and `narrate_episode` writes each
episode's title, narrative and summary (offline: counted from the episode's own lines).
Rules from the paper's encoder: fewer than 3 actions or a failed (or invalid) segmentation -> one episode;
segments shorter than 3 actions merge into the previous one; at most 5 episodes. A session of
6+ actions that comes back as one episode is split where production starts (first write), the
one focus shift every task has, so each session has at least 2 episodes when it can.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from ...llm.tasks import ParseError
from .semantic import short_name

if TYPE_CHECKING:
    from ...llm.base import Backend

MIN_EPISODE, MAX_EPISODES = 3, 5
LINE_PATH_CHARS = 40
TIMELINE_TYPES = ("file_read", "file_browse", "file_search", "file_write", "file_edit", "dir_create",
                  "file_copy", "file_move", "file_rename", "file_delete")  # derived events are left out
PRODUCTION = ("create", "overwrite", "edit")


@dataclass(frozen=True)
class Episode:
    session: str
    index: int
    title: str
    narrative: str
    summary: str
    event_ids: tuple[str, ...]
    lines: tuple[str, ...]


def _line(row: dict[str, Any]) -> str:
    path = short_name(row["file_path"] or row["dir_path"] or "", LINE_PATH_CHARS)
    kind = row["event_type"]
    if kind == "file_read":
        return f"read {path}"
    if kind == "file_browse":
        return f"browse {path or '.'} ({row['files_listed'] or 0} entries)"
    if kind == "file_search":
        return f"search {(row['query'] or '')[:30]!s} ({row['files_matched'] or 0} matches)"
    if kind == "file_write":
        verb = "create" if row["operation"] == "create" else "overwrite"
        return f"{verb} {path} ({row['content_length'] or 0} chars)"
    if kind == "file_edit":
        return f"edit {path} (+{row['lines_added'] or 0} -{row['lines_deleted'] or 0})"
    if kind == "dir_create":
        return f"mkdir {path}"
    if kind == "file_delete":
        return f"delete {path}"
    verb = {"file_copy": "copy", "file_move": "move", "file_rename": "rename"}[kind]
    source = short_name(row["source_file"] or "", 28)
    target = short_name(row["target_file"] or "", 28)
    return f"{verb} {source} -> {target}"


def timeline(events: pl.DataFrame) -> tuple[list[str], list[str]]:
    """(lines, event ids) of a session's atomic actions in order."""
    rows = events.filter(pl.col("event_type").is_in(TIMELINE_TYPES)).iter_rows(named=True)
    pairs = [(_line(r), r["event_id"]) for r in rows]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def normalise_spans(spans: list[tuple[int, int]], lines: list[str]) -> list[tuple[int, int]]:
    """Apply the encoder's rules (module docstring) to proposed spans covering 0..len(lines)."""
    n = len(lines)
    if n < MIN_EPISODE or not spans:
        return [(0, n)] if n else []
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and b - a < MIN_EPISODE:
            merged[-1][1] = b
        else:
            merged.append([a, b])
    if len(merged) > 1 and merged[0][1] - merged[0][0] < MIN_EPISODE:  # a short first segment joins the next
        merged[1][0] = merged[0][0]
        merged.pop(0)
    while len(merged) > MAX_EPISODES:  # join the shortest episode with its shorter neighbour
        i = min(range(len(merged)), key=lambda k: (merged[k][1] - merged[k][0], k))
        j = i - 1 if i == len(merged) - 1 or (i > 0 and merged[i - 1][1] - merged[i - 1][0]
                                                <= merged[i + 1][1] - merged[i + 1][0]) else i + 1
        lo, hi = min(i, j), max(i, j)
        merged[lo] = [merged[lo][0], merged[hi][1]]
        merged.pop(hi)
    if len(merged) == 1 and n >= 2 * MIN_EPISODE:
        start = next((k for k, line in enumerate(lines) if line.split(" ", 1)[0] in PRODUCTION), None)
        if start is not None and MIN_EPISODE <= start <= n - MIN_EPISODE:
            return [(0, start), (start, n)]
    return [(a, b) for a, b in merged]


def _valid(spans: list[tuple[int, int]], n: int) -> bool:
    edges = [a for a, _ in spans] + [spans[-1][1]] if spans else []
    return bool(spans) and edges[0] == 0 and edges[-1] == n and all(a < b for a, b in spans) and \
        all(spans[k][1] == spans[k + 1][0] for k in range(len(spans) - 1))


def episodes(events: pl.DataFrame, session: str, backend: Backend) -> tuple[list[Episode], int]:
    """The session's episodes and how many backend replies failed to parse (each falls back, see docstring)."""
    lines, ids = timeline(events)
    failures = 0
    spans = [(0, len(lines))] if lines else []
    if len(lines) >= MIN_EPISODE:
        try:
            proposed = backend.segment_episodes(lines)
        except ParseError:
            proposed, failures = [], failures + 1
        if _valid(proposed, len(lines)):
            spans = normalise_spans(proposed, lines)
    out = []
    for index, (a, b) in enumerate(spans):
        try:
            told = backend.narrate_episode(lines[a:b])
            title, narrative, summary = told.title, told.narrative, told.summary
        except ParseError:
            failures += 1
            title, narrative, summary = f"Episode {index + 1}", "; ".join(lines[a:b][:8]), f"{b - a} actions."
        out.append(Episode(session, index, title, narrative, summary, tuple(ids[a:b]), tuple(lines[a:b])))
    return out, failures
