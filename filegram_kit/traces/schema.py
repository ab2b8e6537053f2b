"""The data model every part of the workbench stands on.

Six behavioral dimensions with L/M/R tiers (paper Table 2), the 19 profile attributes
(paper Table 8), the 22 raw event types of the engine with their fields (spec 4.3), and
the typed records `Profile`, `Task`, `Event` and `Trajectory`.

Dimension E is *Curation* (paper Table 2, project decision 1); the engine's older
"work rhythm" reading of E survives only as the `working_style` attribute.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any


class Tier(StrEnum):
    """A position on a dimension's Left–Middle–Right scale."""

    L = "L"
    M = "M"
    R = "R"

    @property
    def index(self) -> int:
        """0, 1, 2 for L, M, R: the ordinal used for distances and heatmaps."""
        return "LMR".index(self.value)

    @classmethod
    def parse(cls, value: str | Tier) -> Tier:
        try:
            return cls(str(value.value if isinstance(value, Tier) else value).upper())
        except ValueError:
            raise ValueError(f"tier must be one of L, M, R; got {value!r}") from None


TIERS: tuple[Tier, ...] = (Tier.L, Tier.M, Tier.R)


@dataclass(frozen=True)
class Dimension:
    code: str
    name: str
    tiers: Mapping[Tier, str]  # tier -> description (paper Table 2)
    labels: Mapping[Tier, str]  # tier -> short machine label (release profile matrix)

    def describe(self, tier: Tier | str) -> str:
        return self.tiers[Tier.parse(tier)]


def _dim(code: str, name: str, descriptions: tuple[str, str, str], labels: tuple[str, str, str]) -> Dimension:
    return Dimension(code, name, dict(zip(TIERS, descriptions, strict=True)), dict(zip(TIERS, labels, strict=True)))


DIMENSIONS: dict[str, Dimension] = {
    d.code: d
    for d in (
        _dim("A", "Consumption Pattern", ("Sequential deep reading", "Targeted search-first", "Breadth-first browsing"),
             ("sequential", "targeted", "breadth_first")),
        _dim("B", "Production Style", ("Comprehensive & detailed", "Balanced", "Minimal & concise"),
             ("comprehensive", "balanced", "minimal")),
        _dim("C", "Organization Preference", ("Deeply nested (3+ levels)", "Adaptive (1–2 levels)", "Flat (root only)"),
             ("deeply_nested", "adaptive", "flat")),
        _dim("D", "Iteration Strategy", ("Incremental small edits", "Balanced refinement", "Bulk rewrite"),
             ("incremental", "balanced", "rewrite")),
        _dim("E", "Curation", ("Selective (active cleanup)", "Pragmatic (moderate cleanup)",
                               "Preservative (accumulative)"),
             ("selective", "pragmatic", "preservative")),
        _dim("F", "Cross-Modal Behavior", ("Visual-heavy (charts, figures)", "Balanced (tables)", "Text-only"),
             ("visual_heavy", "balanced", "text_only")),
    )
}
DIMENSION_CODES: tuple[str, ...] = tuple(DIMENSIONS)


@dataclass(frozen=True)
class Attribute:
    name: str
    dimensions: tuple[str, ...]  # () for identity attributes
    tiers: Mapping[Tier, str]  # empty for identity attributes
    description: str = ""

    @property
    def is_identity(self) -> bool:
        return not self.dimensions


def _attr(name: str, dims: str, l: str, m: str, r: str) -> Attribute:  # noqa: E741 - L/M/R columns
    return Attribute(name, tuple(dims.split(",")), dict(zip(TIERS, (l, m, r), strict=True)))


