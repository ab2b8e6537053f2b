"""Style description of a document from what can be measured in it (no judgement calls hidden).

Structure: Markdown heading levels, the share of non-empty lines that are bullets, table rows
(header included, separator rows excluded). Length: words (CJK characters count one each) and
characters. Rhythm: mean words per sentence (bullets count, headings and table rows do not).

Formality in [0, 1] is register measured by general linguistic features, not by a word list of any
one writer: sentence-initial linking adverbials set off by a comma ("In the end, ...", Biber et al.'s
most academic-prose-typical placement) and modal stance frames ("... may be argued that") read
formal; sentences that start in lower case, exclamation marks, contractions and emoji read casual;
polysyllabic words (3+ syllables) and long words nudge it up (readability research's proxy for
formal vocabulary). Chinese: written-register function words (以及, 进行, 鉴于 ...) against spoken
ones (一下, 咱们 ...), reduplicated verbs (看看) and sentence-final particles (吧, 呢 ...). The
evidence is summed into a logistic score, so a text without prose is 0.5. The categorical fields
the describe_style task asks of an LLM (tone, structure, detail) are derived from these numbers
with the thresholds below.
"""

from __future__ import annotations

import functools
import math
import re

from filegram_kit.llm.algorithms.text import CJK, CJK_RUN, TABLE_RULE, split_sentences, word_count

_HEADING = re.compile(r"^(#{1,6})\s+\S")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+\S")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
# register cues (general English and Chinese grammar, see the module docstring)
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_VOWEL_RUN = re.compile(r"[aeiouy]+")
_LINKING_OPENER = re.compile(r"^[A-Z][a-z]+(?: [a-z]+){0,2}, ")  # "Consequently, " / "On the whole, "
_STANCE_FRAME = re.compile(r"\b(?:should|would|must|may|might|could)\s+(?:be\s+)?[a-z]+\s+that\b")
_CONTRACTION = re.compile(r"\b[A-Za-z]+(?:n['’]t|['’](?:re|ve|ll|m|d))\b")
_EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]")
_ZH_WRITTEN = re.compile(r"综上所述|特此|敬请|您|以及|进行|予以|对于|关于|鉴于|因此|然而|并且|从而|此外|其中|之|其|而")
_ZH_SPOKEN = re.compile(r"一下|咱们|这么|那么|挺|蛮|啥")
_ZH_REDUPLICATED = re.compile(f"([{CJK}])[了一]?\\1")  # 看看, 翻了翻, 想一想
_ZH_PARTICLE = re.compile(r"[吧呢啊呀啦嘛哦呗哈哇](?=[。！？!?~～…]*$)")
AVERAGE_WORD, AVERAGE_LONG_SHARE = 4.7, 0.15  # letters per word, 3+ syllable share of everyday English prose
STRUCTURED_MIN = 0.3  # bullet share (or headings at 2+ levels, or a table) for "highly structured"
CONCISE_MAX_WORDS, COMPREHENSIVE_MIN_WORDS = 150, 600
FORMAL_MIN, CASUAL_MAX = 0.65, 0.4
ZH_MIN_SHARE = 0.2


@functools.lru_cache(maxsize=65_536)  # a vocabulary, counted again for every text that uses it
def syllables(word: str) -> int:
    """Vowel groups of an English word, a silent final e not counted (the usual readability estimate)."""
    w = word.lower()
    n = len(_VOWEL_RUN.findall(w))
    return max(1, n - (n > 1 and w.endswith("e") and not w.endswith(("le", "ee"))))


def register_cues(text: str) -> dict[str, float]:
    """The measured cues formality() weighs: per-sentence rates (capped) and Latin word statistics."""
    prose = "\n".join(ln for ln in text.splitlines() if not (_HEADING.match(ln) or _TABLE_ROW.match(ln)))
    sentences = [s for s in split_sentences(prose) if re.search(f"[A-Za-z{CJK}]", s)]
    words = _LATIN_WORD.findall(prose)
    letters, cjk = sum(map(len, words)), len(re.findall(f"[{CJK}]", prose))
    n = max(1, len(sentences))

    def rate(count: int, cap: float = 1.0) -> float:
        return min(cap, count / n)

    spoken_zh = (len(_ZH_SPOKEN.findall(prose)) + len(_ZH_REDUPLICATED.findall(prose))
                 + sum(bool(_ZH_PARTICLE.search(s)) for s in sentences))
    return {
        "sentences": float(len(sentences)),
        "linking_openers": rate(sum(bool(_LINKING_OPENER.match(s)) for s in sentences)),
        "stance_frames": rate(len(_STANCE_FRAME.findall(prose))),
        "lowercase_starts": rate(sum(s[0].islower() for s in sentences)),
        "exclamations": rate(prose.count("!") + prose.count("！")),
        "contractions": rate(len(_CONTRACTION.findall(prose))),
        "emoji": rate(len(_EMOJI.findall(prose))),
        "written_zh": rate(len(_ZH_WRITTEN.findall(prose)), 2.0),
        "spoken_zh": rate(spoken_zh, 2.0),
        "latin_share": letters / (letters + 4 * cjk) if letters else 0.0,  # a CJK character ~ 4 letters
        "polysyllabic": sum(syllables(w) >= 3 for w in words) / len(words) if words else 0.0,
        "mean_word": letters / len(words) if words else 0.0,
    }


def formality(text: str) -> float:
    """0 (casual) .. 1 (formal): a logistic of the register cues; 0.5 when the text has no prose."""
    c = register_cues(text)
    if not c["sentences"]:
        return 0.5
    z = (2.0 * c["linking_openers"] + 2.0 * c["stance_frames"] + 1.0 * c["written_zh"]
         - 4.0 * c["lowercase_starts"] - 2.0 * c["exclamations"] - 2.0 * c["contractions"] - 2.0 * c["emoji"]
         - 2.0 * c["spoken_zh"])
    if c["latin_share"]:  # vocabulary: bounded, so that content words cannot outweigh the writer's own cues
        vocabulary = 3.0 * (c["polysyllabic"] - AVERAGE_LONG_SHARE) + 0.5 * (c["mean_word"] - AVERAGE_WORD)
        z += c["latin_share"] * max(-1.0, min(1.0, vocabulary))
    return round(1.0 / (1.0 + math.exp(-z)), 3)


def _structure_fields(lines: list[str]) -> dict:
    content = [ln for ln in lines if ln.strip()]
    levels = sorted({len(m.group(1)) for ln in content if (m := _HEADING.match(ln))})
    bullets = sum(bool(_BULLET.match(ln)) for ln in content)
    table_rows = sum(bool(_TABLE_ROW.match(ln)) and not TABLE_RULE.match(ln) for ln in content)
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
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
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
