"""Natural order for ids with numbers in them: p1, p2, ..., p10, p20 (not p1, p10, p11, ..., p2).

Persona ids (`p10_silent_auditor`), task ids and sweep values are sorted this way wherever a person
reads a list of them: text order puts p10 and p11 first and 1000 before 300.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_DIGITS = re.compile(r"(\d+)")


def natural_key(value: Any) -> tuple:
    """A sort key that compares the digit runs of `str(value)` as numbers and the rest as text.

    `re.split` with a capture group puts text at even and digits at odd positions, so two keys hold the
    same type at every position and always compare."""
    parts = _DIGITS.split(str(value))
    return tuple(int(p) if i % 2 else p.casefold() for i, p in enumerate(parts)), str(value)


def natural_sorted(values: Iterable[Any]) -> list[Any]:
    """`values` in natural order (`natural_key`); ties in the key keep their text order."""
    return sorted(values, key=natural_key)
