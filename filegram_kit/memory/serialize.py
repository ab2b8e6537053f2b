"""The one anonymised text of cleaned trajectories that every baseline reads (the release's
`events_to_narrative`, written for this project).

    === Session T-05 ===
    [+0.0s] browse . (depth 0, 26 entries)
    [+2.1s] read notes/a.md (md, depth 1, lines 1-20, 1068 chars, view 1)
    [+41.3s] write create output/report.md (md, depth 1, 790 chars)
    --- content ---
    # Report ...
    --- end ---
    [+52.0s] edit output/report.md (+8 -4 lines, 4 modified, edit)
    --- diff ---
    @@ -12,10 +12,14 @@ ...
    --- end ---

A session is named by its task id only: trajectory ids, profile ids and the envelope's
session_id/profile_id name the persona and never appear. Times are seconds since the session's
first behavioural event (clean() removes session_start). A write's content and an edit's diff
(its new content when no diff was recorded) are inlined below the event's line, cut at
`max_content_chars` (-1, the release's default: never). Input must be cleaned
(`filegram_kit.clean`): simulation-metadata events are refused, not skipped.

`event_lines` keeps each event's text with its event id, so a method can chunk by events and
cite them (`Context.sources`); `serialize_session` also gives every event's character span.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..traces.cleaning import clean
from ..traces.media import MediaError
from ..traces.schema import METADATA_EVENT_TYPES, UNUSED_EVENT_TYPES, Event, Trajectory
from .base import by_identity, check_no_ground_truth, one_user

SESSION_SEPARATOR = "\n\n"
_REFUSED = frozenset(METADATA_EVENT_TYPES) | frozenset(UNUSED_EVENT_TYPES)
_MEDIA_FIELDS = frozenset({"media_ref", "media_ref_old", "media_ref_new", "media_ref_diff"})


# -- one line per event type ------------------------------------------------------------------------
def _details(*parts: str | None) -> str:
    kept = [p for p in parts if p]
    return f" ({', '.join(kept)})" if kept else ""


def _fmt(template: str, value: Any) -> str | None:
    return None if value is None else template.format(value)


def _seconds(template: str, ms: Any) -> str | None:
    return None if ms is None else template.format(f"{float(ms) / 1000:.1f}s")


def _read(f: Mapping[str, Any]) -> str:
    view = f.get("view_range")
    lines = f"lines {view[0]}-{view[1]}" if isinstance(view, list | tuple) and len(view) == 2 else None
    return f"read {f.get('file_path')}" + _details(
        f.get("file_type"), _fmt("depth {}", f.get("directory_depth")), lines,
        _fmt("{} chars", f.get("content_length")), _fmt("view {}", f.get("view_count")),
        _seconds("revisit after {}", f.get("revisit_interval_ms")))


def _search(f: Mapping[str, Any]) -> str:
    opened = f.get("files_opened_after") or []
    return f"search {f.get('search_type')} {json.dumps(f.get('query'), ensure_ascii=False)}" + _details(
        _fmt("{} matches", f.get("files_matched")), "opened " + ", ".join(map(str, opened)) if opened else None)


def _write(f: Mapping[str, Any]) -> str:
    return f"write {f.get('operation')} {f.get('file_path')}" + _details(
        f.get("file_type"), _fmt("depth {}", f.get("directory_depth")), _fmt("{} chars", f.get("content_length")))


def _edit(f: Mapping[str, Any]) -> str:
    counts = f"+{f.get('lines_added')} -{f.get('lines_deleted')} lines"
    return f"edit {f.get('file_path')}" + _details(counts, _fmt("{} modified", f.get("lines_modified")),
                                                   f.get("edit_tool"))


def _arrow(verb: str, src: str, dst: str) -> Callable[[Mapping[str, Any]], str]:
    return lambda f: f"{verb} {f.get(src) or '(none)'} -> {f.get(dst) or '(none)'}"


RENDERERS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "file_read": _read,
    "file_browse": lambda f: f"browse {f.get('directory_path')}" + _details(
        _fmt("depth {}", f.get("depth")), _fmt("{} entries", f.get("files_listed"))),
    "file_search": _search,
    "file_write": _write,
    "file_edit": _edit,
    "dir_create": lambda f: f"mkdir {f.get('dir_path')}" + _details(
        _fmt("depth {}", f.get("depth")), _fmt("{} siblings", f.get("sibling_count"))),
    "file_copy": lambda f: _arrow("copy", "source_path", "dest_path")(f) + _details(
        "backup" if f.get("is_backup") else None),
    "file_move": lambda f: _arrow("move", "old_path", "new_path")(f) + _details(
        _fmt("depth {}", f.get("destination_directory_depth"))),
    "file_delete": lambda f: f"delete {f.get('file_path')}" + _details(
        _seconds("age {}", f.get("file_age_ms")), "temporary" if f.get("was_temporary") else None),
    "file_rename": lambda f: _arrow("rename", "old_path", "new_path")(f) + _details(f.get("naming_pattern_change")),
    "cross_file_reference": lambda f: _arrow("reference", "source_file", "target_file")(f) + _details(
        f.get("reference_type"), _seconds("after {}", f.get("interval_ms"))),
    "context_switch": lambda f: _arrow("switch", "from_file", "to_file")(f) + _details(
        f.get("trigger"), _fmt("switch {}", f.get("switch_count"))),
}


def _generic(event: Event) -> str:
    """An event type with no renderer: its scalar fields as key=value, sorted (media refs left out)."""
    shown = [f"{k}={v}" for k, v in sorted(event.fields.items())
             if k not in _MEDIA_FIELDS and isinstance(v, str | int | float | bool)]
    return event.event_type + _details(*shown)


# -- inlined content -----------------------------------------------------------------------------------
def _content_ref(event: Event) -> tuple[str, str] | None:
    """(kind, field) of the media an event's line is followed by, or None."""
    if event.event_type == "file_write" and event.fields.get("media_ref") is not None:
        return "content", "media_ref"
    if event.event_type == "file_edit":
        if event.fields.get("media_ref_diff") is not None:
            return "diff", "media_ref_diff"
        if event.fields.get("media_ref_new") is not None:
            return "content after edit", "media_ref_new"
    return None


