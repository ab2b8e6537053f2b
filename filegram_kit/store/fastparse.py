"""A fast, conservative reader of events.json for the store's conversion.

`validation.parse_event` checks one Python dict at a time; at 3M events that is minutes. Here one
msgspec decoder, built from the same field table (`schema.EVENT_FIELDS`, `validation.ENVELOPE_TYPES`),
checks a whole file in C and hands back typed records (the store keeps the file's bytes as they are).

It is *conservative*: whatever it accepts, `parse_event` accepts too, with the same values; where it
is unsure it refuses, and the caller takes the exact slow path (`parse_event`), whose named errors are
the ones users see. Stricter than `parse_event` on purpose:
- an "int" must be a JSON integer an Int64 column holds (parse_event also takes 3.0 and 2**70);
- a media reference must be a non-empty string holding "/" or an object with a string "path";
- `files_opened_after` must list strings and `view_range` two integers (their frame columns' types);
- a behavioural event may hold no field outside the table (those would land in the frame's `extra`).
A metadata event may hold other fields: they are kept in its JSON bytes, which is all the store keeps.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

import msgspec

from ..traces.schema import EVENT_FIELDS, FIELD_VALUES, LEAKING_FIELDS, RETAINED_EVENT_TYPES, UNUSED_EVENT_TYPES
from ..traces.validation import ENVELOPE_TYPES

_MAX = 1.7976931348623157e308
Finite = Annotated[float, msgspec.Meta(ge=-_MAX, le=_MAX)]  # inf and nan fail the bounds
NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
Int64 = Annotated[int, msgspec.Meta(ge=-(2 ** 63), le=2 ** 63 - 1)]  # what an Int64 column holds


class PathRef(msgspec.Struct, gc=False):
    """A media reference object; only its `path` is checked here (other keys are read from the JSON bytes)."""

    path: str


_BASE: dict[str, Any] = {"str": str, "int": Int64, "num": Finite, "bool": bool, "list": list, "dict": dict,
                         "ref": Union[NonEmpty, PathRef]}  # noqa: UP007 (msgspec wants a typing.Union here)
_EXACT: dict[tuple[str, str], Any] = {("file_read", "view_range"): tuple[Int64, Int64],
                                      ("file_search", "files_opened_after"): list[str]}
_ENVELOPE = {name: kind for name, kind in ENVELOPE_TYPES.items() if name != "event_type"}  # the tag
ENVELOPE_NAMES = ("event_id", "event_type", "timestamp", "session_id", "profile_id")  # Event's attributes


def _field(event_type: str, name: str, kind: str) -> tuple:
    """(name, type) for a required field, (name, type, UNSET) for one that may be absent."""
    base = kind.strip("~?")
    kind_type = _EXACT.get((event_type, name)) or _BASE[base]
    if (event_type, name) in FIELD_VALUES:
        kind_type = Literal[tuple(sorted(FIELD_VALUES[(event_type, name)]))]
    if kind.endswith("?"):
        kind_type = Union[kind_type, None]  # noqa: UP007
    return (name, kind_type, msgspec.UNSET) if kind.startswith("~") else (name, kind_type)


def _record_type(event_type: str, spec: dict[str, str]) -> type:
    fields = [_field(event_type, n, k) for n, k in {**_ENVELOPE, **spec}.items()]
    fields.sort(key=lambda f: len(f) == 3)  # required before optional (a Struct's rule; order is not read)
    # gc=False: a record never takes part in a cycle, and a part holds ~30K of them: the cyclic collector
    # need not track (and rescan) them
    return msgspec.defstruct(event_type, fields, tag_field="event_type", tag=event_type,
                             forbid_unknown_fields=event_type in RETAINED_EVENT_TYPES, gc=False)


RECORD_TYPES: dict[str, type] = {t: _record_type(t, spec) for t, spec in
                                 {**EVENT_FIELDS, **dict.fromkeys(UNUSED_EVENT_TYPES, {})}.items()}
_TYPED = msgspec.json.Decoder(list[Union[tuple(RECORD_TYPES.values())]])  # noqa: UP007
_RAW = msgspec.json.Decoder(list[msgspec.Raw])
# a behavioural record's fields, as clean() leaves them (the generator-naming keys go)
BEHAVIOURAL_FIELDS: dict[str, tuple[str, ...]] = {
    t: tuple(n for n in RECORD_TYPES[t].__struct_fields__ if n not in ENVELOPE_NAMES and n not in LEAKING_FIELDS)
    for t in RETAINED_EVENT_TYPES}


def decode(data: bytes) -> list[Any] | None:
    """The typed records of an events.json, or None when the slow path must decide."""
    try:
        return _TYPED.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def split_events(data: bytes) -> list[Any]:
    """A JSON array of events -> each event's JSON bytes (views into `data` where msgspec reads it; a text
    only json.loads reads, with NaN or a lone surrogate say, is parsed and each event written again)."""
    try:
        return _RAW.decode(data)
    except (msgspec.DecodeError, RecursionError):
        import json

        return [json.dumps(item).encode() for item in json.loads(data)]  # ASCII: a lone surrogate is escaped


def event_type(record: Any) -> str:
    return record.__struct_config__.tag


def fields_of(record: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """The fields of a record that were present in the JSON, in `names` order."""
    out = {}
    for name in names:
        value = getattr(record, name)
        if value is not msgspec.UNSET:
            out[name] = value
    return out


def decode_json(data: bytes | str) -> Any:
    """JSON text as `json.loads` reads it: msgspec first; what it refuses (a lone surrogate, the NaN Python's
    json writes) goes to json.loads. Where both read a text they agree (tests/test_store.py checks this)."""
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        import json

        return json.loads(data if isinstance(data, (bytes, str)) else bytes(data))  # a msgspec.Raw view


def decode_fields(data: bytes) -> dict[str, Any]:
    """An event's JSON bytes -> its fields (the envelope removed), exactly as `parse_event` keeps them."""
    return {k: v for k, v in decode_json(data).items() if k not in ENVELOPE_NAMES}


def decode_summary(text: str | None) -> dict[str, Any]:
    return {} if text is None else decode_json(text)
