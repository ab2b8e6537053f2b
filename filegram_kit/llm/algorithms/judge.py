"""Rubric Likert judge: how much of a reference answer an answer covers, and whether it contradicts it.

Coverage is a weighted mean of three recalls against the reference:
- content words (stemmed, stopwords removed) found in the answer;
- facts (the reference's statements, see fact_extraction.py; each counts when >= FACT_HIT of its content
  words are in the answer) -- so keeping whole statements beats scattering the same words;
- quantities (value + unit) the answer states too.
A contradiction is a reference quantity the answer misses while stating another quantity of the
same unit (the answer gives a figure, just not the right one). Coverage maps to 1..5 through
THRESHOLDS; a contradiction caps the score at 2, as the rubric's "one clear error" says.
"""

from __future__ import annotations

from filegram_kit.llm.algorithms.fact_extraction import statements
from filegram_kit.llm.algorithms.text import content_terms, quantities, same_quantity, stem, tokens

WEIGHTS = {"words": 0.5, "facts": 0.3, "numbers": 0.2}
FACT_HIT = 0.6
CONTRADICTION_CAP = 2
THRESHOLDS = ((0.85, 5), (0.65, 4), (0.45, 3), (0.2, 2))  # coverage >= t -> score; below all -> 1
DEFAULT_RUBRIC = {5: "same content, nothing wrong", 4: "mostly the same, a minor omission",
                  3: "about half of the content", 2: "little of the content or one clear error",
                  1: "unrelated or contradicting"}


def _recalls(reference: str, answer: str) -> tuple[dict[str, float], list[str]]:
    """Recall per evidence kind (None-free: kinds the reference lacks are left out) and missing words."""
    answer_terms = set(content_terms(answer))
    ref_terms = sorted(set(content_terms(reference)))
    surface = {}
    for tok in tokens(reference):
        surface.setdefault(stem(tok), tok)
    missing = [surface.get(t, t) for t in ref_terms if t not in answer_terms]
    recalls = {"words": 1.0 - len(missing) / len(ref_terms)}
    facts = [set(content_terms(s)) for s in statements(reference)]
    facts = [f for f in facts if f]
    if len(facts) > 1:
        recalls["facts"] = sum(len(f & answer_terms) / len(f) >= FACT_HIT for f in facts) / len(facts)
    ref_q, ans_q = set(quantities(reference)), quantities(answer)
    if ref_q:
        recalls["numbers"] = sum(any(same_quantity(r, a) for a in ans_q) for r in ref_q) / len(ref_q)
    return recalls, missing


def _show(quantity: tuple[str, str]) -> str:
    value, unit = quantity
    return f"${value}" if unit == "$" else value + unit


def contradictions(reference: str, answer: str) -> list[tuple[str, str]]:
    """(reference value, answer value) pairs: a reference quantity missing where the answer states
    a different one of the same unit. Each answer quantity is used once."""
    ref_q, ans_q = sorted(set(quantities(reference))), sorted(set(quantities(answer)))
    missing = [r for r in ref_q if not any(same_quantity(r, a) for a in ans_q)]
    extra = [a for a in ans_q if not any(same_quantity(a, r) for r in ref_q)]
    pairs = []
    for r in missing:
        match = next((a for a in extra if a[1] == r[1]), None)
        if match is not None:
            pairs.append((_show(r), _show(match)))
            extra.remove(match)
    return pairs


def coverage_score(coverage: float) -> int:
    return next((score for threshold, score in THRESHOLDS if coverage >= threshold), 1)


def judge_likert(reference: str, answer: str, rubric: dict[int, str] | None = None) -> tuple[int, str]:
    """(score 1..5, rationale naming what matched, what was missed and any contradicting figures)."""
    if not content_terms(reference):
        raise ValueError("judge_likert: the reference has no content words to judge against")
    rubric = rubric or DEFAULT_RUBRIC
    recalls, missing = _recalls(reference, answer)
    total = sum(WEIGHTS[k] for k in recalls)
    coverage = sum(WEIGHTS[k] * v for k, v in recalls.items()) / total
    conflicts = contradictions(reference, answer)
    score = min(coverage_score(coverage), CONTRADICTION_CAP) if conflicts else coverage_score(coverage)
    parts = [f"coverage {coverage:.2f} (" + ", ".join(f"{k} {v:.0%}" for k, v in recalls.items()) + ")"]
    if missing:
        parts.append("missing: " + ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))
    if conflicts:
        parts.append("contradicting figures: " + ", ".join(f"{a} instead of {r}" for r, a in conflicts))
    parts.append(f"rubric {score}: {rubric.get(score, '')}".rstrip(": "))
    return score, "; ".join(parts)
