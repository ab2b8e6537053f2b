"""A draft item (correct option first, distractors after, each with what it asserts) and helpers shared
by the generators.

Generators write drafts; `generate.py` keeps those the evidence supports, samples them to the paper's
counts, places the correct option at a balanced position and numbers them. Each option carries a
descriptor (`option_facts`: the tier, dimension, session ... it asserts) so the ideal observer and
the oracle can score it (observer.py) without parsing its words.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..llm.tasks import LETTERS
from .schema import Item

TIER_LETTERS = ("L", "M", "R")


@dataclass(frozen=True)
class Draft:
    sub_track: str
    sub_class: str
    channel: str
    profile_id: str
    inputs: tuple[str, ...]  # trajectory ids, in the order memories receive them (input_order)
    question: str
    options: tuple[str, ...]  # correct first; empty for free-form
    reference: str = ""  # free-form items: the reference answer
    metadata: dict[str, Any] = field(default_factory=dict)
    option_facts: tuple[dict[str, Any], ...] = ()  # what each option asserts, aligned with `options`
    signature: Hashable = None  # kind of option set, for key balancing (None: the design balances it)
    key_fact: Hashable = None  # the key's descriptor within `signature`
    members: tuple[Hashable, ...] = ()  # every descriptor the signature's sets contain
    rank: float = 0.0  # selection preference within a signature (lower first)
    key_index: int | None = None  # options in a fixed order (sessions by label): where the key is; None = first,
    #                               and generate.py places it at a balanced position

    @property
    def key(self) -> tuple:
        """What makes two drafts the same question (for de-duplication)."""
        return (self.sub_track, self.question, tuple(sorted(self.options)), tuple(sorted(self.inputs)),
                self.reference)

    def provisional(self) -> Item:
        """The draft as an item with the key at A (for the observer and oracle checks)."""
        meta = {**self.metadata, "option_facts": list(self.option_facts)}
        correct = LETTERS[self.key_index or 0] if self.options else self.reference
        return Item("draft", "", self.sub_track, self.sub_class, self.channel, self.profile_id, self.inputs,
                    self.question, self.options, correct, meta)


def input_order(tids: Sequence[str]) -> tuple[str, ...]:
    """A neutral order for a set of sessions: a shuffle seeded by the set itself.

    Never derived from persona or trajectory ids (sorting by id put an impostor first or last), and the
    same for every item built on the same set, so items that share inputs share one ingest (also across
    item seeds).
    """
    members = sorted(set(tids))
    salt = "\x1f".join(members).encode()
    return tuple(sorted(members, key=lambda t: hashlib.sha256(salt + b"\x00" + t.encode()).hexdigest()))


def neighbours(tiers: dict[str, str], dims: tuple[str, ...], *, max_changes: int = 2) -> list[dict[str, str]]:
    """Every tier vector differing from `tiers` in 1..max_changes of `dims` (others unchanged), in a fixed order."""
    import itertools

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