def _content_block(traj: Trajectory, index: int, event: Event, max_content_chars: int) -> str:
    found = _content_ref(event)
    if found is None:
        return ""
    kind, name = found
    try:
        text = traj.content(event.fields[name]).rstrip("\n")
    except LookupError as exc:  # MediaError, or no media store at all
        raise MediaError(f"{traj.id}: event {index} ({event.event_type}): field {name!r}: {exc}") from None
    if 0 <= max_content_chars < len(text):
        text = f"{text[:max_content_chars]}\n[... {len(text) - max_content_chars} more characters cut]"
    return f"\n--- {kind} ---\n{text}\n--- end ---"


# -- trajectories ----------------------------------------------------------------------------------------
def event_lines(traj: Trajectory, *, max_content_chars: int = -1) -> list[tuple[str, str]]:
    """(text, event_id) per event, in order: the event's line, then its inlined content if any (made once per
    trajectory object and cut: the memories of a benchmark serialise the same input objects)."""
    made = _lines_made(traj)
    if max_content_chars not in made:
        made[max_content_chars] = tuple(_event_lines(traj, max_content_chars))
    return list(made[max_content_chars])


@by_identity
def _lines_made(traj: Trajectory) -> dict[int, tuple[tuple[str, str], ...]]:
    return {}


def _event_lines(traj: Trajectory, max_content_chars: int) -> list[tuple[str, str]]:
    if not traj.events:
        return []
    start = traj.events[0].timestamp
    out = []
    for index, event in enumerate(traj.events):
        if event.event_type in _REFUSED:
            raise ValueError(f"{traj.id}: event {index} ({event.event_type}) is simulation metadata; "
                             "serialise cleaned trajectories (filegram_kit.clean)")
        render = RENDERERS.get(event.event_type)
        line = render(event.fields) if render else _generic(event)
        seconds = (event.timestamp - start) / 1000
        out.append((f"[+{seconds:.1f}s] {line}{_content_block(traj, index, event, max_content_chars)}",
                    event.event_id))
    return out


