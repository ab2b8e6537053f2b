"""Style packs: every word, template and separator the offline agent writes, in one place per pack.

A pack is the engine's *surface*: tone markers, section headings, prose templates, the vocabulary of
the names it invents, separators and date formats. The *behaviour model* (policy knobs, rng draws,
tool calls, event types) is the same for every pack. Pack "A" is the engine's original wording;
pack "B" says the same things in other words, so a memory method tuned to one pack's wording shows
up as a gap between the two (`filegram corpus --style-pack B`).

Why B's strings have exactly A's lengths: the agent's behaviour reads lengths. A report grows section
by section until it reaches a target size (how many sentences, hence how many rng draws), token
counts come from the text it writes and reads (compaction, simulated response times, hence the
30 s cross-file-reference window). A length-preserving relabelling keeps all of that identical, so a
pack-A and a pack-B trajectory of the same seed have the same event types in the same order; only
what the files say differs (`tests/test_engine_style_packs.py` checks the shapes).

Tier contrasts survive the relabelling: formal / professional / casual openers and sentence links
read as such in both packs, and names keep their lengths, so the naming tiers' bands (systematic
>= 25 characters, semi-structured 12-25, ad hoc <= 12) hold for B as they do for A.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StylePack:
    """The surface of the offline agent's outputs; see the module docstring for what may vary."""

    name: str
    # -- documents (compose.py) ----------------------------------------------------------------
    sections: dict[str, tuple[str, str]]  # section key -> (English, Chinese) heading
    openers: dict[tuple[str, str], str]  # (language, tone tier) -> opening sentence, {topic} {n}
    links: dict[tuple[str, str], list[str]]  # (language, tone tier) -> how a sentence {s} is introduced
    bullet: str  # list item marker
    source_line: dict[str, str]  # language -> a Sources entry, {source}
    data_line: str  # a labelled number under a data heading, {label} {value}
    figure_link: dict[str, str]  # language -> Markdown image, {n} {path}
    figure_caption: dict[str, str]  # language -> caption under it, {n} {topic}
    table_heads: dict[str, tuple[str, str]]  # language -> (numbers table head, files table head)
    index_entry: str  # an index line, {name} {path} {description}
    csv_header: str  # the data file's header row
    csv_count_label: str  # the metric of a data row when a file carried no numbers (its line count)
    checked: dict[str, str]  # language -> what a revision appends to a line it checked
    added: dict[str, str]  # language -> a line a revision adds, {k} {text}
    # -- names and folders (naming.py, work.py) ------------------------------------------------
    date_format: str  # systematic namers' date prefix (strftime)
    filler: tuple[str, str]  # words systematic namers add to reach a long name
    fallback_word: str  # a name's word when the description gave none
    separators: dict[str, str]  # the persona's separator (policy: "_" or "-") -> this pack's
    title_case: frozenset[str]  # persona separators whose name words are Capitalised
    spaced: str  # separators an index entry reads as spaces when it describes a file by its stem
    short_zh: tuple[str, ...]  # ad hoc Chinese names
    group_labels: dict[str, tuple[str, str]]  # file kind -> (English, Chinese) folder label
    folders: dict[str, str]  # folder role -> folder name
    version_suffix: str  # stem suffix of a versioned copy (version strategy L)
    index_file: str  # the file a folder's index is written to
    zh_type: dict[str, str]  # task type -> Chinese document kind (a Chinese topic's prefix)
    aux_kinds: tuple[str, ...]  # auxiliary files; the first is the index
    phrases: dict[str, str]  # what a scratch file, a chart, a data file, a script, a part are named after
    prompt_source: str  # the source name of facts taken from the prompt itself

    def heading(self, key: str, lang: str) -> str:
        return self.sections[key][1 if lang == "zh" else 0]

    def separator(self, persona_separator: str) -> str:
        return self.separators[persona_separator]

    def cased(self, words: list[str] | tuple[str, ...], persona_separator: str) -> list[str]:
        """Name words as this persona writes them in this pack (same lengths: only the case changes)."""
        if persona_separator in self.title_case:
            return [w[:1].upper() + w[1:] for w in words]
        return list(words)

    def describe(self, stem: str) -> str:
        """An index entry's description from a file stem: the `spaced` separators read as spaces."""
        for sep in self.spaced:
            stem = stem.replace(sep, " ")
        return stem

    def group_label(self, kind: str, zh: bool) -> str:
        return self.group_labels[kind][1 if zh else 0]