# Paper Table 8: 3 identity + 16 behavioral attributes; version_strategy belongs to both C and D.
ATTRIBUTES: dict[str, Attribute] = {
    a.name: a
    for a in (
        Attribute("name", (), {}, "Free-form display name"),
        Attribute("role", (), {}, "Professional role"),
        Attribute("language", (), {}, "Primary output language"),
        _attr("reading_strategy", "A", "Sequential deep", "Search-first", "Breadth-first"),
        _attr("thoroughness", "A", "Exhaustive", "Selective", "Minimal"),
        _attr("tone", "B", "Formal, academic", "Professional", "Casual"),
        _attr("output_detail", "B", "Comprehensive", "Balanced", "Concise"),
        _attr("output_structure", "B", "Highly structured", "Moderate", "Free-form"),
        _attr("documentation", "B", "Extensive", "Moderate", "Minimal"),
        _attr("directory_style", "C", "Nested, 3+ levels", "Adaptive, 1–2", "Flat, root only"),
        _attr("naming", "C", "Systematic", "Semi-structured", "Ad-hoc"),
        _attr("version_strategy", "C,D", "Explicit v1/v2", "Backup copies", "In-place overwrite"),
        _attr("edit_strategy", "D", "Incremental edits", "Balanced", "Bulk rewrite"),
        _attr("error_handling", "D", "Cautious, backup", "Selective backup", "Direct, no backup"),
        _attr("revision_depth", "D", "Multi-pass", "Two-pass", "Single-pass"),
        _attr("working_style", "E", "Phased, methodical", "Pragmatic", "Burst-mode"),
        _attr("cleanup_policy", "E", "Aggressive cleanup", "Periodic archival", "Never delete"),
        _attr("cross_modal", "F", "Visual-heavy", "Balanced", "Text-only"),
        _attr("output_modality", "F", "Multi-format", "Dual-format", "Single-format"),
    )
}
IDENTITY_ATTRIBUTES: tuple[str, ...] = tuple(a.name for a in ATTRIBUTES.values() if a.is_identity)
BEHAVIORAL_ATTRIBUTES: tuple[str, ...] = tuple(a.name for a in ATTRIBUTES.values() if not a.is_identity)


# ---------------------------------------------------------------------------------------------
# Events (spec 4.2-4.3). A field type is one of: str int num bool list dict ref (a media reference:
# dict {type, hash, path} or a string). A trailing "?" allows null; a leading "~" allows absence.

ENVELOPE_FIELDS: tuple[str, ...] = (
    "event_id", "event_type", "timestamp", "session_id", "profile_id", "message_id", "model_provider", "model_name",
)
LEAKING_FIELDS: tuple[str, ...] = ("message_id", "model_provider", "model_name")  # name the generator LLM

