"""What the offline agent writes: documents built from what it read, in the persona's style.

The agent keeps `Fact`s from each file it read (title, informative lines, labelled numbers) and
composes its outputs from them, so an output file really carries the workspace's content. Style
knobs come from the policy: language (en/zh), tone (formal/professional/casual), heading depth,
target length, Markdown tables, figure references. `revise` produces real edits of a given size.
Every word and template of the scaffolding comes from the style pack (`style_packs.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import numpy as np

from .style_packs import PACK_A, StylePack

_LINE_NO = re.compile(r"^\s*\d+\t")
_NUMBER = re.compile(r"(?P<label>[A-Za-z][A-Za-z &/()-]{2,40}?)\s*[:=]\s*[$€£¥]?(?P<value>-?\d[\d,]*(?:\.\d+)?)")

@dataclass
class Fact:
    """What the agent retained from one file it read."""

    source: str
    title: str
    lines: list[str] = field(default_factory=list)
    numbers: list[tuple[str, float]] = field(default_factory=list)


_HEADER = re.compile(r"^(?:[A-Z][A-Za-z]*-)*[A-Z][A-Za-z]*:\s")  # 'Message-ID: ...', 'From: ...'
_ICS_KEY = re.compile(r"^[A-Z][A-Z-]+[:;]")  # 'DTSTART:2024...', 'SUMMARY:...' (calendar properties)
_CONTENT_HEADERS = ("Subject:", "SUMMARY:", "Title:")
_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]|\bMrs?|\bMs|\bDr|\bSt|\bNo|\bvs|\bInc|\bLtd|\bCo|\be\.g|\bi\.e)\.$")
_NUMERIC = re.compile(r"^-?\d[\d,]*(?:\.\d+)?%?$")


def _csv_numbers(line: str) -> list[tuple[str, float]]:
    """A data row 'date,company,metric,value,...' as (company metric, value)."""
    cells = [c.strip() for c in line.split(",")]
    values = [c for c in cells if _NUMERIC.match(c)]
    words = [c for c in cells if c and not _NUMERIC.match(c) and not c[:4].isdigit()]
    return [(" ".join(words[:2])[:30], float(values[0].rstrip("%").replace(",", "")))] if values and words else []


def _sentences(lines: list[str]) -> list[str]:
    """Whole sentences from lines that may be wrapped (PDF text, filled paragraphs)."""
    out: list[str] = []
    for part in re.split(r"(?<=[.!?])\s+(?=[A-Z\[])", " ".join(lines)):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] += " " + part  # 'Goh v. Goh', 'Dr. Tan': not a sentence end
        elif part.strip():
            out.append(part.strip())
    return out


def extract_fact(source: str, observed: str, keep: int = 6) -> Fact:
    """Title, informative sentences and labelled numbers from a read tool's numbered output.

    Mail and calendar headers (the subject becomes the title) and CSV rows are not prose: rows give
    numbers, headers nothing. Wrapped lines are joined back into sentences first.
    """
    raw = [_LINE_NO.sub("", line).strip() for line in observed.splitlines()]
    lead = next((i for i, line in enumerate(raw) if not line), len(raw))  # a mail's header block ends at a blank
    raw = [line.split(":", 1)[1].strip() if line.startswith("DESCRIPTION:") else line for line in raw]
    headers = {i for i, line in enumerate(raw) if (i < lead and _HEADER.match(line)) or _ICS_KEY.match(line)}
    lines = [line.lstrip("#>*- ").strip() for i, line in enumerate(raw) if line.strip() and i not in headers]
    subject = next((raw[i].split(":", 1)[1].strip() for i in sorted(headers)
                    if raw[i].startswith(_CONTENT_HEADERS)), None)
    rows = [line for line in lines if line.count(",") >= 3]
    prose = [line for line in lines if line not in rows]
    title = (subject or next((line for line in prose if len(line) > 3), PurePosixPath(source).stem))[:90]
    sentences = _sentences([line for line in prose if line != title])
    scored = [(-(any(c.isdigit() for c in line)), -(len(line) > 40), i, line)
              for i, line in enumerate(sentences) if 20 <= len(line) <= 240 and "|" not in line]
    body = [item[-1] for item in sorted(scored)[:keep]]
    numbers = [pair for line in rows[1:] for pair in _csv_numbers(line)]
    for line in prose:
        for m in _NUMBER.finditer(line):
            numbers.append((m["label"].strip()[:30], float(m["value"].replace(",", ""))))
    return Fact(source, title, body, numbers[:8])


@dataclass(frozen=True)
class Style:
    lang: str = "en"  # en | zh
    tone: str = "M"  # L formal / M professional / R casual
    heading_depth: int = 2  # deepest heading level used (1..4)
    target_chars: int = 1500
    tables: int = 0  # Markdown tables to include
    figures: tuple[str, ...] = ()  # relative paths of figure files to reference
    bullets: bool = False  # minimal style: flat bullets instead of prose
    pack: StylePack = PACK_A  # the wording


def _sentence(fact: Fact, style: Style, rng: np.random.Generator, used: set[str] | None = None) -> str:
    """One of the fact's lines (each used once per document while any are left), in the persona's voice."""
    fresh = [line for line in fact.lines if used is None or line not in used] or fact.lines or [fact.title]
    line = fresh[int(rng.integers(len(fresh)))]
    if used is not None:
        used.add(line)
    links = style.pack.links[(style.lang, style.tone)]
    end = "。" if style.lang == "zh" else "."
    return links[int(rng.integers(len(links)))].format(s=line.rstrip(".。")) + end


def markdown_table(facts: list[Fact], lang: str, rows: int = 6, *, pack: StylePack = PACK_A) -> str:
    """A Markdown table of labelled numbers (or of sources when the facts carry none)."""
    numbers = [(f.source, label, value) for f in facts for label, value in f.numbers][:rows]
    numbers_head, files_head = pack.table_heads["zh" if lang == "zh" else "en"]
    if numbers:
        head = numbers_head
        body = [f"| {PurePosixPath(s).name} | {label} | {value:g} |" for s, label, value in numbers]
    else:
        head = files_head
        body = [f"| {PurePosixPath(f.source).name} | {f.title[:50]} |" for f in facts[:rows]]
    return "\n".join([head, "|" + "---|" * (head.count("|") - 1), *body])


def compose_report(topic: str, facts: list[Fact], style: Style, rng: np.random.Generator) -> str:
    """A report on `topic` from `facts`, grown section by section until it reaches the target length."""
    lang, pack = style.lang, style.pack

    def h(level: int, key: str) -> str:
        return "#" * min(level, style.heading_depth) + " " + pack.heading(key, lang)

    out = [f"# {topic}", "", pack.openers[(lang, style.tone)].format(topic=topic, n=max(1, len(facts))), ""]
    keys = ["overview", "findings", "details", "risks", "next"] if style.heading_depth > 1 else ["findings"]
    keys = keys[:max(2, len(facts))] if len(keys) > 1 else keys
    figures = list(style.figures)
    tables = style.tables
    order = list(rng.permutation(len(facts))) if facts else []
    used: set[str] = set()
    join = "" if lang == "zh" else " "
    for section, key in enumerate(keys):
        out += [h(2, key), ""]
        chunk = [facts[i] for i in order[section::len(keys)]] or facts[:1]
        for fact in chunk:
            if style.heading_depth >= 3 and not style.bullets:
                out += ["#" * min(3, style.heading_depth) + " " + fact.title[:70], ""]
            if style.bullets:
                out += [pack.bullet + _sentence(fact, style, rng, used) for _ in range(min(2, max(1, len(fact.lines))))]
                out.append("")
            else:
                out += [join.join(_sentence(fact, style, rng, used) for _ in range(min(2, max(1, len(fact.lines))))),
                        ""]
            if style.heading_depth >= 4 and fact.numbers:
                out += ["#### " + pack.heading("data", lang), ""] + [pack.data_line.format(label=lab, value=f"{val:g}")
                                                                       for lab, val in fact.numbers[:3]]
                out.append("")
        if tables and key in ("findings", "details"):
            out += [markdown_table(chunk or facts, lang, pack=pack), ""]
            tables -= 1
        if figures and key in ("findings", "details", "overview"):
            path = figures.pop(0)
            n = len(style.figures) - len(figures)
            caption = pack.figure_caption[lang].format(n=n, topic=topic)
            out += [pack.figure_link[lang].format(n=n, path=path), "", caption, ""]
        if sum(map(len, out)) >= style.target_chars and section >= 1:
            break
    out += _pad(facts, style, rng, style.target_chars - sum(len(line) + 1 for line in out), used)
    if style.heading_depth > 1 and facts:
        out += [h(2, "sources"), ""] + [pack.source_line[lang].format(source=f.source) for f in facts[:12]]
    return "\n".join(out).rstrip() + "\n"


def _pad(facts: list[Fact], style: Style, rng: np.random.Generator, missing: int, used: set[str]) -> list[str]:
    """The facts' remaining lines, in random order, until the length target is met (each line once)."""
    out: list[str] = []
    pool = [(f, line) for f in facts for line in f.lines if line not in used]
    for index in rng.permutation(len(pool)):
        if missing <= 0:
            break
        fact, line = pool[int(index)]
        bullet = style.pack.bullet if style.bullets else ""
        text = bullet + _sentence(Fact(fact.source, fact.title, [line]), style, rng)
        out.append(text)
        missing -= len(text) + 1
    return ["## " + style.pack.heading("notes", style.lang), "", *out, ""] if out else []


