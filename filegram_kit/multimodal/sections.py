"""Split a text output into the sections the multimodal setting renders, one file each.

The paper's decomposition pipeline "segments text-based outputs into semantically coherent sections"
(about 2.5K outputs -> over 10K files). Here a section is a run of paragraphs: a heading opens a new
one once the current one holds MIN_CHARS characters, and none grows past MAX_CHARS (a long paragraph
is cut at a line break; a single longer line stays whole), so an output of our engine (1.2K characters
on average) gives three or four files. A Markdown table among a section's lines makes it a table section
(rendered as a sheet, a chart, a PDF or a page image); a CSV output is one table. The document's
`# title` line and intro open the first section.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

MIN_CHARS, MAX_CHARS = 200, 600
_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Section:
    index: int  # 0-based position in the output
    title: str  # its first heading (or the output's name)
    text: str  # the section's Markdown, heading lines included
    rows: tuple[tuple[str, ...], ...] = ()  # the table rows, header first, when the section holds a table

    @property
    def is_table(self) -> bool:
        return len(self.rows) >= 2


def table_rows(lines: list[str]) -> tuple[tuple[str, ...], ...]:
    """The cells of the first Markdown table among `lines` (separator rows dropped)."""
    rows, started = [], False
    for line in lines:
        if _TABLE_ROW.match(line):
            started = True
            if not _RULE.match(line):
                rows.append(tuple(c.strip() for c in line.strip().strip("|").split("|")))
        elif started:
            break
    return tuple(rows)


def _blocks(lines: list[str]) -> list[list[str]]:
    """Paragraphs: runs of lines split at blank lines and before MAX_CHARS; a heading always opens a block."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        heading = bool(_HEADING.match(line)) and bool(blocks[-1])
        if not line.strip() or heading or (blocks[-1] and _size(blocks[-1]) + len(line) + 1 > MAX_CHARS):
            blocks.append([])
        if line.strip():
            blocks[-1].append(line)
    return [b for b in blocks if b]


def _size(lines: list[str]) -> int:
    return sum(len(x) + 1 for x in lines)


def _packed(blocks: list[list[str]]) -> list[list[list[str]]]:
    """Blocks packed into sections: a heading opens one once the current holds MIN_CHARS, and no section
    grows past MAX_CHARS unless one block alone is longer."""
    sections: list[list[list[str]]] = [[]]
    for block in blocks:
        current = sum(sections[-1], [])
        opens = bool(_HEADING.match(block[0])) and _size(current) >= MIN_CHARS
        if current and (opens or _size(current) + _size(block) > MAX_CHARS):
            sections.append([])
        sections[-1].append(block)
    return [s for s in sections if s]


def split_markdown(text: str, name: str) -> list[Section]:
    """Sections of a Markdown or plain-text output (`name`, e.g. the file name, titles a headless section);
    a section without a heading of its own is titled by the last heading before it."""
    out, title = [], name
    for i, blocks in enumerate(_packed(_blocks(text.splitlines()))):
        lines = sum(blocks, [])
        headings = [m.group(2) for m in map(_HEADING.match, lines) if m]
        section_title = headings[0] if headings else title
        title = headings[-1] if headings else title
        out.append(Section(i, section_title, "\n\n".join(map("\n".join, blocks)) + "\n",
                           table_rows(lines)))
    return out or [Section(0, name, text)]


def split_csv(text: str, name: str) -> list[Section]:
    """A CSV output: one table section (rows as parsed by the csv module)."""
    rows = tuple(tuple(r) for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r))
    return [Section(0, name, text, rows)]


def split_output(text: str, path: str) -> list[Section]:
    name = path.rsplit("/", 1)[-1]
    return split_csv(text, name) if name.lower().endswith(".csv") else split_markdown(text, name)
