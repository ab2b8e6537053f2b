"""Shared text primitives of the offline algorithms: sentences, tokens, numbers, TF-IDF.

Every offline task (summaries, facts, reader, judge, segmentation) tokenizes the same way, so
a number or a name that one step keeps is matched by the next. English and Chinese are both
handled: Latin words are lowercased word tokens, runs of CJK characters become character
bigrams (Chinese has no spaces, and bigrams are the standard word proxy for it).
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

import numpy as np

T = TypeVar("T")

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RUN = re.compile(f"[{CJK}]+")
_TOKEN = re.compile(rf"[{CJK}]+|\d+(?:[.,]\d+)*|[^\W\d_{CJK}][^\W_{CJK}]*(?:['’][^\W\d_{CJK}]+)?")
_QUANTITY = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*")
_NUMBER = re.compile(r"(?<![\w.])([$€£¥]?)(\d+(?:,\d{3})*(?:\.\d+)?)(?![\d])(\s*(?:%|percent\b|per cent\b))?")
_LEADING_MARK = re.compile(r"^\s*(?:#{1,6}\s+|[-*+•]\s+|\d+[.)]\s+|>\s*)+")
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_SENT_BREAK = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9$€£¥])|(?<=[。！？!?])")
_WORD = re.compile(r"[^\W_]+(?:['’.,-][^\W_]+)*")
_ABBREVIATIONS = frozenset("mr mrs ms dr prof inc ltd co corp vs e.g i.e etc st no fig approx".split())

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having
he her here hers herself him himself his how i if in into is it its itself just let me more most my myself
no nor not of off on once only or other our ours ourselves out over own same she should so some such than
that the their theirs them themselves then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours yourself yourselves
shall may might must us one ones s t don isn aren wasn weren doesn didn won via per within without upon
的 了 和 是 在 也 就 都 而 及 与 或 这 那 我 你 他 她 它 们 个 之 其
""".split())


def split_sentences(text: str) -> list[str]:
    """Sentences of a text, Markdown markers and table pipes removed; lines are always boundaries.

    Line breaks end a unit because headings, bullets and table rows are statements of their own.
    Within a line, English sentences end at .!? before a capital/digit (not after a common
    abbreviation), Chinese ones after 。！？. Table separator rows are dropped.
    """
    sentences: list[str] = []
    for line in text.splitlines():
        sentences.extend(_line_sentences(line))
    return sentences


@functools.lru_cache(maxsize=262_144)  # contexts are made of lines that recur across questions
def _line_sentences(line: str) -> tuple[str, ...]:
    if not line.strip() or TABLE_RULE.match(line):
        return ()
    if line.strip().startswith("|"):
        line = ", ".join(cell.strip() for cell in line.strip().strip("|").split("|") if cell.strip())
    line = _LEADING_MARK.sub("", line).strip()
    pieces: list[str] = []
    for piece in _SENT_BREAK.split(line):
        piece = piece.strip()
        if not piece:
            continue
        if pieces and pieces[-1].rsplit(None, 1)[-1].rstrip(".").lower() in _ABBREVIATIONS:
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return tuple(pieces)


def canonical_number(raw: str) -> str:
    """'1,200.50' -> '1200.5': the same quantity matches however it was written."""
    value = raw.replace(",", "")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value or "0"


def numbers(text: str) -> list[str]:
    """Numeric values in a text (currency signs and thousands separators stripped), in order."""
    return [canonical_number(m.group(2)) for m in _NUMBER.finditer(text)]


def quantities(text: str) -> list[tuple[str, str]]:
    """(value, unit) pairs, unit '%' (percent), '$' (any currency sign) or '' (bare number)."""
    return list(_quantities(text))


