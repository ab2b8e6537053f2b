"""Attribute-value judge for Profile Reconstruction: does the answer assert the reference *value*?

Word overlap rewards echoes: "reading strategy" alone shares half its words with "reading strategy:
Search-first". This judge instead reads which tier (L/M/R, paper Table 8) of one behavioural attribute
an answer asserts, and compares tiers, which are ordered (L and R are opposite, M is adjacent to both):

1. The reference is mapped to a tier: its Table 8 value word ("Search-first"), optionally after
   "<label>:", or a bare tier letter; else by the cue phrases below. A reference naming no single
   tier is a `ValueError`.
2. The answer's assertions are cue hits per tier. `VOCABULARY` holds, per attribute and tier, phrases
   written from the meaning of Table 8's values and the dimension descriptions (English, some Chinese).
   Phrases match on normalised tokens (light stemming; negators "not/no/never/nothing/without/rarely/
   n't/不/没/无..." become "not"), in order with at most MAX_GAP words between them, within one clause.
   Overlapping hits keep the longest phrase ("never delete" beats "delete"). A hit counts only if one
   of its words is neither a function word nor a word of the attribute's name, label or the question,
   so echoing the question asserts nothing. A hit preceded in its clause (within NEG_WINDOW tokens)
   by a negator outside any hit is negated and dropped ("does not search" is not search-first), and
   so is one that continues a negative phrase ("no charts or images": images are negated too).
   NEUTRAL phrases take their words out of play ("structured data" says nothing about layout).
3. Tiers with hits are asserted; when one tier has at least DOMINANCE times the hits of each other tier
   (and at least two), the others count as incidental mentions. Scores: the reference tier alone ->
   5 with specific evidence (a number in a sentence asserting it, or EVIDENCE_CUES distinct cues),
   else 4; the reference hedged with a neighbour -> 3; an adjacent tier alone -> 3; the reference
   together with its opposite, the opposite hedged, or both neighbours of M -> 2; the opposite alone,
   or nothing asserted -> 1.

Deterministic: same inputs, same (score, rationale).
"""

from __future__ import annotations

import functools
import re

from filegram_kit.llm.algorithms.text import CJK, split_sentences, stem
from filegram_kit.traces.schema import ATTRIBUTES, BEHAVIORAL_ATTRIBUTES, TIERS, Tier

MAX_GAP = 2  # words allowed between two words of a cue phrase
NEG_WINDOW = 4  # a negator this many tokens before a hit (same clause) negates it
DOMINANCE = 2
EVIDENCE_CUES = 3
RUBRIC = {5: "asserts the reference value with specific evidence", 4: "asserts the reference value",
          3: "an adjacent value, or hedges between the reference and a neighbour",
          2: "the opposite value hedged, or mostly wrong", 1: "the opposite value, or asserts no value"}