@dataclass(frozen=True)
class Session:
    """One trajectory's serialisation, with the character span of each event's text in it."""

    label: str
    text: str
    spans: tuple[tuple[int, int, str], ...]  # (start, end, event_id), in event order

    def events_in(self, start: int, end: int) -> list[str]:
        """Event ids whose text overlaps characters [start, end)."""
        return [eid for a, b, eid in self.spans if a < end and b > start]


def session_name(label: str) -> str:
    """'Session T-05' for a task id; a harness label ('Session 5 (T-11)') already says what it is."""
    return label if label.lower().startswith("session") else f"Session {label}"


def header(label: str) -> str:
    return f"=== {session_name(label)} ==="


def serialize_session(traj: Trajectory, *, label: str | None = None, max_content_chars: int = -1) -> Session:
    label = label or traj.task_id or "untitled"
    text, spans = header(label), []
    for body, event_id in event_lines(traj, max_content_chars=max_content_chars):
        text += "\n"
        spans.append((len(text), len(text) + len(body), event_id))
        text += body
    return Session(label, text, tuple(spans))


def serialize_trajectory(traj: Trajectory, *, max_content_chars: int = -1) -> str:
    """The header naming the session by its task id, then one line (plus content) per event."""
    return serialize_session(traj, max_content_chars=max_content_chars).text


def session_label(traj: Trajectory, position: int) -> str:
    """The name memory text gives one session: the label the harness gave it (what an item's options call it),
    with its task id beside it where known ("Session 5 (T-11)"); else its task id; else S<position>."""
    if traj.label:
        return f"{traj.label} ({traj.task_id})" if traj.task_id and traj.task_id not in traj.label else traj.label
    return traj.task_id or f"S{position}"


def session_labels(trajs: Iterable[Trajectory]) -> list[str]:
    """Every method's names for its sessions, in order (`session_label`); a repeated one gets ' #2', ' #3', ...
    The one rule all memories follow, so a reader can map what a memory says about a session to an option."""
    seen: Counter[str] = Counter()
    labels = []
    for position, traj in enumerate(trajs, start=1):
        base = session_label(traj, position)
        seen[base] += 1
        labels.append(base if seen[base] == 1 else f"{base} #{seen[base]}")
    return labels


def serialize_sessions(trajs: Iterable[Trajectory], *, max_content_chars: int = -1) -> list[Session]:
    items = list(trajs)
    return [serialize_session(t, label=label, max_content_chars=max_content_chars)
            for t, label in zip(items, session_labels(items), strict=True)]


def serialize(trajs: Iterable[Trajectory], *, max_content_chars: int = -1) -> str:
    """All sessions in the given order, separated by a blank line."""
    return SESSION_SEPARATOR.join(s.text for s in serialize_sessions(trajs, max_content_chars=max_content_chars))


def prepare(trajs: Iterable[Trajectory]) -> tuple[str | None, list[Trajectory]]:
    """What every baseline's ingest starts with: the ground-truth guard, the one-user check, clean()."""
    items = check_no_ground_truth(trajs)
    user = one_user(items)
    return user, cleaned(items)


def cleaned(trajs: Iterable[Trajectory]) -> list[Trajectory]:
    """clean()'s copies, one per live trajectory object: the 13 memories of a benchmark ingest the same input
    objects, and cleaning (a pass over every event's fields) is then done once, not once per memory."""
    return [_cleaned_copy(t) for t in trajs]


@by_identity
def _cleaned_copy(traj: Trajectory) -> Trajectory:
    return clean(traj).trajectories[0]


def check_content_chars(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        raise ValueError(f"max_content_chars must be -1 (no truncation) or an int >= 0, got {value!r}")
    return value
