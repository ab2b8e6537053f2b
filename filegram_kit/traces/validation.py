"""Turn one raw events.json object into a typed `Event`, or say exactly what is wrong with it.

Field types come from `schema.EVENT_FIELDS`. Unknown extra fields are kept (nothing is lost);
missing or mistyped known fields, unknown event types and values outside a closed vocabulary
raise `TraceError` naming the file, the event index and the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .schema import EVENT_FIELDS, FIELD_VALUES, UNUSED_EVENT_TYPES, Event

ENVELOPE_TYPES = {"event_id": "str", "event_type": "str", "timestamp": "num", "session_id": "~str?",
                  "profile_id": "~str?", "message_id": "~str?", "model_provider": "~str?", "model_name": "~str?"}
_ENVELOPE_ATTRS = ("event_id", "event_type", "timestamp", "session_id", "profile_id")


class TraceError(ValueError):
    """Malformed trajectory input. Attributes: file, event_index (or None), field (or None), reason."""

    def __init__(self, file: str | Path, reason: str, *, event_index: int | None = None, field: str | None = None):
        self.file, self.event_index, self.field, self.reason = str(file), event_index, field, reason
        where = [self.file]
        if event_index is not None:
            where.append(f"event {event_index}")
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(": ".join([*where, reason]))


@dataclass(frozen=True)
class Quarantined:
    """An event (or a whole file, event_index None) that was set aside instead of loaded."""

    file: str
    event_index: int | None
    field: str | None
    reason: str
    event_type: str | None = None

    @classmethod
    def from_error(cls, err: TraceError, event_type: str | None = None) -> Quarantined:
        return cls(err.file, err.event_index, err.field, err.reason, event_type)


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


_CHECKS = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "num": lambda v: isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "ref": lambda v: (isinstance(v, str) and bool(v))
    or (isinstance(v, dict) and (isinstance(v.get("path"), str) or isinstance(v.get("hash"), str))),
}
_EXPECTED = {"num": "a finite number", "ref": "a media reference", "int": "an integer"}


def _compile(kind: str) -> tuple[str, bool, bool]:
    """'~ref?' -> ('ref', may be absent, may be null)."""
    return kind.strip("~?"), kind.startswith("~"), kind.endswith("?")


def check_value(kind: str, value: Any) -> str | None:
    """None if `value` fits the field type `kind` (see schema), else the reason it does not."""
    base, _, nullable = _compile(kind)
    if (value is None and nullable) or _CHECKS[base](value):
        return None
    return f"expected {_EXPECTED.get(base, base)}, got {_type_name(value)} {value!r:.60}"


_SPECS = {t: [(name, *_compile(kind)) for name, kind in spec.items()]
          for t, spec in {**EVENT_FIELDS, "__envelope__": ENVELOPE_TYPES}.items()}


def _check_fields(raw: dict, spec_key: str, index: int, file: str) -> None:
    for name, base, optional, nullable in _SPECS.get(spec_key, ()):
        if name not in raw:
            if optional:
                continue
            raise TraceError(file, "required field is missing", event_index=index, field=name)
        value = raw[name]
        if (value is None and nullable) or _CHECKS[base](value):
            continue
        raise TraceError(file, f"expected {_EXPECTED.get(base, base)}, got {_type_name(value)} {value!r:.60}",
                         event_index=index, field=name)


def parse_event(raw: Any, index: int, file: str | Path) -> Event:
    """Validate one raw event and build the typed record."""
    file = str(file)
    if not isinstance(raw, dict):
        raise TraceError(file, f"expected an event object, got {_type_name(raw)}", event_index=index)
    event_type = raw.get("event_type")
    if not isinstance(event_type, str) or (event_type not in EVENT_FIELDS and event_type not in UNUSED_EVENT_TYPES):
        reason = ("required field is missing" if "event_type" not in raw
                  else f"unknown event type {event_type!r:.60}" if isinstance(event_type, str)
                  else f"expected str, got {_type_name(event_type)} {event_type!r:.60}")
        raise TraceError(file, reason, event_index=index, field="event_type")
    _check_fields(raw, "__envelope__", index, file)
    _check_fields(raw, event_type, index, file)
    for (etype, name), allowed in FIELD_VALUES.items():
        if etype == event_type and raw[name] not in allowed:
            raise TraceError(file, f"{raw[name]!r} is not one of {sorted(allowed)}", event_index=index, field=name)
    if event_type == "file_read" and raw["view_range"] is not None:
        vr = raw["view_range"]
        if len(vr) != 2 or any(check_value("int", v) for v in vr):
            raise TraceError(file, f"expected [start, end] integers, got {vr!r:.60}", event_index=index,
                             field="view_range")
    fields = {k: v for k, v in raw.items() if k not in _ENVELOPE_ATTRS}
    return Event(raw["event_id"], event_type, float(raw["timestamp"]), raw.get("session_id"), raw.get("profile_id"),
                 fields)