# attribute -> (L cues, M cues, R cues), "|"-separated phrases
VOCABULARY: dict[str, tuple[str, str, str]] = {
    "reading_strategy": (
        "sequential deep|sequential|sequentially|deep reading|reads deeply|in depth|in full|full text|one by one|"
        "one after another|line by line|cover to cover|start to finish|beginning to end|linear|"
        "linearly|closely|close reading|re-read|rereads|逐个|顺序|通读|精读|从头到尾",
        "search-first|targeted|targeted search|search|grep|keyword|query|look up|"
        "lookup|jumps to|jumps straight|opens only matches|only the matching|matching files|search results|"
        "find specific|搜索|检索|关键词|关键字",
        "breadth-first|breadth|browse|skim|scan|survey|overview|lists folders|lists directories|many files quickly|"
        "widely|wide|broad|broadly|glance|explores|wanders|浏览|略读|快速翻阅|广泛|泛读"),
    "thoroughness": (
        "exhaustive|exhaustively|thorough|thoroughly|everything|every file|all files|all the material|complete|"
        "completely|comprehensive coverage|skips nothing|nothing skipped|in full|entire|entirely|详尽|全面|彻底",
        "selective|selectively|relevant|only what is relevant|key files|key parts|key sections|focused|"
        "important parts|picks|prioritises|prioritizes|选择性|有选择|重点",
        "minimal|minimally|minimum|bare minimum|little|few files|one or two files|skim|superficial|superficially|"
        "cursory|quick look|quickly|glance|briefly|最少|粗略|草草"),
    "tone": (
        "formal|formally|academic|academically|scholarly|scientific|rigorous|impersonal|third person|citations|"
        "cites|正式|学术|严谨",
        "professional|professionally|business|businesslike|neutral|workplace|polite|matter-of-fact|专业|商务|中性",
        "casual|casually|informal|informally|conversational|chatty|relaxed|colloquial|friendly|slang|emoji|"
        "playful|laid-back|随意|口语|轻松|随性"),
    "output_detail": (
        "comprehensive|comprehensively|extensive|extensively|exhaustive|lengthy|long documents|long reports|"
        "long outputs|long texts|verbose|in-depth|every detail|highly detailed|very detailed|richly detailed|"
        "many sections|elaborate|thorough|详细|全面|详尽|长篇",
        "balanced|moderate|moderate length|medium length|medium|essentials|reasonable length|reasonable detail|"
        "adequate|moderately detailed|适中|平衡|适度",
        "concise|concisely|brief|briefly|short|succinct|terse|minimal|minimalist|to the point|only what is needed|"
        "only what's needed|few lines|sparse|compact|简洁|简短|简要|精炼"),
    "output_structure": (
        "highly structured|heavily structured|very structured|strongly structured|many headings|"
        "heading|header|sections|subsections|numbered sections|numbered lists|hierarchical|outline|"
        "table of contents|template|rigid structure|结构化|层次分明|标题|条理清晰",
        "moderate|moderately|moderately structured|some structure|some headings|a few headings|few headings|"
        "light structure|lightly structured|somewhat structured|partly structured|a few sections|some sections|"
        "loose outline|basic structure|simple structure|适度|适中|部分结构",
        "free-form|freeform|unstructured|plain paragraphs|paragraphs|prose|running text|loosely|loose|"
        "no headings|no sections|no structure|stream of consciousness|自由|随意|无结构"),
    "documentation": (
        "extensive|extensively|thorough|detailed notes|detailed readme|readme|comments|changelog|"
        "change log|documents everything|every step|annotated|annotations|well documented|fully documented|"
        "heavily documented|detailed documentation|大量文档|详细说明|详细记录|注释",
        "moderate|moderately|some notes|some documentation|occasional notes|occasionally|brief notes|"
        "brief readme|short readme|a few notes|when needed|as needed|partly documented|适量|适度|偶尔记录",
        "minimal|minimally|little documentation|little|barely|no readme|no notes|no documentation|undocumented|"
        "rarely documents|sparse|hardly any|few notes|很少|几乎不写|不写文档"),
    "directory_style": (
        "nested|deeply nested|deep|deeply|deep hierarchy|hierarchy|hierarchical|3+ levels|three levels|"
        "three or more levels|many levels|multiple levels|several levels|subfolders within subfolders|"
        "sub-subfolders|nested subfolders|tree|多层|嵌套|层级很深|深层",
        "adaptive|adaptively|1-2 levels|1-2|one or two levels|one to two levels|two levels|shallow|"
        "shallow hierarchy|a few folders|few folders|some folders|a couple of folders|a few subfolders|"
        "few subfolders|some subfolders|moderate|moderately|when needed|as needed|一到两层|一两层|适度|少量文件夹",
        "flat|flatly|root only|root|top level|single level|one level|single folder|one folder|no folders|"
        "no subfolders|never creates folders|everything in one place|"
        "扁平|根目录|不建文件夹|平铺"),
    "naming": (
        "systematic|systematically|consistent|consistently|convention|naming convention|standardized|"
        "standardised|standard|uniform|prefix|date prefix|date stamps|dates in|numbered|pattern|"
        "template|规范|统一|系统化|系统",
        "semi-structured|semistructured|partly consistent|partially consistent|mostly consistent|"
        "somewhat consistent|loosely consistent|loose convention|loosely|mixed|mix of|descriptive|"
        "some convention|partly systematic|半结构化|部分规范|大致统一",
        "ad-hoc|adhoc|arbitrary|arbitrarily|random|randomly|inconsistent|inconsistently|not consistent|"
        "no convention|whatever|untitled|haphazard|messy|improvised|spontaneous|"
        "随意|随便|杂乱|临时"),
    "version_strategy": (
        "explicit v1/v2|explicit|explicitly|v1|v2|v3|version numbers|numbered versions|versioned copies|"
        "version suffix|draft_v2|final_v2|new version|separate versions|版本号|显式版本",
        "backup copies|backup|backs up|.bak|copy|duplicate|keeps a copy|copy before|"
        "备份|副本|复制",
        "in-place overwrite|in place|overwrite|overwritten|replaces|"
        "edits directly|directly|no versions|no backups|no copies|single copy|one copy|only one copy|"
        "覆盖|直接覆盖|原地修改|不保留"),
    "edit_strategy": (
        "incremental|incrementally|small edits|small changes|small steps|many small|tweaks|piecemeal|step by step|"
        "gradual|gradually|little by little|bit by bit|patch|line by line|fine-grained|targeted edits|"
        "增量|小幅|逐步|一点点",
        "balanced|balanced refinement|moderate|moderate edits|a few edits|some edits|mix of edits|mixed|"
        "medium-sized|medium|refines|refinement|平衡|适度修改",
        "bulk rewrite|bulk|rewrite|rewritten|rewrote|from scratch|whole file|entire file|wholesale|"
        "at once|all at once|regenerates|replaces the whole|starts over|重写|全部重写|整体替换|推倒重来"),
    "error_handling": (
        "cautious|cautiously|careful|backup|backs up|backs everything up|always backs up|safety copy|"
        "defensive|defensively|conservative|checks before|verifies|precaution|.bak|"
        "谨慎|小心|备份|稳妥",
        "selective backup|selectively|selective|sometimes backs up|occasionally backs up|backs up important|"
        "only important|important files|some backups|partial backup|occasional backup|选择性备份|部分备份|有时备份",
        "direct|directly|no backup|without backing up|straight|straightaway|"
        "immediately|risky|bold|boldly|fearless|just edits|直接|不备份|没有备份|大胆"),
    "revision_depth": (
        "multi-pass|multiple passes|several passes|multiple rounds|several rounds|many rounds|"
        "repeatedly|repeated|again and again|iterates|iterative|iteratively|keeps revising|revisits|"
        "three passes|3 passes|numerous|多轮|多次修改|反复",
        "two-pass|2 passes|twice|second pass|one revision|one round of revision|draft then revise|"
        "draft and revise|revises once|once more|two rounds|两轮|两遍|修改一次",
        "single-pass|one pass|1 pass|one go|one shot|once|write once|written once|first draft|"
        "never revises|no revision|done in one|一次|一遍|一次完成|不修改"),
    "working_style": (
        "phased|in phases|methodical|methodically|step by step|stage by stage|in stages|plans ahead|plans first|"
        "planned approach|orderly|structured approach|deliberate|organized|organised|"
        "分阶段|有条理|按部就班|有计划",
        "pragmatic|pragmatically|practical|flexible|flexibly|as needed|adapts|adaptive|steady|moderate pace|"
        "balanced|务实|灵活|实用",
        "burst-mode|burst|bursty|sprint|spurts|intense|intensely|rapid|rapidly|all at once|"
        "quick bursts|frantic|sporadic|sporadically|irregular|in one sitting|突击|集中爆发|爆发|一口气"),
    "cleanup_policy": (
        "aggressive cleanup|aggressive|aggressively|deletes|removes|purges|prunes|cleans up|tidies|lean|"
        "selective cleanup|active cleanup|actively|discards|throws away|积极清理|删除|清理|清除",
        "periodic archival|periodic|periodically|archival|archive|now and then|from time to time|occasionally|"
        "occasional|sometimes deletes|sometimes cleans|moves old|pragmatic cleanup|moderate cleanup|pragmatic|"
        "moderate|some cleanup|occasionally cleans up|定期归档|归档|定期|偶尔清理",
        "never delete|no deletion|nothing deleted|deletes nothing|keeps everything|keeps all|retains|"
        "retains everything|preserves|preservative|accumulative|accumulates|hoards|piles up|leaves files|"
        "keeps old|从不删除|不删除|全部保留|保留所有|堆积"),
    "cross_modal": (
        "visual-heavy|visually heavy|heavily visual|chart|figure|image|diagram|plot|graph|illustrations|"
        "screenshots|pictures|visualizations|visualisations|png|jpg|svg|图表|图片|可视化|插图",
        "balanced|table|tabular|csv|spreadsheet|structured data|data files|some visuals|a few charts|"
        "occasional charts|表格|数据表",
        "text-only|only text|just text|purely text|purely textual|plain text|no images|no charts|"
        "no figures|no visuals|prose only|words only|"
        "纯文本|只有文字|仅文字|无图"),
    "output_modality": (
        "multi-format|multiformat|multiple formats|multiple file types|several formats|"
        "several file types|various formats|variety of formats|different formats|mixed formats|three formats|"
        "3 formats|多种格式|多格式",
        "dual-format|two formats|2 formats|two file types|pairs|both markdown and|"
        "markdown plus|双格式|两种格式",
        "single-format|one format|1 format|one file type|single file type|same format|"
        "only markdown|markdown only|just markdown|only one format|always markdown|uniform format|"
        "单一格式|一种格式"),
}
# attribute -> phrases that contain a cue word but assert no value of it ("structured data" is not layout)
NEUTRAL: dict[str, str] = {
    "output_structure": "structured data|structured data file",
    "cross_modal": "table of contents",
    "directory_style": "root cause",
    "revision_depth": "at once|all at once",
}

