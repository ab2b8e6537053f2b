"""The rubric judge of Visual Grounding: a free-form prediction of a session's second half, scored against it.

Three parts, each 0-1: operations (F1 of the kinds of action named vs done), targets (F1 of the file and
folder names named vs touched) and naming (F1 of the naming-style tags, e.g. dated, versioned, snake_case,
extension, of the file names named vs touched); the score is their mean x 100 and the Likert 1-5 is read
off it. It reads only the answer text and the item's `metadata["future"]`, so the shared reader applies it
to every backend's answers (one judge, comparable scores) without importing the replay or the recorder.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

# words an answer may use for each on-screen action
ACTION_WORDS = {"READ": ("read", "open", "review", "view", "look"), "WRITE": ("write", "create", "save", "draft"),
                "EDIT": ("edit", "revise", "update", "modify", "change"), "MKDIR": ("folder", "directory", "mkdir"),
                "COPY": ("copy", "backup", "duplicate"), "MOVE": ("move", "file into", "organize", "organise"),
                "RENAME": ("rename",), "DELETE": ("delete", "remove", "clean"), "BROWSE": ("browse", "list"),
                "SEARCH": ("search", "grep", "find")}
_NAME = re.compile(r"[\w\-.()]+\.[A-Za-z0-9]{1,5}\b")


def naming_style(name: str) -> frozenset[str]:
    """Style tags of a file name: dated, versioned, snake, kebab, spaced, camel, and its extension."""
    stem, _, ext = name.rpartition(".")
    tags = {f".{ext.lower()}"} if stem else set()
    stem = stem or name
    checks = {"dated": r"\d{4}-\d{2}-\d{2}|\d{8}", "versioned": r"(?i)(^|[_\-\s])v\d+|final|draft|old|copy",
              "snake": r"[a-z0-9]_[a-z0-9]", "kebab": r"[a-z0-9]-[a-z]", "spaced": r"\s", "camel": r"[a-z][A-Z]"}
    return frozenset(tags | {tag for tag, pattern in checks.items() if re.search(pattern, stem)})


@dataclass(frozen=True)
class Judged:
    operations: float
    targets: float
    naming: float

    @property
    def score(self) -> float:
        return round(100 * (self.operations + self.targets + self.naming) / 3, 1)

    @property
    def likert(self) -> int:
        return 1 + int(round(4 * self.score / 100))


def _f1(predicted: set, actual: set) -> float:
    if not predicted and not actual:
        return 1.0
    hit = len(predicted & actual)
    return 0.0 if not hit else 2 * hit / (len(predicted) + len(actual))


def _named_actions(text: str) -> set[str]:
    low = text.lower()
    return {action for action, words in ACTION_WORDS.items() if any(re.search(rf"\b{w}", low) for w in words)}


def judge_prediction(answer: str, future: dict[str, Any]) -> Judged:
    """The rubric judgement of a free-form prediction against the second half (`item.metadata["future"]`)."""
    actions = set(future["actions"])
    targets = {p.rsplit("/", 1)[-1].lower() for p in future["targets"]}
    named = {n.lower() for n in _NAME.findall(answer)} | {t for t in targets if t and t in answer.lower()}
    styles_done = set().union(*(naming_style(t) for t in targets if "." in t))
    styles_named = set().union(*(naming_style(n) for n in _NAME.findall(answer)))
    return Judged(_f1(_named_actions(answer), actions), _f1(named, targets), _f1(styles_named, styles_done))


def reference_answer(future: dict[str, Any]) -> str:
    """The reference: the second half's actions (most frequent first), what they touch, the new files' names."""
    counts = Counter(future["sequence"])
    words = {a: ACTION_WORDS[a][0] for a in ACTION_WORDS}
    ops = ", ".join(f"{words[a]} x{n}" for a, n in counts.most_common())
    names = ", ".join(dict.fromkeys(p.rsplit("/", 1)[-1] for p in future["targets"]))
    new = ", ".join(future["created"]) or "no new files"
    return f"Next operations: {ops}. Targets: {names}. New files: {new}."
