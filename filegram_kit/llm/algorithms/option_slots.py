"""What sets options apart: options that repeat the same clauses are split into the slots where they differ.

A person reading

    reading: sequential deep reading; writing: minimal and concise; modality: tables
    reading: sequential deep reading; writing: comprehensive and detailed; modality: text-only

sees two questions, "writing: minimal or comprehensive?" and "modality: tables or text-only?", and no question
about reading. `option_slots` finds that structure from the option texts alone (no template knowledge):

1. Each option is cut into clauses at strong breaks (";", "(", ")", "->", "whereas", "while", "but", "then",
   a sentence end). When every option has the same number of clauses, clause k of each
   option is read as one column (the k-th thing each option says); otherwise the whole option is one column.
2. A column's clauses are cut into pieces at weak breaks ("," "and" "or"). A piece's signature is the set of
   options whose column holds it. Consecutive pieces with the same signature form one value ("reads files in
   full, often going back" stays together), and a value every option holds is shared: it tells nothing apart.
3. The values are grouped into slots: sets of values whose signatures partition the options (each option
   holds exactly one value of each slot), the finest such grouping, values of nearby positions together.

So a 2 x 2 grid of options becomes two binary slots, a before/after change two slots, and options that share
nothing one slot whose values are the options themselves. Values that fit no partition are left out (`loose`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_STRONG = re.compile(r"\s*(?:;|->|→|\(|\)|(?<=\w)\.\s+(?=[A-Z])|,?\s+(?:whereas|while|but|then)\s+)\s*", re.IGNORECASE)
_WEAK = re.compile(r"\s*(?:,|\band\b|\bor\b)\s*", re.IGNORECASE)
MAX_VALUES = 12  # a column cut into more values than this is read whole (the search below is exponential)


@dataclass(frozen=True)
class Slot:
    """One question inside the options: its values (texts), and which value each option holds."""

    values: tuple[str, ...]
    of_option: tuple[int, ...]  # option k holds values[of_option[k]]


@dataclass(frozen=True)
class Factoring:
    slots: tuple[Slot, ...]
    shared: tuple[str, ...]  # pieces every option holds (topics the options agree on)
    loose: tuple[str, ...] = ()  # differing values that fit no slot


def _clean(text: str) -> str:
    return text.strip(" .,:;!?\"'").strip()


_SEQUENCE = (re.compile(r"^\s*from\s+(?P<a>.+?)\s+to\s+(?P<b>.+?)\s*\.?\s*$", re.IGNORECASE),
             re.compile(r"^\s*(?P<a>.+?)\s*(?:->|→|,?\s+then\s+)\s*(?P<b>.+?)\s*\.?\s*$", re.IGNORECASE))


SEQUENCE_WORDS = 8  # a change stated in order names two short states; a longer "..., then ..." is a description


def sequence(option: str) -> tuple[str, str] | None:
    """(earlier, later) of an option that states a change in order: 'X -> Y', 'from X to Y', 'X, then Y' (each
    state at most SEQUENCE_WORDS words)."""
    for pattern in _SEQUENCE:
        found = pattern.match(option)
        if found:
            a, b = _clean(found.group("a")), _clean(found.group("b"))
            if len(a.split()) <= SEQUENCE_WORDS and len(b.split()) <= SEQUENCE_WORDS:
                return a, b
    return None


def clauses(option: str) -> list[str]:
    """An option's clauses, cut at strong breaks (empty pieces dropped); 'from X to Y' is X and Y."""
    found = _SEQUENCE[0].match(option)
    parts = [found.group("a"), found.group("b")] if found else _STRONG.split(option)
    return [c for c in (_clean(p) for p in parts) if c]


def pieces(clause: str) -> list[tuple[str, int, int]]:
    """A clause's pieces at weak breaks: (text, start, end) in the clause."""
    out, start = [], 0
    for cut in [*_WEAK.finditer(clause), None]:
        end = len(clause) if cut is None else cut.start()
        text = _clean(clause[start:end])
        if text:
            first = clause.index(text, start)
            out.append((text, first, first + len(text)))
        start = len(clause) if cut is None else cut.end()
    return out