NOT = "not"
_NEGATORS = frozenset("not no never nothing none without nor neither cannot rarely seldom 不 没 未 无 别 非".split())
_CONJUNCTIONS = frozenset("but while whereas instead rather though although yet however 但 却".split())
FUNCTION_WORDS = frozenset(
    "a an the of to in on at by for and or with as is are was be it its their they them this that these those "
    "user users s what which how who".split())
SEP = "|"  # clause boundary token
_TOKEN = re.compile(rf"[{CJK}]|[a-z]+\d*(?:'[a-z]+)?|\d+|[.,;:!?()\[\]\n，。；：！？、（）]")
_DOUBLE = re.compile(r"([b-df-hj-km-np-rtv-y])\1$")  # skimm -> skim (not ll, ss, zz)


def _norm(word: str) -> str:
    """A word's matching form: negators -> 'not', light stem, double consonant and final e dropped."""
    if word in _NEGATORS or word.endswith("n't"):
        return NOT
    word = word.removesuffix("'s")
    if word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    base = stem(word)
    if base != word and word.endswith(("ing", "ed")):
        base = _DOUBLE.sub(r"\1", base)
    return base[:-1] if base.endswith("e") and len(base) > 4 else base


@functools.lru_cache(maxsize=65_536)
def tokenize(text: str) -> tuple[str, ...]:
    """Normalised tokens; clause boundaries (punctuation, line breaks, contrastive conjunctions) as SEP."""
    out = []
    for raw in _TOKEN.findall(text.lower().replace("’", "'")):
        if raw in _CONJUNCTIONS or not (raw.isalnum() or "'" in raw):
            out.append(SEP)
        else:
            out.append(_norm(raw))
    return tuple(out)


