"""Fact extraction: the sentence-level statements that carry names, numbers or dates.

A memory keeps facts so that a later question about "how much" or "when" or "who" can be
answered; a sentence without any of these ("Let me know if you have questions.") is filler.
Statements are sentences split further at ';' (each clause is atomic). Informativeness counts
numbers and dates (2 each), named entities (1 each: capitalised words past the first, acronyms,
a leading capitalised word when a name follows) and distinct content words (0.1 each, so among
equally specific statements the richer one wins). Near-duplicates (content-word Jaccard >= 0.6)
keep the most specific one, the earliest on ties; the top max_facts come back in document order.
"""

from __future__ import annotations

import functools
import re

from filegram_kit.llm.algorithms.text import STOPWORDS, content_terms, jaccard, numbers, split_sentences, word_count

NUMBER_WEIGHT = 2.0
DATE_WEIGHT = 2.0
ENTITY_WEIGHT = 1.0
CONTENT_WEIGHT = 0.1
DUPLICATE_JACCARD = 0.6
MIN_WORDS = 3

_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|\b(?:{_MONTHS})\.?\s+\d{{1,2}}\b|"
    rf"\b\d{{1,2}}\s+(?:{_MONTHS})\b|\b(?:19|20)\d{{2}}\b|\bQ[1-4]\b|\d{{4}}年|\d{{1,2}}月\d{{1,2}}日",
    re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"\s*[;；]\s*")
_WORD = re.compile(r"[A-Za-z][A-Za-z'&.-]*")


def entities(statement: str) -> list[str]:
    """Capitalised words and acronyms that name something (a sentence-initial word only before a name)."""
    words = _WORD.findall(statement)
    found = []
    for i, w in enumerate(words):
        capital = w[0].isupper() and w.lower() not in STOPWORDS
        if not capital:
            continue
        if i > 0 or w.isupper() and len(w) > 1 or (len(words) > 1 and words[1][0].isupper()):
            found.append(w)
    return found


@functools.lru_cache(maxsize=65_536)  # the same sentences are scored for every memory that holds them
def specificity(statement: str) -> float:
    """Weighted count of the checkable items in a statement: numbers, dates, named entities."""
    n_dates = len(_DATE.findall(statement))
    n_numbers = max(len(numbers(statement)) - n_dates, 0)  # a date's digits are not counted twice
    return NUMBER_WEIGHT * n_numbers + DATE_WEIGHT * n_dates + ENTITY_WEIGHT * len(entities(statement))


def informativeness(statement: str) -> float:
    """Score of how much checkable content a statement carries (0 for filler)."""
    specific = specificity(statement)
    return specific + CONTENT_WEIGHT * len(set(content_terms(statement))) if specific else 0.0


def statements(text: str) -> list[str]:
    """Atomic statements: sentences, split into clauses at semicolons; trailing punctuation kept."""
    out = []
    for sentence in split_sentences(text):
        out.extend(c.strip() for c in _CLAUSE_BREAK.split(sentence) if c.strip())
    return out


def _representatives(candidates: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """One statement per near-duplicate group: the most specific, the earliest on ties."""
    kept: list[tuple[int, str, set[str], float]] = []
    for index, statement in candidates:
        terms, specific = set(content_terms(statement)), specificity(statement)
        twin = next((k for k, other in enumerate(kept) if jaccard(terms, other[2]) >= DUPLICATE_JACCARD), None)
        if twin is None:
            kept.append((index, statement, terms, specific))
        elif specific > kept[twin][3]:
            kept[twin] = (index, statement, terms, specific)
    return [(index, statement) for index, statement, _, _ in kept]


def extract_facts(text: str, max_facts: int = 10) -> list[str]:
    """The max_facts most informative statements of text, near-duplicates removed, in document order."""
    if max_facts < 1:
        return []
    candidates = [(i, s) for i, s in enumerate(statements(text)) if word_count(s) >= MIN_WORDS and specificity(s)]
    ranked = sorted(_representatives(candidates), key=lambda c: (-informativeness(c[1]), c[0]))
    return [statement for _, statement in sorted(ranked[:max_facts])]