EVENT_FIELDS: dict[str, dict[str, str]] = {
    # -- behavioral: the 12 retained atomic actions (paper Table 5) --
    "file_read": {"file_path": "str", "file_type": "str", "directory_depth": "int", "view_count": "int",
                  "view_range": "list?", "content_length": "int", "revisit_interval_ms": "num?"},
    "file_browse": {"directory_path": "str", "files_listed": "int", "depth": "int"},
    "file_search": {"search_type": "str", "query": "str", "files_matched": "int", "files_opened_after": "list"},
    "file_write": {"file_path": "str", "file_type": "str", "directory_depth": "int", "operation": "str",
                   "content_length": "int", "before_hash": "str?", "after_hash": "str?", "media_ref": "~ref?"},
    "file_edit": {"file_path": "str", "file_type": "str", "edit_tool": "str", "lines_added": "int",
                  "lines_deleted": "int", "lines_modified": "int", "diff_summary": "str", "before_hash": "str?",
                  "after_hash": "str?", "media_ref_old": "~ref?", "media_ref_new": "~ref?", "media_ref_diff": "~ref?"},
    "dir_create": {"dir_path": "str", "depth": "int", "sibling_count": "int"},
    "file_copy": {"source_path": "str", "dest_path": "str", "is_backup": "bool"},
    "file_move": {"old_path": "str", "new_path": "str", "destination_directory_depth": "int"},
    "file_delete": {"file_path": "str", "file_age_ms": "num?", "was_temporary": "bool"},
    "file_rename": {"old_path": "str", "new_path": "str", "naming_pattern_change": "str"},
    "cross_file_reference": {"source_file": "str", "target_file": "str", "reference_type": "str",
                             "interval_ms": "num"},
    "context_switch": {"from_file": "str?", "to_file": "str", "trigger": "str", "switch_count": "int"},
    # -- simulation metadata: the 10 types clean() removes (74.3% of raw events in the release) --
    "tool_call": {"tool_name": "str", "tool_parameters": "dict", "execution_time_ms": "num", "success": "bool",
                  "error_type": "str?", "error_message": "str?", "retry_count": "int", "sequence_position": "int"},
    "llm_response": {"response_time_ms": "num", "input_tokens": "int", "output_tokens": "int",
                     "has_reasoning": "bool", "stop_reason": "str"},
    "iteration_start": {"iteration_number": "int"},
    "iteration_end": {"iteration_number": "int", "duration_ms": "num", "tools_called": "int",
                      "has_tool_error": "bool"},
    "fs_snapshot": {"file_count_by_type": "dict", "max_depth": "int", "total_files": "int", "media_ref": "~ref?"},
    "session_start": {"target_directory": "str"},
    "session_end": {"total_iterations": "int", "total_tool_calls": "int", "duration_ms": "num"},
    "error_encounter": {"error_type": "str", "context": "str", "severity": "str", "tool_name": "str?",
                        "file_path": "str?"},
    "error_response": {"strategy": "str", "latency_ms": "num", "error_event_id": "str?",
                       "resolution_successful": "bool"},
    "compaction_triggered": {"reason": "str", "messages_before": "int", "messages_after": "int",
                             "tokens_saved": "int"},
}
EVENT_TYPES: tuple[str, ...] = tuple(EVENT_FIELDS)
RETAINED_EVENT_TYPES: tuple[str, ...] = EVENT_TYPES[:12]
METADATA_EVENT_TYPES: tuple[str, ...] = EVENT_TYPES[12:]
# Defined by the release's engine but never emitted; accepted on load and removed by clean().
UNUSED_EVENT_TYPES: tuple[str, ...] = ("todo_created", "todo_status_change")

EVENT_CATEGORY: dict[str, str] = {
    **dict.fromkeys(("file_read", "file_browse", "file_search"), "read"),
    **dict.fromkeys(("file_write", "file_edit"), "write"),
    **dict.fromkeys(("dir_create", "file_copy", "file_move", "file_delete", "file_rename"), "organize"),
    **dict.fromkeys(("cross_file_reference", "context_switch"), "flow"),
    **dict.fromkeys(METADATA_EVENT_TYPES + UNUSED_EVENT_TYPES, "metadata"),
}
# Closed vocabularies the engine writes; anything else is a malformed event.
FIELD_VALUES: dict[tuple[str, str], frozenset[str]] = {
    ("file_write", "operation"): frozenset({"create", "overwrite"}),
    ("file_search", "search_type"): frozenset({"grep", "glob", "codesearch"}),
    ("cross_file_reference", "reference_type"): frozenset(
        {"read_then_edit", "search_then_read", "sequential_access", "import"}),
}
MEDIA_REF_FIELDS: tuple[str, ...] = ("media_ref", "media_ref_old", "media_ref_new", "media_ref_diff")
BACKUP_EXTENSIONS = frozenset({".bak", ".backup", ".orig", ".old", ".save"})
TEMPORARY_EXTENSIONS = frozenset({".tmp", ".temp", ".bak", ".swp", ".swo", ".pyc", ".o", ".log"})


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class Profile:
    """A persona: identity, one tier per dimension, one tier per behavioral attribute."""

    id: str
    name: str
    role: str
    language: str  # "English" | "Chinese" (the language the persona writes in)
    tiers: Mapping[str, Tier]  # dimension code -> tier
    attributes: Mapping[str, Tier]  # behavioral attribute -> tier
    synthetic: bool = False

    def __hash__(self) -> int:  # the tier maps are dicts; identity is the id
        return hash(self.id)

    @property
    def vector(self) -> str:
        """Compact tier string in dimension order, e.g. 'LLLLLM'."""
        return "".join(self.tiers[d].value for d in DIMENSION_CODES)

    @property
    def lang(self) -> str:
        return "zh" if self.language.lower().startswith("chinese") else "en"

    def differing_dimensions(self, other: Profile) -> tuple[str, ...]:
        return tuple(d for d in DIMENSION_CODES if self.tiers[d] != other.tiers[d])

    def ordinal_distance(self, other: Profile) -> int:
        """Sum over dimensions of |tier index difference| (L->R counts 2)."""
        return sum(abs(self.tiers[d].index - other.tiers[d].index) for d in DIMENSION_CODES)