def _phrase(cue: str) -> tuple[str, ...]:
    return tuple(t for t in tokenize(cue) if t != SEP)


@functools.lru_cache(maxsize=64)
def _cues(attribute: str) -> tuple[tuple[Tier | None, str, tuple[str, ...]], ...]:
    """(tier, cue text, normalised phrase) of an attribute, each phrase once; tier None for NEUTRAL phrases."""
    seen, out = set(), []
    lists = (*zip(TIERS, VOCABULARY[attribute], strict=True), (None, NEUTRAL.get(attribute, "")))
    for tier, text in lists:
        for cue in text.split("|"):
            phrase = _phrase(cue)
            if phrase and phrase not in seen:
                seen.add(phrase)
                out.append((tier, cue, phrase))
    return tuple(out)


def _find(tokens: tuple[str, ...], phrase: tuple[str, ...]) -> list[tuple[int, int]]:
    """(start, end) of each in-order occurrence of phrase within one clause, gaps of at most MAX_GAP."""
    spans = []
    for start, tok in enumerate(tokens):
        if tok != phrase[0]:
            continue
        end = start
        for word in phrase[1:]:
            nxt = next((k for k in range(end + 1, min(end + 2 + MAX_GAP, len(tokens)))
                        if tokens[k] == word or tokens[k] == SEP), None)
            if nxt is None or tokens[nxt] == SEP:
                break
            end = nxt
        else:
            spans.append((start, end))
    return spans


