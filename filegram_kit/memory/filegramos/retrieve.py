"""Stage 3: query-adaptive retrieval (paper §5). Abstraction happens here, not at ingest.

Keywords of the query pick the target dimension(s); the context then concatenates, in fixed
order and with no cross-channel re-ranking:

1. Procedural Patterns: the L/M/R reading of every dimension (targets marked) and the aggregate
   statistics of the target dimensions' features (all features when none is targeted), absences.
2. Semantic Content: output metadata, per-session created files with previews (and edit chains
   when asked), then the top chunks by cosine similarity to the query.
3. Episodic Consistency: session clusters, anomalous sessions with the judge's label, recurring
   episode patterns, then the top episode narratives by cosine similarity to the query.

The knobs of paper Table 14 and the channel switches of Table 13 are the `Knobs` fields.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import polars as pl

from ...behaviour.fingerprint import FEATURE_DIMENSION
from ...traces.schema import DIMENSION_CODES, DIMENSIONS
from ...util.float_ties import ranked
from ..base import Context
from .channels import EpisodicChannel, ProceduralChannel, SemanticChannel
from .semantic import short_name

CHANNELS = ("procedural", "semantic", "episodic")
BLOCK_TITLES = {"procedural": "Procedural Patterns", "semantic": "Semantic Content",
                "episodic": "Episodic Consistency"}
UNUSUAL_SHOWN = 3
DIMENSION_GLOSS = {"A": "reading, searching and browsing", "B": "the length and detail of written output",
                   "C": "folders and file organisation", "D": "editing and revising",
                   "E": "deleting, cleanup and keeping old files", "F": "charts, images, tables and data files"}
# stems matched at word starts: a query about "folders" or "nesting" targets C, "deleting" E, ...
DIMENSION_KEYWORDS: dict[str, tuple[str, ...]] = {
    "A": ("read", "search", "brows", "skim", "revisit", "explor", "consum", "scan", "look", "navigat", "thorough",
          "查找", "阅读", "搜索", "浏览"),
    "B": ("length", "long", "short", "verbos", "concise", "detail", "comprehensive", "minimal", "output", "produc",
          "write", "writing", "wrote", "tone", "formal", "casual", "word", "document", "structure", "详细", "简洁",
          "语气"),
    "C": ("folder", "director", "nest", "hierarch", "organi", "flat", "depth", "subfolder", "layout", "move", "naming",
          "name", "目录", "文件夹", "组织", "命名"),
    "D": ("edit", "revis", "iterat", "rewrit", "modif", "refin", "increment", "change", "draft", "修改", "编辑"),
    "E": ("delet", "clean", "remov", "curat", "backup", "version", "keep", "archiv", "preserv", "accumul", "tidy",
          "删除", "清理", "备份", "版本"),
    "F": ("chart", "image", "figure", "visual", "table", "csv", "json", "spreadsheet", "diagram", "graph", "plot",
          "modal", "data", "图表", "图片", "表格"),
}


@dataclass(frozen=True)
class Knobs:
    """Retrieval parameters (paper Table 14 defaults) and channel switches (Table 13 ablation)."""

    display_chars: int = 300  # characters shown of each retrieved chunk / episode narrative
    preview_chars: int = 200  # characters shown of each created file's content preview
    files_per_task: int = 3  # created files listed per session
    edit_chains: bool = False  # show each session's edit diffs (Table 14: "+ Edit chain diffs")
    content_previews: bool = True  # show file previews at all (Table 14: "- Content previews")
    top_chunks: int = 5
    top_episodes: int = 5
    channels: tuple[str, ...] = CHANNELS

    def __post_init__(self):
        for name in ("display_chars", "preview_chars", "files_per_task", "top_chunks", "top_episodes"):
            if int(getattr(self, name)) < 0:
                raise ValueError(f"FileGramOS: {name} must be >= 0, got {getattr(self, name)}")
        unknown = [c for c in self.channels if c not in CHANNELS]
        if unknown:
            raise ValueError(f"FileGramOS: unknown channel(s) {unknown}; channels: {', '.join(CHANNELS)}")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


def target_dimensions(query: str) -> list[str]:
    """Dimensions whose keywords the query uses most (all tied at the top); [] when none matches."""
    text = query.lower()
    words = re.findall(r"[a-z]+|[\u4e00-\u9fff]+", text)
    scores = Counter()
    for code, stems in DIMENSION_KEYWORDS.items():
        for stem in stems:
            if re.match(r"[a-z]", stem):
                scores[code] += sum(w.startswith(stem) for w in words)
            else:
                scores[code] += text.count(stem)
    best = max(scores.values(), default=0)
    return [c for c in DIMENSION_CODES if best and scores[c] == best]


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def procedural_block(channel: ProceduralChannel, targets: list[str]) -> str:
    lines = [f"L/M/R reading over {channel.sessions} sessions (confidence in brackets):"]
    for r in channel.readings:
        mark = " <- asked about" if r.dimension in targets else ""
        lines.append(f"- {r.dimension} {DIMENSIONS[r.dimension].name}: {r.label} ({r.tier}) [{r.confidence:.2f}]{mark}")
    shown = channel.stats.filter(pl.col("dimension").is_in(targets)) if targets else channel.stats
    lines.append("Per-session statistics (mean / median / std / min / max):")
    for row in shown.iter_rows(named=True):
        lines.append(f"- {row['feature']} ({row['dimension']}): {row['mean']:g} / {row['median']:g} / {row['std']:g} / "
                     f"{row['min']:g} / {row['max']:g}")
    if channel.absences:
        lines.append("Never observed: " + "; ".join(channel.absences) + ".")
    return "\n".join(lines)


def _cosine_top(vectors: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    if k <= 0 or len(vectors) == 0:
        return []
    scores = vectors @ query.reshape(-1)
    return [int(i) for i in ranked(scores)[:k]]


def _metadata_lines(channel: SemanticChannel) -> list[str]:
    lines = []
    if channel.languages:
        lines.append("Output language (sessions): " + ", ".join(f"{k} {v}" for k, v in channel.languages.items()))
    if channel.file_types:
        lines.append("File types created: " + ", ".join(f"{k} {v}" for k, v in channel.file_types.items()))
    if channel.naming:
        shares = [f"{k.replace('_', ' ')} {v:.0%}" for k, v in channel.naming.items() if k != "mean_length" and v]
        lines.append(f"File naming: {', '.join(shares) or 'no convention'}; mean name length "
                     f"{channel.naming['mean_length']:g} characters")
    if channel.filenames:
        lines.append("Representative file names: " + ", ".join(short_name(n) for n in channel.filenames))
    if channel.style:
        lines.append("Writing style: " + ", ".join(f"{k} {s['value']} ({s['sessions']}/{s['of']} sessions)"
                                                   for k, s in channel.style.items()))
    if channel.style_summary:
        lines.append("Style summary: " + channel.style_summary)
    return lines


def semantic_block(channel: SemanticChannel, query_vec: np.ndarray, knobs: Knobs) -> tuple[str, list[str]]:
    lines, sources = _metadata_lines(channel), []
    if knobs.files_per_task:
        lines.append("Files created per session:")
    for session, previews in channel.previews.items():
        if not knobs.files_per_task:
            break
        for p in previews[:knobs.files_per_task]:
            shown = f": {_cut(p.preview, knobs.preview_chars)}" if knobs.content_previews and p.preview.strip() else ""
            lines.append(f"- [{session}] {short_name(p.file)} ({p.chars} chars){shown}")
            sources.append(p.event_id)
        if knobs.edit_chains and channel.edits.get(session):
            for step in channel.edits[session]:
                lines.append(f"  edit {short_name(step.file)} (+{step.lines_added} -{step.lines_deleted}): "
                             f"{_cut(step.diff, knobs.preview_chars)}")
                sources.append(step.event_id)
    picks = _cosine_top(channel.embeddings, query_vec, knobs.top_chunks)
    if picks:
        lines.append(f"Most relevant excerpts (top {len(picks)} of {len(channel.chunks)} by similarity):")
    for i in picks:
        chunk = channel.chunks[i]
        where = f"{chunk.session} {chunk.kind} {short_name(chunk.file)}"
        lines.append(f"- [{where}] {_cut(chunk.text, knobs.display_chars)}")
        sources.extend(chunk.event_ids)
    return "\n".join(lines), sources


def episodic_block(channel: EpisodicChannel, query_vec: np.ndarray, knobs: Knobs) -> tuple[str, list[str]]:
    lines = ["Behavioral clusters (sessions grouped by fingerprint):"]
    lines += [f"- {text}" for text in channel.cluster_profiles]
    flagged = channel.drift.filter(pl.col("flagged")).sort("deviation", descending=True)
    lines.append(f"Anomalous sessions ({flagged.height} of {channel.drift.height} flagged):")
    for row in flagged.iter_rows(named=True):
        judged = f"; judged {row['judge']}: {row['rationale']}" if row["judge"] else ""
        lines.append(f"- {row['session']}: deviation {row['deviation']:.2f} (threshold {row['threshold']:.2f}), "
                     f"{_shifted(row)}{judged}")
    lines += _least_typical(channel)
    sizes = Counter(channel.episode_clusters)
    recurring = [c for c, n in sizes.most_common() if n >= 2][:5]
    if recurring:
        lines.append("Recurring episode patterns:")
    for c in recurring:
        members = [ep for ep, lab in zip(channel.episodes, channel.episode_clusters, strict=True) if lab == c]
        titles = Counter(ep.title for ep in members).most_common(2)
        sessions = len({ep.session for ep in members})
        lines.append(f"- {len(members)} episodes in {sessions} sessions, e.g. " + "; ".join(t for t, _ in titles))
    picks = _cosine_top(channel.embeddings, query_vec, knobs.top_episodes)
    sources: list[str] = []
    if picks:
        lines.append(f"Most relevant episodes (top {len(picks)} of {len(channel.episodes)}):")
    for i in picks:
        ep = channel.episodes[i]
        lines.append(f"- [{ep.session}, episode {ep.index + 1}] {ep.title}: {_cut(ep.narrative, knobs.display_chars)}")
        sources.extend(ep.event_ids)
    return "\n".join(lines), sources


def _least_typical(channel: EpisodicChannel) -> list[str]:
    """The sessions that deviate most, flagged or not, with what is unusual in them (>= 3 sessions)."""
    ranked = channel.drift.sort("deviation", descending=True)
    if ranked.height < 3:
        return []
    lines = ["Sessions least like this user's usual behaviour (most deviating first):"]
    for rank, row in enumerate(ranked.head(UNUSUAL_SHOWN).iter_rows(named=True), 1):
        z = channel.session_z.get(row["session"], {})
        unusual = ", ".join(f"{f} {'above' if z.get(f, 0) > 0 else 'below'} usual ({z.get(f, 0):+.1f} sd; "
                            f"{DIMENSION_GLOSS[FEATURE_DIMENSION[f]]})" for f in row["shifted_features"]
                            if f in FEATURE_DIMENSION)
        actions = _actions(row)
        where = "above" if row["flagged"] else "below"
        lines.append(f"- {row['session']}: rank {rank} of {ranked.height}, deviation {row['deviation']:.2f} ({where} "
                     f"the flag threshold); unusual in {unusual or actions or 'nothing in particular'}"
                     + (f"; unusual actions {actions}" if unusual and actions else ""))
    return lines


def _actions(row: dict) -> str:
    """The habit model's unusual actions of a drift row (`drift.with_habit`), as 'kind with tool on type'."""
    tokens = row.get("unusual_actions") or [f for f in row["shifted_features"] if f not in FEATURE_DIMENSION]
    readable = []
    for token in tokens:
        kind, tool, ftype = (token.split("|") + ["-", "-"])[:3]
        readable.append(kind + (f" with {tool}" if tool != "-" else "") + (f" on .{ftype}" if ftype != "-" else ""))
    return ", ".join(readable)


