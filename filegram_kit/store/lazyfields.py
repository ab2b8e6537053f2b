"""An event's fields, decoded from its stored JSON bytes the first time something reads them.

Loading the 640-trajectory corpus builds ~77K events; three quarters are simulation metadata that
`clean()` drops without reading a field. So a store-loaded `Event.fields` is a read-only mapping over
the event's JSON: it costs a pointer until first use, then decodes once (`fastparse.decode_fields`).
It compares equal to the dict the JSON path builds, and pickles as that dict.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .fastparse import decode_fields


class LazyFields(Mapping):
    __slots__ = ("_data", "_fields")

    def __init__(self, data: bytes):
        self._data = data
        self._fields: dict[str, Any] | None = None

    @property
    def _decoded(self) -> dict[str, Any]:
        if self._fields is None:
            self._fields = decode_fields(self._data)
        return self._fields

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