PACK_A = StylePack(
    name="A",
    sections={
        "overview": ("Overview", "概述"), "findings": ("Key findings", "主要发现"), "details": ("Details", "详细内容"),
        "sources": ("Sources", "资料来源"), "next": ("Next steps", "后续步骤"), "risks": ("Open issues", "待解决问题"),
        "figures": ("Figures", "图表"), "data": ("Data summary", "数据汇总"), "appendix": ("Appendix", "附录"),
        "method": ("Method", "工作方法"), "notes": ("Notes", "备注"), "index": ("Index", "索引"),
        "changes": ("Change log", "修改记录"), "structure": ("Folder structure", "目录结构"),
    },
    openers={
        ("en", "L"): "This document presents a systematic account of {topic}, compiled from {n} source files.",
        ("en", "M"): "This document summarises {topic} based on {n} files in the workspace.",
        ("en", "R"): "Quick notes on {topic} - pulled from {n} files.",
        ("zh", "L"): "本文档基于{n}份资料，对{topic}进行了系统的梳理与说明。",
        ("zh", "M"): "本文档根据工作区中的{n}个文件，总结了{topic}。",
        ("zh", "R"): "简单记一下{topic}，参考了{n}个文件。",
    },
    links={
        ("en", "L"): ["Furthermore, {s}", "It should be noted that {s}", "In addition, {s}", "Accordingly, {s}"],
        ("en", "M"): ["{s}", "Also, {s}", "Note: {s}"],
        ("en", "R"): ["{s}", "btw {s}", "{s} - worth a look"],
        ("zh", "L"): ["此外，{s}", "需要指出的是，{s}", "据资料显示，{s}"],
        ("zh", "M"): ["{s}", "另外，{s}", "注意：{s}"],
        ("zh", "R"): ["{s}", "顺便说下，{s}", "{s}（值得看看）"],
    },
    bullet="- ",
    source_line={"en": "- Source: {source}", "zh": "- 来源: {source}"},
    data_line="- {label}: {value}",
    figure_link={"en": "![Figure {n}]({path})", "zh": "![图 {n}]({path})"},
    figure_caption={"en": "*Figure {n}: {topic}*", "zh": "*图 {n}: {topic}*"},
    table_heads={"en": ("| Source | Metric | Value |", "| File | Topic |"),
                 "zh": ("| 文件 | 指标 | 数值 |", "| 文件 | 主题 |")},
    index_entry="- [{name}]({path}) - {description}",
    csv_header="source,metric,value",
    csv_count_label="lines",
    checked={"en": " (checked)", "zh": "（已核对）"},
    added={"en": "- Added {k}: {text}", "zh": "- 补充 {k}: {text}"},
    date_format="%Y-%m-%d",
    filler=("detailed", "report"),
    fallback_word="notes",
    separators={"_": "_", "-": "-"},
    title_case=frozenset(),
    spaced="_",
    short_zh=("笔记", "总结", "报告", "整理", "记录"),
    group_labels={"images": ("images", "图片"), "audio": ("audio", "音频"), "video": ("video", "视频"),
                  "email": ("email", "邮件"), "calendar": ("calendar", "日程"), "data": ("data", "数据"),
                  "documents": ("documents", "文档"), "notes": ("notes", "笔记"), "misc": ("misc", "其他")},
    folders={"archive": "archive", "final": "final", "figures": "figures", "appendix": "appendix",
             "output": "output", "reports": "reports", "work": "work"},
    version_suffix="_v1",
    index_file="README.md",
    zh_type={"understand": "资料梳理", "create": "文档", "organize": "整理说明", "synthesize": "综合分析",
             "iterate": "修订说明", "maintain": "维护记录"},
    aux_kinds=("index", "appendix sources", "glossary notes", "methodology", "action items"),
    phrases={"draft": "draft notes", "figure": "figure {n} overview", "data": "data summary",
             "script": "organize files", "part": "part {n}"},
    prompt_source="task",
)

