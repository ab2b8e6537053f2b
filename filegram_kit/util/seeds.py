"""The one stable seed: a hash of the parts' text, the same in every process and on every machine (Python's
`hash` is salted per process), so a persona's or a task's random draws never depend on who else is drawn."""

from __future__ import annotations

import hashlib


def stable_seed(*parts: object, bits: int = 64) -> int:
    """The first `bits` bits of the sha256 of the parts joined by \\x1f, as an unsigned int."""
    if bits % 8 or not 8 <= bits <= 256:
        raise ValueError(f"bits must be a multiple of 8 between 8 and 256, got {bits}")
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[: bits // 8], "big")
