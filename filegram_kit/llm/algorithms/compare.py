"""Comparison reading: which named session is unlike the others, read from any memory's text.

Options that only name sessions ("Session 1" ... "Session 6") claim nothing a sentence could match;
what the context says *about* each name does. Per option:

- its anchor lines: every line naming it and no other option (a list item also reads the heading line
  above it: "Anomalous sessions:" / "- Session 5 ..."), the lines under a heading that names it
  ("=== Session 5 (T-11) ===", "## Session 5 summary") or the list after a line "Session 5 ...:", and,
  at a share, lines naming it among others;
- stated evidence: how strongly its lines say "unusual" (deviation words such as unusual, deviates,
  anomalous, flagged, outlier, someone else, least like, minus typicality words such as typical,
  consistent; a negation flips a word), plus numbers that follow a deviation word ("deviation 4.19")
  ranked across the options that state one, larger being more unusual (an option with none ranks lowest:
  memories list the unusual sessions);
- implicit comparison: how unlike the other options' anchor text its own is (TF-IDF over content words,
  names and task ids removed), the way a reader compares what a memory says of each session.

The question sets the polarity: a question for the odd one out (not done by this user, deviates,
unlike the others) wants the most unusual option, any other the most typical. Each part is centred
over the options and scaled by its spread, so a context that says nothing distinct about any option
scores every option 0 (a tie, which the caller breaks without favouring a position).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import numpy as np

from ...util.float_ties import tied_ranks
from .text import content_terms, memo_short_texts, split_sentences, tfidf_matrix, tokens

STATED_WEIGHT, NUMBER_WEIGHT, IMPLICIT_WEIGHT = 1.0, 1.0, 0.5
SHARED_LINE_WEIGHT = 0.5  # a line naming this option among others counts at this share (split over them)

DEVIATION_WORDS = ("unusual", "deviat", "anomal", "atypical", "outlier", "flagged", "odd", "differ", "unlike",
                   "inconsistent", "irregular", "shift", "changed", "impostor", "intruder", "stands", "apart",
                   "unfamiliar", "strange", "mismatch", "uncharacteristic", "surpris", "异常", "偏离", "不同", "反常")
DEVIATION_PHRASES = ("someone else", "another user", "another person", "out of character", "not typical",
                     "other user", "different user", "least like", "less like")
# "usual" and "normal" are left out: they mostly name the baseline a deviation is measured from ("above usual")
TYPICAL_WORDS = ("typical", "consistent", "familiar", "characteristic", "典型", "一致")
NEGATIONS = frozenset({"not", "no", "never", "hardly", "without", "non", "不", "没有"})
_NUMBER_AFTER = re.compile(r"([^\W\d_]+)[\s:=]{1,3}([-+]?\d+(?:\.\d+)?)")
_HEADING = re.compile(r"^\s*(#{1,6}(?=\s)|={2,})")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s")
_TASK_ID = re.compile(r"\bT-\d+\b")
_LABEL_SHAPE = re.compile(r"^\s*([^\W\d_]+(?:\s+[^\W\d_]+)?)\s+([0-9]+|[A-Z])\s*$")


def naming_options(choices: list[str]) -> bool:
    """Options that only name things of one kind: 'Session 1' .. 'Session 6', 'User A', 'User B'."""
    if len(choices) < 2:
        return False
    shapes = [_LABEL_SHAPE.match(c) for c in choices]
    return all(shapes) and len({m.group(1).lower() for m in shapes}) == 1 and len(set(choices)) == len(choices)


@functools.lru_cache(maxsize=1024)
def _mention(label: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w]){re.escape(label)}(?![\w])", re.IGNORECASE)


def asks_for_odd_one(question: str) -> bool:
    """Whether the question asks for the option unlike the rest (else for the most typical one)."""
    low = question.lower()
    words = tokens(low)
    return (any(w.startswith(DEVIATION_WORDS) for w in words) or any(p in low for p in DEVIATION_PHRASES)
            or any(w in NEGATIONS for w in words))


@memo_short_texts
def cue_score(text: str) -> float:
    """Deviation words minus typicality words; a negation just before a word flips it."""
    low = text.lower()
    words = tokens(low)
    score = 0.0
    for i, word in enumerate(words):
        sign = -1.0 if any(w in NEGATIONS for w in words[max(0, i - 2):i]) else 1.0
        if word.startswith(DEVIATION_WORDS):
            score += sign
        elif word.startswith(TYPICAL_WORDS):
            score -= sign
    return score + sum(low.count(p) for p in DEVIATION_PHRASES)


def deviation_numbers(text: str) -> dict[str, float]:
    """The number right after each deviation word ('deviation 4.19' -> {'deviation': 4.19}); the largest kept."""
    found: dict[str, float] = {}
    low = text.lower()
    if not any(word in low for word in DEVIATION_WORDS):  # no word can start with one: nothing to find
        return found
    for word, value in _NUMBER_AFTER.findall(text):
        word = word.lower()
        if word.startswith(DEVIATION_WORDS):
            found[word] = max(found.get(word, float("-inf")), abs(float(value)))
    return found


@dataclass
class Anchors:
    own: list[list[str]] = field(default_factory=list)  # per option: its anchor lines (list items with heading)
    shared: list[list[tuple[str, float]]] = field(default_factory=list)  # per option: (line, share) naming others too
    body: list[list[str]] = field(default_factory=list)  # per option: its anchor lines as written (comparison)


def anchor_lines(context: str, labels: list[str]) -> Anchors:
    """What the context says about each option's name (see the module docstring)."""
    names = tuple(labels)
    found = Anchors([[] for _ in labels], [[] for _ in labels], [[] for _ in labels])
    heading, block, level = "", None, ""  # the last non-list line; the option whose heading we are under, its marker
    for line in _units(context, names):
        named = _named(line, names)
        is_item = bool(_LIST_ITEM.match(line))
        marker = _HEADING.match(line)
        if block is not None and (marker and _closes(marker.group(1), level) or level == ":" and not is_item):
            block = None  # a heading of the same rank ends a section; a non-list line ends a "Name:" list
        if len(named) == 1:
            k = named[0]
            found.own[k].append(f"{heading} {line}" if is_item else line)
            found.body[k].append(line)
            if marker:
                block, level = k, marker.group(1)
            elif not is_item and line.rstrip().endswith(":"):
                block, level = k, ":"
        elif named:
            for k in named:
                found.shared[k].append((line, SHARED_LINE_WEIGHT / len(named)))
        elif block is not None:
            found.own[block].append(line)
            found.body[block].append(line)
        if not is_item:
            heading = line
    return found


