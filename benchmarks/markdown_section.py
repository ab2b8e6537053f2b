"""Write one benchmark's section into BENCHMARKS.md, replacing an earlier copy of it and keeping the rest."""

from __future__ import annotations

from pathlib import Path


def write_section(path: Path, heading: str, text: str) -> None:
    """Replace the section that starts at `heading` (up to the next `## `) with `text`, or add it at the end."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    head, found, rest = old.partition(heading + "\n")
    tail = rest[rest.find("\n## "):] if found and "\n## " in rest else ""
    path.write_text(head.rstrip("\n") + "\n\n" + text + tail, encoding="utf-8")


def write_marked(path: Path, start: str, end: str, body: str) -> None:
    """Replace what lies between the marker lines `start` and `end` of a docs page with `body` (markers kept), or
    add the marked block at the end: a generated table inside a page whose other sections are prose."""
    text = path.read_text(encoding="utf-8")
    block = f"{start}\n{body.rstrip()}\n{end}\n"
    if start in text:
        before, _, rest = text.partition(start)
        after = rest.partition(end)[2].lstrip("\n")
        text = before + block + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