def _values(column: list[str]) -> tuple[list[tuple[str, frozenset[int], float]], list[str]]:
    """(value text, signature, mean position 0..1) of one column's differing values, and its shared pieces. A
    value's text is its clause from its first piece to its last, as written ("keyword or file-pattern")."""
    cut = [pieces(c) for c in column]
    holders: dict[str, set[int]] = {}
    for k, parts in enumerate(cut):
        for text, _, _ in parts:
            holders.setdefault(text.lower(), set()).add(k)
    every = frozenset(range(len(column)))
    found: dict[tuple[str, frozenset[int]], list[float]] = {}
    shared: list[str] = []
    for k, parts in enumerate(cut):
        runs: list[tuple[frozenset[int], int, int, int]] = []  # (signature, start, end, first piece)
        for i, (text, start, end) in enumerate(parts):
            sig = frozenset(holders[text.lower()])
            if runs and runs[-1][0] == sig:
                runs[-1] = (sig, runs[-1][1], end, runs[-1][3])
            else:
                runs.append((sig, start, end, i))
        for sig, start, end, i in runs:
            text = column[k][start:end]
            if sig == every:
                if k == 0:
                    shared.append(text)
            else:
                found.setdefault((text, sig), []).append(i / max(1, len(parts)))
    return [(text, sig, sum(pos) / len(pos)) for (text, sig), pos in found.items()], shared


def _partitions(values: list[tuple[str, frozenset[int], float]], n: int) -> list[list[int]]:
    """The finest grouping of values into slots that each partition the n options (best by position spread)."""
    every = frozenset(range(n))
    best: tuple[int, float, list[list[int]]] | None = None

    def search(left: list[int], slots: list[list[int]]) -> None:
        nonlocal best
        if not left:
            spread = sum(max(values[i][2] for i in s) - min(values[i][2] for i in s) for s in slots)
            if best is None or (-len(slots), spread) < (-best[0], best[1]):
                best = (len(slots), spread, [list(s) for s in slots])
            return
        first = left[0]
        covers = _covers(first, left[1:], values, every)
        for group in covers:
            search([i for i in left if i not in group], slots + [group])
        if not covers:  # a value no partition can hold is left out, the others still grouped
            search(left[1:], slots)

    search(list(range(len(values))), [])
    return best[2] if best else []


def _covers(first: int, rest: list[int], values: list, every: frozenset[int]) -> list[list[int]]:
    """Every set of values containing `first` whose signatures are disjoint and cover every option."""
    out = []

    def grow(group: list[int], covered: frozenset[int], start: int) -> None:
        if covered == every:
            out.append(group)
            return
        for j in range(start, len(rest)):
            sig = values[rest[j]][1]
            if not sig & covered:
                grow(group + [rest[j]], covered | sig, j + 1)

    grow([first], values[first][1], 0)
    return out


@functools.lru_cache(maxsize=4096)
def _factor(choices: tuple[str, ...]) -> Factoring:
    n = len(choices)
    cut = [clauses(c) for c in choices]
    columns = [[c[k] for c in cut] for k in range(len(cut[0]))] if len({len(c) for c in cut}) == 1 else \
        [[_clean(c) for c in choices]]
    slots, shared, loose = [], [], []
    for column in columns:
        values, common = _values(column)
        shared += common
        if not values:
            continue
        if len(values) > MAX_VALUES:
            slots.append(Slot(tuple(column), tuple(range(n))))
            continue
        groups = _partitions(values, n)
        if not groups:  # nothing in this column partitions the options: it is read whole
            slots.append(Slot(tuple(column), tuple(range(n))))
            continue
        placed = {i for g in groups for i in g}
        loose += [values[i][0] for i in range(len(values)) if i not in placed]
        for group in sorted(groups, key=lambda g: min(values[i][2] for i in g)):
            texts = tuple(values[i][0] for i in group)
            owner = {k: j for j, i in enumerate(group) for k in values[i][1]}
            slots.append(Slot(texts, tuple(owner[k] for k in range(n))))
    if not slots:  # options that differ only in what the cutting drops (case, punctuation): read whole
        return Factoring((Slot(tuple(choices), tuple(range(n))),), ())
    return Factoring(tuple(slots), tuple(shared), tuple(loose))


def option_slots(choices: list[str]) -> Factoring:
    """The slots that set `choices` apart (see the module docstring); duplicate options share every value."""
    return _factor(tuple(choices))