@functools.lru_cache(maxsize=262_144)  # a memory's lines are read again for every question naming its sessions
def _named(line: str, labels: tuple[str, ...]) -> tuple[int, ...]:
    """The options a line names. An ASCII label absent from an ASCII line's lowercase text cannot match (a
    substring test, far cheaper than the search); other lines are searched as they are."""
    if line.isascii():
        low = line.lower()
        return tuple(k for k, label in enumerate(labels)
                     if (not label.isascii() or label.lower() in low) and _mention(label).search(line))
    return tuple(k for k, label in enumerate(labels) if _mention(label).search(line))


def _units(context: str, labels: tuple[str, ...]) -> list[str]:
    """The context's lines; a line naming several options is read sentence by sentence (a narrative paragraph)."""
    out = []
    for line in context.splitlines():
        if not line.strip():
            continue
        if len(_named(line, labels)) > 1:
            out.extend(split_sentences(line) or [line])
        else:
            out.append(line)
    return out


def _closes(marker: str, level: str) -> bool:
    """Whether a heading with `marker` ends a block opened by a heading with `level` (same kind, not deeper)."""
    return marker[0] == level[0] and (marker[0] == "=" or len(marker) <= len(level))


def _centred(values: np.ndarray) -> np.ndarray:
    spread = float(values.std())
    return (values - values.mean()) / spread if spread > 1e-9 else np.zeros_like(values)


