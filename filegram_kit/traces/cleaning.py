"""clean(): raw engine output -> the behavioral traces memory systems may see (paper §3.2, Table 5).

Three steps, each counted in a `CleanReport`:
1. drop the 10 simulation-metadata event types (and the 2 unused todo types);
2. strip the fields that name the generator LLM (message_id, model_provider, model_name), from
   events and from summary.json;
3. anonymise sandbox paths: '.../sandbox/<profile>_<task>/notes/a.md' -> 'notes/a.md' (and the
   sandbox root itself -> '.'), in every string field, list of strings and media manifest entry,
   and in the media text itself as it is read (diff headers name the sandbox path; the files on
   disk keep their bytes and names, so references still resolve).

Envelope `profile_id`/`session_id` stay so trajectories can be grouped; text serialisations for
memory systems must leave them out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import polars as pl

from .schema import (
    EVENT_CATEGORY,
    EVENT_TYPES,
    LEAKING_FIELDS,
    METADATA_EVENT_TYPES,
    UNUSED_EVENT_TYPES,
    Trajectory,
)

_STOP = r"\s\"'`<>|()\[\]{},;"
_SANDBOX = re.compile(rf"(?<![^{_STOP}])(?:[^{_STOP}]*?[/\\])?sandbox[/\\][^/\\{_STOP}]+(?P<sep>[/\\])?")
_DROPPED = frozenset(METADATA_EVENT_TYPES) | frozenset(UNUSED_EVENT_TYPES)


def anonymise_path(text: str) -> tuple[str, int]:
    """Remove sandbox prefixes from `text`; returns the new text and how many were removed."""
    if "sandbox" not in text:
        return text, 0
    return _SANDBOX.subn(lambda m: "" if m["sep"] else ".", text)


def _anonymise_value(value: Any) -> tuple[Any, int]:
    if isinstance(value, str):
        return anonymise_path(value)
    if isinstance(value, list) and any(isinstance(v, str) for v in value):
        pairs = [anonymise_path(v) if isinstance(v, str) else (v, 0) for v in value]
        return [v for v, _ in pairs], sum(n for _, n in pairs)
    return value, 0


@dataclass
class CleanReport:
    """What clean() did, per event type."""

    trajectories: int = 0
    kept: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    stripped_fields: int = 0
    anonymised_paths: int = 0

    @property
    def raw_total(self) -> int:
        return sum(self.kept.values()) + sum(self.dropped.values())

    @property
    def metadata_share(self) -> float:
        """Share of raw events that were simulation metadata (the release: 74.3%)."""
        return sum(self.dropped.values()) / max(self.raw_total, 1)

    def to_frame(self) -> pl.DataFrame:
        types = [t for t in (*EVENT_TYPES, *UNUSED_EVENT_TYPES) if self.kept[t] or self.dropped[t]]
        return pl.DataFrame({
            "event_type": types,
            "category": [EVENT_CATEGORY[t] for t in types],
            "kept": [self.kept[t] for t in types],
            "dropped": [self.dropped[t] for t in types],
        }, schema={"event_type": pl.String, "category": pl.String, "kept": pl.Int64, "dropped": pl.Int64})

    def __str__(self) -> str:
        kept, dropped = sum(self.kept.values()), sum(self.dropped.values())
        return (f"{self.trajectories} trajectories: kept {kept} behavioral events, dropped {dropped} metadata events "
                f"({self.metadata_share:.1%} of {self.raw_total}); stripped {self.stripped_fields} generator fields; "
                f"anonymised {self.anonymised_paths} sandbox paths")


class Cleaned(NamedTuple):
    trajectories: list[Trajectory]
    report: CleanReport


def _clean_fields(fields: Any, report: CleanReport) -> dict[str, Any]:
    """Drop the generator-naming keys and anonymise paths in every value (events and summary.json)."""
    out = {}
    for name, value in fields.items():
        if name in LEAKING_FIELDS:
            report.stripped_fields += 1
            continue
        out[name], n = _anonymise_value(value)
        report.anonymised_paths += n
    return out


def _clean_media(traj: Trajectory, report: CleanReport) -> Any:
    if traj.media is None:
        return None
    entries = {}
    for digest, entry in traj.media.entries.items():
        original, n = _anonymise_value(entry.get("original_path", ""))
        report.anonymised_paths += n
        entries[digest] = {**entry, "original_path": original}
    return traj.media.view(entries, transform=lambda text: anonymise_path(text)[0])


def _fields_clean(fields: Any) -> bool:
    """True when cleaning would not change these fields (no generator keys, no sandbox path)."""
    for name, value in fields.items():
        if name in LEAKING_FIELDS:
            return False
        if isinstance(value, str) and "sandbox" in value:
            return False
        if isinstance(value, list) and any(isinstance(v, str) and "sandbox" in v for v in value):
            return False
    return True


def _media_clean(media: Any) -> bool:
    """No media, or a store (or merged stores) already reading through clean()'s anonymising view."""
    if media is None:
        return True
    stores = getattr(media, "stores", None)
    return all(map(_media_clean, stores)) if stores is not None else getattr(media, "_transform", None) is not None


def _clean_one(traj: Trajectory, report: CleanReport) -> Trajectory:
    if all(e.event_type not in _DROPPED and _fields_clean(e.fields) for e in traj.events):
        report.kept.update(e.event_type for e in traj.events)  # already clean: events kept as they are
        report.trajectories += 1
        if _fields_clean(traj.summary) and _media_clean(traj.media):
            return traj  # cleaning it again changes nothing: the same object (memories cache by it)
        return replace(traj, summary=_clean_fields(traj.summary, report), media=_clean_media(traj, report))
    events = []
    for event in traj.events:
        if event.event_type in _DROPPED:
            report.dropped[event.event_type] += 1
            continue
        report.kept[event.event_type] += 1
        events.append(replace(event, fields=_clean_fields(event.fields, report)))
    report.trajectories += 1
    return replace(traj, events=tuple(events), summary=_clean_fields(traj.summary, report),
                   media=_clean_media(traj, report))


def clean(trajs: Trajectory | Iterable[Trajectory]) -> Cleaned:
    """Cleaned copies of the trajectories (inputs untouched) and the report of what was removed."""
    items = [trajs] if isinstance(trajs, Trajectory) else list(trajs)
    report = CleanReport()
    return Cleaned([_clean_one(t, report) for t in items], report)
