"""An event's fields, decoded from its stored JSON bytes the first time something reads them.

Loading the 640-trajectory corpus builds ~77K events; three quarters are simulation metadata that
`clean()` drops without reading a field. So a store-loaded `Event.fields` is a read-only mapping over
the event's JSON: it costs a pointer until first use, then decodes once (`fastparse.decode_fields`).
The store keeps a trajectory's events as one JSON array (`TrajectoryJSON`), cut into each event's
bytes only when a first field of the trajectory is read. A mapping compares equal to the dict the
JSON path builds, and pickles as that dict.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .fastparse import decode_fields, split_events
from .layout import StoreError


class TrajectoryJSON:
    """A trajectory's events as one JSON array, cut into each event's bytes when one is first asked for.
    `count`: how many events the array must hold (else a StoreError naming `where`, the store and trajectory)."""

    __slots__ = ("_data", "_events", "_count", "_where")

    def __init__(self, data: bytes, count: int, where: str):
        self._data, self._events, self._count, self._where = data, None, count, where

    def __getitem__(self, k: int) -> Any:
        if self._events is None:
            events = split_events(self._data)
            if len(events) != self._count:
                raise mismatch(self._where, self._count, len(events))
            self._events = events  # _data stays: a thread that saw no _events yet may still read it
        return self._events[k]


def mismatch(where: str, raw: int, found: int) -> StoreError:
    return StoreError(f"{where} has {raw} events in raw/ but {found} in json/ (rebuild the store: "
                      "update_store(corpus, rebuild=True))")


class LazyFields(Mapping):
    """LazyFields(event_json) or LazyFields(trajectory_json, k): the fields of one event."""

    __slots__ = ("_data", "_k", "_fields")

    def __init__(self, data: bytes | TrajectoryJSON, k: int | None = None):
        self._data = data
        self._k = k
        self._fields: dict[str, Any] | None = None

    @property
    def _decoded(self) -> dict[str, Any]:
        if self._fields is None:
            self._fields = decode_fields(self._data if self._k is None else self._data[self._k])
        return self._fields  # _data is kept: another thread may be between the check above and reading it

    def __getitem__(self, name: str) -> Any:
        return self._decoded[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self._decoded.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._decoded

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded)

    def __len__(self) -> int:
        return len(self._decoded)

    def items(self):  # the dict's own views: faster than Mapping's generic ones
        return self._decoded.items()

    def keys(self):
        return self._decoded.keys()

    def values(self):
        return self._decoded.values()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyFields):
            other = other._decoded
        if isinstance(other, dict):
            return self._decoded == other
        return self._decoded == dict(other.items()) if isinstance(other, Mapping) else NotImplemented

    __hash__ = None  # a mapping, like dict

    def __repr__(self) -> str:
        return repr(self._decoded)

    def __reduce__(self) -> tuple:
        return dict, (self._decoded,)