def _numbers_part(own: list[list[str]]) -> np.ndarray:
    per_option = [deviation_numbers(" ".join(lines)) for lines in own]
    out = np.zeros(len(own))
    for word in sorted({w for found in per_option for w in found}):
        have = [k for k, found in enumerate(per_option) if word in found]
        if len(have) < 2:
            continue
        values = np.array([per_option[k][word] for k in have])
        out[have] += tied_ranks(values) / (len(have) - 1)  # 0 (smallest stated) .. 1 (largest); ties share
    return out  # an option with no number stated counts as the smallest: a memory lists the unusual ones


def _strip_names(text: str, labels: list[str]) -> str:
    plain = text.isascii()  # then a label absent from the lowercase text cannot match: no substitution to try
    low = text.lower() if plain else ""
    for label in labels:
        if not plain or not label.isascii() or label.lower() in low:
            text = _mention(label).sub(" ", text)
            low = text.lower() if plain else ""
    return _TASK_ID.sub(" ", text) if "T-" in text else text


def _implicit_part(body: list[list[str]], labels: list[str]) -> np.ndarray:
    docs = [content_terms(_strip_names(" ".join(lines), labels)) for lines in body]
    present = [k for k, doc in enumerate(docs) if doc]
    out = np.zeros(len(body))
    if len(present) < 3:  # an odd one out needs at least two others to differ from
        return out
    matrix = tfidf_matrix([docs[k] for k in present])
    sims = matrix @ matrix.T
    n = len(present)
    mean_other = (sims.sum(axis=1) - np.diag(sims)) / (n - 1)
    out[present] = 1.0 - mean_other
    return out


def comparison_parts(question: str, labels: list[str], context: str) -> dict[str, np.ndarray]:
    """Per option, each part of the evidence that it is the odd one out (before polarity and weights)."""
    return dict(_read(context, tuple(labels))[1])


@functools.lru_cache(maxsize=32)  # the questions on one memory's sessions share its context
def _read(context: str, labels: tuple[str, ...]) -> tuple[Anchors, dict[str, np.ndarray]]:
    """What the context says about each option (anchor lines) and the parts of the evidence (read-only arrays)."""
    found = anchor_lines(context, list(labels))
    parts = _parts(found, list(labels))
    for values in parts.values():
        values.setflags(write=False)
    return found, parts


def _parts(found: Anchors, labels: list[str]) -> dict[str, np.ndarray]:
    stated = np.array([sum(cue_score(line) for line in own) + sum(w * cue_score(line) for line, w in shared)
                       for own, shared in zip(found.own, found.shared, strict=True)], dtype=float)
    return {"stated": _centred(stated), "numbers": _centred(_numbers_part(found.own)),
            "implicit": _centred(_implicit_part(found.body, labels))}


def comparison_evidence(question: str, labels: list[str], context: str
                        ) -> tuple[dict[str, np.ndarray], list[list[str]]]:
    """({part: weighted per-option value, signed by the question's polarity}, each option's anchor lines): the
    reader's evidence for naming options, summed by `comparison_scores`."""
    found, parts = _read(context, tuple(labels))
    sign = 1.0 if asks_for_odd_one(question) else -1.0
    weights = {"stated": STATED_WEIGHT, "numbers": NUMBER_WEIGHT, "implicit": IMPLICIT_WEIGHT}
    support = [sorted(own, key=lambda line: -abs(cue_score(line)))[:3] for own in found.own]
    return {name: sign * weights[name] * values for name, values in parts.items()}, support


def comparison_scores(question: str, labels: list[str], context: str) -> np.ndarray:
    """Per option: how well the context supports it as the answer (0 for every option without evidence)."""
    parts, _ = comparison_evidence(question, labels, context)
    return sum(parts.values())


# -- contrasts between two named sessions ("One of them X, while the other Y") ---------------------------------