def echo_words(attribute: str, question: str = "") -> frozenset[str]:
    """Words that assert nothing for this attribute: its name, its label and the question's words."""
    text = f"{attribute} {attribute.replace('_', ' ')} {question}"
    return frozenset(t for t in tokenize(text) if t not in (SEP, NOT))


def cue_hits(attribute: str, answer: str, question: str = "") -> dict[str, list[tuple[Tier, str]]]:
    """{"asserted": [(tier, cue)], "negated": [...]}: the cue phrases an answer asserts or negates."""
    if attribute not in VOCABULARY:
        raise ValueError(f"judge_attribute: {attribute!r} is not a behavioural attribute; "
                         f"one of {', '.join(BEHAVIORAL_ATTRIBUTES)}")
    tokens, echo = tokenize(answer), echo_words(attribute, question)
    found = []
    for tier, cue, phrase in _cues(attribute):
        if all(w in FUNCTION_WORDS or w in echo for w in phrase):
            continue  # a phrase made only of the question's words would let an echo assert a value
        found.extend((start, end, len(phrase), tier, cue) for start, end in _find(tokens, phrase))
    taken: list[tuple[int, int, Tier | None, str]] = []
    for start, end, _, tier, cue in sorted(found, key=lambda f: (-f[2], f[1] - f[0], f[0])):
        if all(end < s or start > e for s, e, _, _ in taken):
            taken.append((start, end, tier, cue))
    # token -> whether the hit covering it is a negative phrase ("no X")
    owner = {i: tokens[s] == NOT and tier is not None for s, e, tier, _ in taken for i in range(s, e + 1)}
    hits: dict[str, list[tuple[Tier, str]]] = {"asserted": [], "negated": []}
    for start, _, tier, cue in sorted(taken, key=lambda h: h[:2]):
        if tier is None:
            continue
        hits["negated" if _negated(tokens, start, owner) else "asserted"].append((tier, cue))
    return hits


def _negated(tokens: tuple[str, ...], start: int, owner: dict[int, bool]) -> bool:
    """A free negator within NEG_WINDOW tokens before the hit in its clause, or a "no X" hit that the hit
    continues across function words only ("no charts or images", "no backup copies")."""
    only_function = True
    for k in range(start - 1, max(-1, start - 1 - NEG_WINDOW), -1):
        if tokens[k] == SEP:
            return False
        if k in owner:
            return owner[k] and only_function
        if tokens[k] == NOT:
            return True
        only_function = only_function and tokens[k] in FUNCTION_WORDS
    return False


def asserted_tiers(attribute: str, answer: str, question: str = "", *,
                   hits: dict[str, list[tuple[Tier, str]]] | None = None) -> tuple[dict[Tier, list[str]], set[Tier]]:
    """Distinct asserted cues per tier, and the tiers the answer asserts (after the dominance rule)."""
    by_tier: dict[Tier, list[str]] = {}
    for tier, cue in (hits or cue_hits(attribute, answer, question))["asserted"]:
        if cue not in by_tier.setdefault(tier, []):
            by_tier[tier].append(cue)
    counts = sorted(((len(c), t) for t, c in by_tier.items()), key=lambda x: (-x[0], x[1].index))
    if len(counts) > 1 and counts[0][0] >= 2 and all(counts[0][0] >= DOMINANCE * n for n, _ in counts[1:]):
        return by_tier, {counts[0][1]}
    return by_tier, set(by_tier)