@dataclass(frozen=True)
class Task:
    id: str  # "T-01"
    type: str  # understand | create | organize | synthesize | iterate | maintain
    multimodal: bool
    description: str
    dims_full: tuple[str, ...]  # activated in >= 70% of profiles (paper Table 10)
    dims_partial: tuple[str, ...]  # activated in 30-69%
    input_files: Mapping[str, int]  # extension -> count
    prompt_en: str
    prompt_zh: str

    def __hash__(self) -> int:
        return hash(self.id)

    @property
    def dims(self) -> tuple[str, ...]:
        """Every dimension the task activates, fully or partially."""
        return self.dims_full + self.dims_partial

    def activation(self, dim: str) -> str:
        """How the task activates a dimension: "full", "partial" or "none" (the engine's expression levels)."""
        return "full" if dim in self.dims_full else "partial" if dim in self.dims_partial else "none"

    @property
    def n_inputs(self) -> int:
        return sum(self.input_files.values())

    def prompt_for(self, profile: Profile | str) -> str:
        """The prompt in the persona's language (Chinese personas get the Chinese prompt)."""
        lang = profile.lang if isinstance(profile, Profile) else profile
        return self.prompt_zh if lang == "zh" else self.prompt_en


@dataclass(frozen=True)
class Event:
    """One recorded event: the envelope as attributes, the type-specific fields in `fields`."""

    event_id: str
    event_type: str
    timestamp: float  # epoch milliseconds
    session_id: str | None = None
    profile_id: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.event_id, self.event_type, self.timestamp))

    @property
    def category(self) -> str:
        return EVENT_CATEGORY.get(self.event_type, "unknown")

    @property
    def is_behavioral(self) -> bool:
        return self.event_type in RETAINED_EVENT_TYPES

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]

    def to_dict(self) -> dict[str, Any]:
        """The events.json object: envelope first, then the fields in their recorded order."""
        head = {"event_id": self.event_id, "event_type": self.event_type, "timestamp": self.timestamp}
        if self.session_id is not None:
            head["session_id"] = self.session_id
        if self.profile_id is not None:
            head["profile_id"] = self.profile_id
        return {**head, **self.fields}


@dataclass(frozen=True)
class Trajectory:
    """One persona doing one task: its events, run summary and a resolver for blob/diff content."""

    id: str  # "{profile_id}_{task_id}", the release's directory name
    events: tuple[Event, ...]
    profile_id: str | None = None
    task_id: str | None = None
    summary: Mapping[str, Any] = field(default_factory=dict)
    media: Any = None  # filegram_kit.traces.media.MediaStore, or None when the trajectory has no media
    source: Path | None = None  # directory it was loaded from
    label: str | None = None  # the name a benchmark gives this session (what its options call it: "Session 3")

    def __hash__(self) -> int:
        return hash(self.id)

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def content(self, ref: Any) -> str:
        """Text behind a media reference (a blob's full content or a diff)."""
        if self.media is None:
            raise LookupError(f"trajectory {self.id} has no media store")
        return self.media.read(ref)

    def count(self, event_type: str) -> int:
        return sum(e.event_type == event_type for e in self.events)