_CONTRAST = re.compile(r"^\s*(?:one of them|one user|where one|one)\s+(?P<x>.+?)\s*[,;]\s*(?:while\s+|whereas\s+)?"
                       r"the other(?: one| user)?\s+(?P<y>.+?)\s*\.?\s*$", re.IGNORECASE)
_SESSION_NAME = re.compile(r"\bSession \d+\b")


def contrast_parts(option: str) -> tuple[str, str] | None:
    """('X', 'Y') of an option that says one of two people does X and the other Y; None for any other option."""
    found = _CONTRAST.match(option)
    return (found.group("x"), found.group("y")) if found else None


def contrast_evidence(question: str, choices: list[str], context: str, embed) -> np.ndarray | None:
    """Per option, how well the two sessions the question names fit its two halves, one each: the larger of
    sim(X, A) + sim(Y, B) and sim(X, B) + sim(Y, A), minus the other, where sim is the best cosine between a
    half and the lines the context says about that session (`embed`: texts -> unit rows). None when the options
    are not contrasts or the context does not speak of both sessions apart."""
    halves = [contrast_parts(c) for c in choices]
    names = list(dict.fromkeys(_SESSION_NAME.findall(question)))
    if len(names) != 2 or not all(halves):
        return None
    lines = anchor_lines(context, names).own
    if not all(lines):
        return None
    texts = [h for pair in halves for h in pair]
    vectors = embed(texts + lines[0] + lines[1])
    cut = len(texts) + len(lines[0])
    parts, a, b = vectors[:len(texts)], vectors[len(texts):cut], vectors[cut:]
    fit_a, fit_b = (parts @ a.T).max(axis=1), (parts @ b.T).max(axis=1)
    x, y = slice(0, len(texts), 2), slice(1, len(texts), 2)
    return np.abs((fit_a[x] + fit_b[y]) - (fit_b[x] + fit_a[y]))


# -- which aspect two named sessions differ in -------------------------------------------------------------------

DIFFERENCE_SHARPNESS = 16.0  # how sharply a session's units are weighted by how much they are about an option


def asks_for_difference(question: str) -> bool:
    """Whether the question asks how two named sessions differ (not which one is odd)."""
    return len(set(_SESSION_NAME.findall(question))) == 2 and any(
        w.startswith(("differ", "distinguish", "contrast")) for w in tokens(question.lower()))


def aspect_difference(question: str, choices: list[str], context: str, embed, units_of) -> np.ndarray | None:
    """Per option, how differently the context describes the two sessions the question names *on that option's
    topic*: each session's units weighted by how much more they are about this option than about any other
    (a softmax), and 1 - the cosine between the two weighted means. Two sessions described alike on a topic
    (the same words) score 0 there. None when the question asks no difference between two named sessions, or
    the context does not speak of both apart. `units_of`: sentences -> units; `embed`: texts -> unit rows."""
    names = list(dict.fromkeys(_SESSION_NAME.findall(question)))
    if len(choices) < 2 or not asks_for_difference(question):
        return None
    body = anchor_lines(context, names).body
    if not all(body):
        return None
    units = [units_of([_strip_names(line, names) for line in lines]) for lines in body]
    vectors = embed(list(choices) + units[0] + units[1])
    options, cut = vectors[:len(choices)], len(choices) + len(units[0])
    reps = []
    for rows in (vectors[len(choices):cut], vectors[cut:]):
        sims = options @ rows.T  # (options, units)
        others = np.stack([np.delete(sims, k, axis=0).max(axis=0) for k in range(len(choices))])
        about = sims - others
        weight = np.exp(DIFFERENCE_SHARPNESS * (about - about.max(axis=1, keepdims=True)))
        reps.append((weight / weight.sum(axis=1, keepdims=True)) @ rows)
    a, b = reps
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return 1.0 - np.where(norms > 0, (a * b).sum(axis=1) / np.where(norms > 0, norms, 1.0), 1.0)