def _plain(text: str) -> str:
    return " ".join(text.lower().replace("–", "-").replace("—", "-").split()).strip(" .")


def reference_tier(attribute: str, reference: str) -> Tier:
    """The tier a reference names: its Table 8 value (after an optional '<label>:'), a tier letter, or cues."""
    if attribute not in VOCABULARY:
        raise ValueError(f"judge_attribute: {attribute!r} is not a behavioural attribute")
    values = ATTRIBUTES[attribute].tiers
    text = _plain(reference)
    head, sep, tail = text.partition(":")
    if sep and head.strip() in (attribute, attribute.replace("_", " ")):
        text = tail.strip()
    for tier, value in values.items():
        if text == _plain(value):
            return tier
    if text.upper() in ("L", "M", "R"):
        return Tier.parse(text)
    _, tiers = asserted_tiers(attribute, text)
    if len(tiers) != 1:
        shown = ", ".join(f"{t.value} {v!r}" for t, v in values.items())
        raise ValueError(f"judge_attribute: cannot tell which {attribute} value the reference {reference!r} "
                         f"names ({'several' if tiers else 'none'} found); values: {shown}")
    return next(iter(tiers))


def _evidence(attribute: str, ref: Tier, answer: str, question: str, cues: list[str]) -> bool:
    """Specific evidence: several distinct cues of the reference, or a number (not one of the attribute's
    value words, like the 3 of "3+ levels") in a sentence that asserts the reference."""
    if len(cues) >= EVIDENCE_CUES:
        return True
    value_numbers = {t for v in ATTRIBUTES[attribute].tiers.values() for t in tokenize(v) if t.isdigit()}
    for sentence in split_sentences(answer):
        if any(t.isdigit() and t not in value_numbers for t in tokenize(sentence)) and \
                any(tier == ref for tier, _ in cue_hits(attribute, sentence, question)["asserted"]):
            return True
    return False


def _score(ref: Tier, tiers: set[Tier], evidence: bool) -> int:
    opposite = {Tier.L: Tier.R, Tier.R: Tier.L}.get(ref)
    if not tiers:
        return 1
    if tiers == {ref}:
        return 5 if evidence else 4
    if ref in tiers:
        return 2 if opposite in tiers or len(tiers) == 3 else 3
    if opposite is None:  # reference M: neighbours only
        return 3 if len(tiers) == 1 else 2
    return 1 if tiers == {opposite} else 3 if opposite not in tiers else 2


def judge_attribute(attribute: str, reference: str, answer: str, question: str = "") -> tuple[int, str]:
    """(score 1..5, rationale): how well `answer` asserts the reference value of one behavioural attribute."""
    ref = reference_tier(attribute, reference)
    hits = cue_hits(attribute, answer, question)
    by_tier, tiers = asserted_tiers(attribute, answer, question, hits=hits)
    score = _score(ref, tiers, tiers == {ref} and _evidence(attribute, ref, answer, question, by_tier[ref]))
    found = "; ".join(f"{t.value} ({', '.join(c[:4])})" for t, c in sorted(by_tier.items(), key=lambda x: x[0].index))
    parts = [f"reference {ref.value} ({ATTRIBUTES[attribute].tiers[ref]})",
             f"answer asserts {found}" if found else "answer asserts no value"]
    if by_tier and tiers != set(by_tier):
        parts.append(f"taken as {'/'.join(sorted(t.value for t in tiers))} (dominant)")
    if hits["negated"]:
        parts.append("negated: " + ", ".join(f"{c} ({t.value})" for t, c in hits["negated"][:4]))
    parts.append(f"rubric {score}: {RUBRIC[score]}")
    return score, "; ".join(parts)