def compose_index(title: str, entries: list[tuple[str, str]], lang: str, *, pack: StylePack = PACK_A) -> str:
    """A README/index listing files (path, one-line description)."""
    lines = [f"# {title}", "", f"## {pack.heading('index', lang)}", ""]
    lines += [pack.index_entry.format(name=PurePosixPath(p).name, path=p, description=d) for p, d in entries]
    return "\n".join(lines) + "\n"


def data_csv(facts: list[Fact], *, pack: StylePack = PACK_A) -> str:
    rows = [(PurePosixPath(f.source).name, label, value) for f in facts for label, value in f.numbers]
    if not rows:
        rows = [(PurePosixPath(f.source).name, pack.csv_count_label, float(len(f.lines))) for f in facts]
    return pack.csv_header + "\n" + "".join(f"{s},{m.replace(',', ' ')},{v:g}\n" for s, m, v in rows)


def revise(text: str, lines: int, rng: np.random.Generator, lang: str = "en", *,
           pack: StylePack = PACK_A) -> tuple[str, str] | None:
    """An (old, new) pair for the edit tool that changes about `lines` lines of `text`."""
    body = text.splitlines(keepends=True)
    candidates = [i for i, line in enumerate(body) if line.strip() and not line.startswith("#")]
    if not candidates:
        return None
    start = candidates[int(rng.integers(len(candidates)))]
    span = min(max(1, lines // 2), len(body) - start)
    old = "".join(body[start:start + span])
    if old.strip() == "" or text.count(old) != 1:
        return None
    lang = "zh" if lang == "zh" else "en"
    note = pack.checked[lang]
    new_lines = [line.rstrip("\n") + note + "\n" for line in body[start:start + span]]
    extra = max(0, lines - span)
    new_lines += [pack.added[lang].format(k=k + 1, text=body[candidates[int(rng.integers(len(candidates)))]].strip()
                                          [:100]) + "\n" for k in range(extra)]
    return old, "".join(new_lines)