PACK_B = StylePack(
    name="B",
    sections={
        "overview": ("Synopsis", "概要"), "findings": ("Main results", "核心结论"), "details": ("Aspects", "具体情况"),
        "sources": ("Origins", "参考文件"), "next": ("Follow-ups", "后续安排"), "risks": ("Known risks", "风险与隐患"),
        "figures": ("Visuals", "插图"), "data": ("Stats digest", "数字一览"), "appendix": ("Addendum", "补遗"),
        "method": ("Recipe", "操作流程"), "notes": ("Other", "附注"), "index": ("Files", "目录"),
        "changes": ("Amendments", "变更历史"), "structure": ("Directory layout", "文件布局"),
    },
    openers={
        ("en", "L"): "The present report offers a structured treatment of {topic}, drawing on {n} references.",
        ("en", "M"): "Below is an overview of {topic}, gathered from {n} files in a folder.",
        ("en", "R"): "Rough jots on {topic}, grabbed from {n} files!!",
        ("zh", "L"): "本报告依据{n}份材料，就{topic}作出了全面而严谨的阐述。",
        ("zh", "M"): "以下内容依据工作区里的{n}个文件，概括{topic}。",
        ("zh", "R"): "随手写写{topic}，翻了翻这{n}个文件。",
    },
    links={
        ("en", "L"): ["Importantly, {s}", "We would emphasise that {s}", "Beyond this, {s}", "As a result, {s}"],
        ("en", "M"): ["{s}", "Plus, {s}", "Memo: {s}"],
        ("en", "R"): ["{s}", "fyi {s}", "{s} (good to know)"],
        ("zh", "L"): ["再者，{s}", "值得强调的是，{s}", "从材料来看，{s}"],
        ("zh", "M"): ["{s}", "同时，{s}", "提示：{s}"],
        ("zh", "R"): ["{s}", "顺带一提，{s}", "{s}（可以瞅瞅）"],
    },
    bullet="* ",
    source_line={"en": "* Origin: {source}", "zh": "* 出处: {source}"},
    data_line="* {label}: {value}",
    figure_link={"en": "![Chart #{n}]({path})", "zh": "![图表{n}]({path})"},
    figure_caption={"en": "_Chart #{n}: {topic}_", "zh": "_（图表{n}）{topic}_"},
    table_heads={"en": ("| File | Measure | Amount |", "| Name | Theme |"),
                 "zh": ("| 文档 | 项目 | 数额 |", "| 文档 | 要点 |")},
    index_entry="* [{name}]({path}) — {description}",
    csv_header="file,measure,amount",
    csv_count_label="items",
    checked={"en": " (audited)", "zh": "（已复核）"},
    added={"en": "* Extra {k}: {text}", "zh": "* 增补 {k}: {text}"},
    date_format="%Y.%m.%d",
    filler=("thorough", "digest"),
    fallback_word="memos",
    separators={"_": ".", "-": "."},
    title_case=frozenset({"-"}),
    spaced=".",
    short_zh=("速记", "小结", "汇报", "归纳", "备忘"),
    group_labels={"images": ("photos", "相片"), "audio": ("sound", "录音"), "video": ("clips", "影像"),
                  "email": ("mails", "信件"), "calendar": ("schedule", "行程"), "data": ("sets", "报表"),
                  "documents": ("paperwork", "文稿"), "notes": ("memos", "札记"), "misc": ("odds", "杂项")},
    folders={"archive": "storage", "final": "ready", "figures": "visuals", "appendix": "addendum",
             "output": "export", "reports": "results", "work": "main"},
    version_suffix="-r1",
    index_file="_index.md",
    zh_type={"understand": "材料解读", "create": "文稿", "organize": "归档说明", "synthesize": "汇总研判",
             "iterate": "改版记录", "maintain": "更新日志"},
    aux_kinds=("index", "citation records", "concepts guide", "walkthrough", "future steps"),
    phrases={"draft": "rough ideas", "figure": "visual {n} synopsis", "data": "core metrics",
             "script": "classify items", "part": "unit {n}"},
    prompt_source="spec",
)

PACKS = {p.name: p for p in (PACK_A, PACK_B)}


def folder_spelling(pack: StylePack) -> dict[str, str]:
    """This pack's folder names -> pack A's (sort keys: `OfflineAgent.canonical`); empty for pack A."""
    if pack is PACK_A:
        return {}
    pairs = [(pack.folders[k], PACK_A.folders[k]) for k in pack.folders]
    pairs += [(pack.group_labels[k][i], PACK_A.group_labels[k][i]) for k in pack.group_labels for i in (0, 1)]
    return dict(pairs)


def get_pack(name: str) -> StylePack:
    """The style pack called `name` ("A", the default wording, or "B")."""
    try:
        return PACKS[name]
    except KeyError:
        raise ValueError(f"unknown style pack {name!r}; packs: {', '.join(PACKS)}") from None
