"""Style description of a document from what can be measured in it (no judgement calls hidden).

Structure: Markdown heading levels, the share of non-empty lines that are bullets, table rows
(header included, separator rows excluded). Length: words (CJK characters count one each) and
characters. Rhythm: mean words per sentence (bullets count, headings and table rows do not).
Formality in [0, 1]: formal cues (connectives such as "therefore", "regarding"; 您/综上所述)
against informal ones (contractions, "!", "gonna", emoji; 啦/哈哈), smoothed with one pseudo-count
each so a cue-free text is 0.5, then nudged by mean word length (long words read formal). The
categorical fields the describe_style task asks of an LLM (tone, structure, detail) are derived
from these numbers with the thresholds below.
"""

from __future__ import annotations

import re

from filegram_kit.llm.algorithms.text import _CJK_RUN, _TABLE_RULE, split_sentences, word_count

_HEADING = re.compile(r"^(#{1,6})\s+\S")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+\S")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_FORMAL = re.compile(r"\b(?:therefore|however|furthermore|moreover|consequently|regarding|accordingly|hereby|"
                     r"pursuant|whereas|thus|hence|respectively|sincerely|kindly|shall|in accordance with|"
                     r"please find|we recommend|it is recommended)\b|您|综上所述|特此|敬请|鉴于|因此", re.IGNORECASE)
_INFORMAL = re.compile(r"\b(?:gonna|wanna|gotta|yeah|yep|nope|hey|lol|ok|okay|btw|kinda|stuff|cool|awesome|"
                       r"\w+n't|\w+'(?:ll|re|ve|m|d))\b|!|[\U0001F300-\U0001FAFF\u2600-\u27BF]|啦|哈哈|呗|嘛|吧",
                       re.IGNORECASE)
STRUCTURED_MIN = 0.3  # bullet share (or headings at 2+ levels, or a table) for "highly structured"
CONCISE_MAX_WORDS, COMPREHENSIVE_MIN_WORDS = 150, 600
FORMAL_MIN, CASUAL_MAX = 0.65, 0.4
ZH_MIN_SHARE = 0.2


def formality(text: str) -> float:
    """0 (casual) .. 1 (formal) from lexical cues and mean word length; 0.5 when there is no evidence."""
    formal, informal = len(_FORMAL.findall(text)), len(_INFORMAL.findall(text))
    score = (formal + 1) / (formal + informal + 2)
    latin = re.findall(r"[A-Za-z]+", text)
    if latin:
        mean_len = sum(map(len, latin)) / len(latin)
        score += max(-0.1, min(0.1, (mean_len - 4.7) * 0.05))  # ~4.7 letters is average English prose
    return round(min(1.0, max(0.0, score)), 3)


def _structure_fields(lines: list[str]) -> dict:
    content = [ln for ln in lines if ln.strip()]
    levels = sorted({len(m.group(1)) for ln in content if (m := _HEADING.match(ln))})
    bullets = sum(bool(_BULLET.match(ln)) for ln in content)
    table_rows = sum(bool(_TABLE_ROW.match(ln)) and not _TABLE_RULE.match(ln) for ln in content)
    return {"heading_levels": levels, "headings": sum(bool(_HEADING.match(ln)) for ln in content),
            "bullet_ratio": round(bullets / len(content), 3) if content else 0.0, "table_rows": table_rows}


def _labels(fields: dict) -> dict:
    structured = fields["bullet_ratio"] >= STRUCTURED_MIN or len(fields["heading_levels"]) >= 2 or fields["table_rows"]
    some_structure = fields["headings"] or fields["bullet_ratio"] > 0
    return {
        "tone": "formal" if fields["formality"] >= FORMAL_MIN else "casual" if fields["formality"] < CASUAL_MAX
        else "professional",
        "structure": "highly structured" if structured else "moderate" if some_structure else "free-form",
        "detail": "concise" if fields["words"] < CONCISE_MAX_WORDS else "comprehensive"
        if fields["words"] >= COMPREHENSIVE_MIN_WORDS else "balanced",
    }


def _summary(f: dict) -> str:
    language = {"en": "English", "zh": "Chinese"}[f["language"]]
    levels = f["heading_levels"]
    headings = f"headings H{levels[0]}-H{levels[-1]}" if len(levels) > 1 else f"H{levels[0]} headings" if levels \
        else "no headings"
    table = f"a {f['table_rows']}-row table" if f["table_rows"] else "no table"
    return (f"{language}, {f['tone']}, {f['structure']} ({headings}, {f['bullet_ratio']:.0%} bullet lines, {table}); "
            f"{f['words']} words, {f['avg_sentence_words']:.1f} words per sentence, formality {f['formality']:.2f}")


def describe_style(text: str) -> dict:
    """Measured style fields (see the module docstring) plus tone/structure/detail labels and a summary line."""
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    latin = len(re.findall(r"[A-Za-z]", text))
    prose = "\n".join(ln for ln in text.splitlines() if not (_HEADING.match(ln) or _TABLE_ROW.match(ln)))
    sentences = [s for s in split_sentences(prose) if word_count(s)]  # headings and table rows are not prose
    fields = {
        # zh when Chinese carries a fifth of the text's weight (a character ~ 4 letters): Chinese writers'
        # documents mix in English names, terms and quotes, English writers' hardly ever the reverse
        "language": "zh" if cjk and cjk * 4 >= (cjk * 4 + latin) * ZH_MIN_SHARE else "en",
        "words": word_count(text),
        "characters": len(text),
        **_structure_fields(text.splitlines()),
        "avg_sentence_words": round(sum(map(word_count, sentences)) / len(sentences), 2) if sentences else 0.0,
        "formality": formality(text),
    }
    fields.update(_labels(fields))
    fields["summary"] = _summary(fields)
    return fields