@functools.lru_cache(maxsize=262_144)  # context lines recur across questions
def _quantities(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((canonical_number(m.group(2)), "%" if m.group(3) else "$" if m.group(1) else "")
                 for m in _NUMBER.finditer(text))


def same_quantity(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Equal values whose units agree (a bare number agrees with any unit: '38.2' may be '$38.2')."""
    return a[0] == b[0] and (a[1] == b[1] or not a[1] or not b[1])


MEMO_CHARS = 2_000  # texts up to this length (lines, options) are memoised; whole contexts are not kept


def memo_short_texts(fn: Callable[[str], T]) -> Callable[[str], T]:
    """`fn(text)` remembered (least recently used dropped) for texts of at most MEMO_CHARS characters: the
    same context lines and options are read again for every question and by every memory that stores them,
    while a whole context is seldom seen twice and would only fill the cache. `fn` must be pure."""
    remembered = functools.lru_cache(maxsize=262_144)(fn)

    @functools.wraps(fn)
    def read(text: str) -> T:
        return remembered(text) if len(text) <= MEMO_CHARS else fn(text)

    read.cache_clear = remembered.cache_clear  # type: ignore[attr-defined]
    return read


def tokens(text: str) -> list[str]:
    """Lowercased word tokens; numbers canonical; CJK runs as character bigrams (a single char stays)."""
    return list(_tokens(text))


@memo_short_texts
def _tokens(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        if CJK_RUN.fullmatch(tok):
            out.extend([tok] if len(tok) == 1 else [tok[i:i + 2] for i in range(len(tok) - 1)])
        elif tok[0].isdigit():
            parts = [tok] if _QUANTITY.fullmatch(tok) else [p for p in tok.split(",") if p]
            out.extend(canonical_number(p) for p in parts)
        else:
            out.append(tok.lower().replace("’", "'"))
    return tuple(out)


@functools.lru_cache(maxsize=65_536)  # a vocabulary, stemmed millions of times
def stem(word: str) -> str:
    """A light suffix stripper (plural, -ing, -ed): enough for 'reports' to match 'report'."""
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("'s"):
        word = word[:-2]
    for suffix, repl, min_len in (("ies", "y", 5), ("sses", "ss", 5), ("ing", "", 6), ("ed", "", 5)):
        if word.endswith(suffix) and len(word) >= min_len:
            return word[: -len(suffix)] + repl
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_terms(text: str) -> list[str]:
    """Stemmed tokens without stopwords: the terms that carry a sentence's content."""
    return list(_content_terms(text))


@functools.lru_cache(maxsize=262_144)  # readers and judges see the same context lines again and again
def _content_terms(text: str) -> tuple[str, ...]:
    return tuple(stem(t) for t in tokens(text)
                 if t not in STOPWORDS and (len(t) > 1 or t.isdigit() or CJK_RUN.match(t)))


@memo_short_texts
def word_count(text: str) -> int:
    """Words as a word processor counts them: Latin/number tokens plus one per CJK character."""
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    return len(_WORD.findall(CJK_RUN.sub(" ", text))) + cjk


def is_cjk(text: str) -> bool:
    return bool(CJK_RUN.search(text))


def jaccard(a: set[str], b: set[str]) -> float:
    if not (a or b):
        return 1.0
    shared = len(a & b)  # |a | b| from the sizes: no union set is built (mem0 compares every fact with every memory)
    return shared / (len(a) + len(b) - shared)


def tfidf_matrix(docs: list[list[str]]) -> np.ndarray:
    """Row-normalised TF-IDF (sublinear tf, smoothed idf) of token lists over their own vocabulary.

    Used inside one document (its sentences as the collection), so weights reflect what is
    distinctive within that document rather than in some outside corpus.
    """
    vocab = {t: i for i, t in enumerate(sorted({t for doc in docs for t in doc}))}
    matrix = np.zeros((len(docs), max(len(vocab), 1)), dtype=np.float64)
    df = Counter(t for doc in docs for t in set(doc))
    n = len(docs)
    for row, doc in enumerate(docs):
        for term, tf in Counter(doc).items():
            matrix[row, vocab[term]] = (1.0 + math.log(tf)) * (math.log((1 + n) / (1 + df[term])) + 1.0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)
