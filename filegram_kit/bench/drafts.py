"""A draft item (correct option first, distractors after) and the distractor rules shared by generators.

Generators write drafts; `generate.py` samples them to the paper's counts, places the correct
option at a balanced position and numbers them. Distractor personas follow the paper (§C.3):
they differ from the target in 1-2 dimensions (so they share at least 4 of 6) and, so a question
stays answerable, only in dimensions the evidence can show.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TIER_LETTERS = ("L", "M", "R")


@dataclass(frozen=True)
class Draft:
    sub_track: str
    sub_class: str
    channel: str
    profile_id: str
    inputs: tuple[str, ...]  # trajectory ids (sorted); the memory sees them anonymised
    question: str
    options: tuple[str, ...]  # correct first; empty for free-form
    reference: str = ""  # free-form items: the reference answer
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple:
        """What makes two drafts the same question (for de-duplication)."""
        return (self.sub_track, self.question, tuple(sorted(self.options)), self.inputs, self.reference)


def neighbours(tiers: dict[str, str], dims: tuple[str, ...], *, max_changes: int = 2) -> list[dict[str, str]]:
    """Every tier vector differing from `tiers` in 1..max_changes of `dims` (others unchanged), in a fixed order."""
    out = []
    for k in range(1, max_changes + 1):
        for changed in itertools.combinations(dims, k):
            alternatives = [[t for t in TIER_LETTERS if t != tiers[d]] for d in changed]
            for picks in itertools.product(*alternatives):
                out.append({**tiers, **dict(zip(changed, picks, strict=True))})
    return out


def pick(rng: np.random.Generator, pool: list, n: int) -> list:
    """n distinct elements of pool in a seeded random order (all of them when the pool is smaller)."""
    if n >= len(pool):
        order = rng.permutation(len(pool))
    else:
        order = rng.choice(len(pool), size=n, replace=False)
    return [pool[int(i)] for i in order]


def distance(a: dict[str, str], b: dict[str, str]) -> int:
    """Dimensions on which two tier vectors differ."""
    return sum(a[d] != b[d] for d in a)
