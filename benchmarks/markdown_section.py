"""Write one benchmark's section into BENCHMARKS.md, replacing an earlier copy of it and keeping the rest."""

from __future__ import annotations

from pathlib import Path


def write_section(path: Path, heading: str, text: str) -> None:
    """Replace the section that starts at `heading` (up to the next `## `) with `text`, or add it at the end."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    head, found, rest = old.partition(heading + "\n")
    tail = rest[rest.find("\n## "):] if found and "\n## " in rest else ""
    path.write_text(head.rstrip("\n") + "\n\n" + text + tail, encoding="utf-8")