def _shifted(row: dict) -> str:
    features = [f for f in row["shifted_features"] if f in FEATURE_DIMENSION]
    actions = _actions(row)
    if not actions:
        return f"shifted {', '.join(features)}"
    habit = (f"; habit surprise {row['habit_deviation']:.2f} (threshold {row['habit_threshold']:.2f})"
             if row.get("habit_flagged") else "")  # "both": flagged by the habit model, maybe not by Eq. 1
    return (f"shifted {', '.join(features)}; " if features else "") + f"unusual actions {actions}{habit}"


def build_context(query: str, channels: dict[str, Any], query_vec: np.ndarray, knobs: Knobs) -> Context:
    """The context for `query` from the consolidated channels, blocks in the fixed order."""
    targets = target_dimensions(query)
    blocks, sources = {}, []
    if "procedural" in knobs.channels:
        blocks[BLOCK_TITLES["procedural"]] = procedural_block(channels["procedural"], targets)
    if "semantic" in knobs.channels:
        text, used = semantic_block(channels["semantic"], query_vec, knobs)
        blocks[BLOCK_TITLES["semantic"]], sources = text, sources + used
    if "episodic" in knobs.channels:
        text, used = episodic_block(channels["episodic"], query_vec, knobs)
        blocks[BLOCK_TITLES["episodic"]], sources = text, sources + used
    return Context.from_blocks(blocks, sources)
