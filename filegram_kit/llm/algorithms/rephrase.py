"""Meaning-preserving question paraphrase by deterministic rewrite rules.

Used to test whether a reader's answer depends on surface wording. The exact parts of a question
-- numbers, quoted strings, file names and paths -- are first swapped for placeholders, so no rule
can touch them, and restored at the end. Then, in order:
1. one structural rewrite, chosen by the seed among those that apply ("Which of the following"
   <-> "Which option", "What is X?" -> "Which of the following is X?", "How many" -> "What number
   of", a leading "In/During/... X," clause moved to the end or a trailing one to the front);
2. a synonym table for common question words, case preserved;
3. if nothing applied, a neutral lead-in ("Based on the context, ...") so the wording always changes.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

_PROTECTED = re.compile(
    r"\"[^\"]+\"|“[^”]+”|「[^」]+」|`[^`]+`|(?<!\w)'[^']+'(?!\w)"  # quoted strings
    r"|[\w./\\-]*[\w-]\.[A-Za-z0-9]{1,5}\b(?![\w-])|(?:[\w.-]+/)+[\w.-]*"  # file names, paths
    r"|\d[\d,.:%/-]*\d%?|\d%?"  # numbers, dates, times
)
_SLOT = "\ue000{}\ue001"
_SLOT_RE = re.compile("\ue000(\\d+)\ue001")
_LEAD = "in|during|after|before|when|while|across|for|based on|according to|given"
_TRAIL = "during|after|before|when|while|across|according to|based on"
_AUX = "is|are|was|were|do|does|did|can|could|would|will|should|has|have|had|might|may"
SYNONYMS = {
    "best describes": ["most accurately describes", "best characterizes"],
    "describes": ["characterizes"], "describe": ["characterize"], "typically": ["usually"],
    "usually": ["typically"], "most likely": ["most probably"], "prefer": ["favor"], "prefers": ["favors"],
    "frequently": ["often"], "often": ["frequently"], "tends to": ["usually tends to"],
    "choose": ["pick"], "chose": ["picked"], "largest": ["biggest"], "approach": ["strategy"],
    "organize": ["arrange"], "organizes": ["arranges"], "shows": ["displays"], "reflects": ["mirrors"],
    "以下哪": ["下列哪"], "下列哪": ["以下哪"], "哪一项": ["哪个选项"], "通常": ["一般"], "最可能": ["最有可能"],
}
_SYNONYM_RE = re.compile(r"\b(?:" + "|".join(sorted((re.escape(k) for k in SYNONYMS if k.isascii()), key=len,
                                                    reverse=True)) + r")\b"
                         + "|" + "|".join(re.escape(k) for k in SYNONYMS if not k.isascii()), re.IGNORECASE)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _decap(text: str) -> str:
    """Lower-case the first letter unless the first word looks like a name or acronym."""
    first = text.split(" ", 1)[0]
    return text if first[1:2].isupper() or first in {"I"} else text[:1].lower() + text[1:]


def _structural_rules() -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]]:
    return [
        (re.compile(r"^Which of the following\b", re.I), lambda m: "Which option"),
        (re.compile(r"^Which (?:option|one of the options)\b", re.I), lambda m: "Which of the following"),
        (re.compile(rf"^What ({_AUX})\b(.+)$", re.I), lambda m: f"Which of the following {m[1].lower()}{m[2]}"),
        (re.compile(rf"^What (?!{_AUX}\b)(\w)", re.I), lambda m: f"Which {m[1]}"),
        (re.compile(r"^How many\b", re.I), lambda m: "What number of"),
        (re.compile(r"^How often\b", re.I), lambda m: "How frequently"),
        (re.compile(rf"^((?:{_LEAD})\b[^,?]+), (.+?)([?？]?)$", re.I),
         lambda m: f"{_cap(m[2])} {_decap(m[1])}{m[3]}"),
        (re.compile(rf"^((?:Wh\w+|How)\b.+?) ((?:{_TRAIL})\b[^,?]+?)([?？]?)$", re.I),
         lambda m: f"{_cap(m[2])}, {_decap(m[1])}{m[3]}"),
    ]


def _synonyms(text: str, rng: random.Random) -> str:
    def swap(m: re.Match[str]) -> str:
        word = m[0]
        choice = rng.choice(SYNONYMS[word.lower()])
        return _cap(choice) if word[:1].isupper() else choice

    return _SYNONYM_RE.sub(swap, text)


def rephrase(question: str, seed: int = 0) -> str:
    """A paraphrase of question that keeps its numbers, quoted strings and file names verbatim."""
    if not question.strip():
        return question
    protected: list[str] = []

    def hide(m: re.Match[str]) -> str:
        protected.append(m[0])
        return _SLOT.format(len(protected) - 1)

    text = original = _PROTECTED.sub(hide, question.strip())
    rng = random.Random(seed)
    applicable = [(p, f) for p, f in _structural_rules() if p.search(text)]
    if applicable:
        pattern, rewrite = applicable[rng.randrange(len(applicable))]
        text = pattern.sub(rewrite, text, count=1)
    text = _synonyms(text, rng)
    if text == original:
        text = f"请问：{text}" if re.search(r"[\u4e00-\u9fff]", text) else f"Based on the context, {_decap(text)}"
    return _SLOT_RE.sub(lambda m: protected[int(m[1])], text)
