"""docs/results.md: every registered artifact's table, quoted from what `filegram reproduce` wrote to figures/.

The docs never retype a number: a page quotes one table with `--8<-- "docs/results.md:NAME"` (a snippet
section per artifact), and this page is rebuilt from figures/ at the end of a reproduce, so the quotes follow
the committed files. A test checks that the committed page is what figures/ gives.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..util import atomic
from .registry import ARTIFACTS

HEAD = ("# Results\n\nEvery table and figure `filegram reproduce` wrote to `figures/`, in the registry's order. "
        "This page is generated from those files (`filegram_kit.report.results_page`), never typed: rerun "
        "`make reproduce` to refresh it. Each section's caption says which paper table it reproduces and which "
        "function computes it.\n")
_LINK = re.compile(r"\]\(([\w.-]+\.(?:png|html|csv))\)")


def _section(name: str, text: str) -> str:
    """One artifact's markdown with its headings one level down and its file links pointing into figures/."""
    lines = [("#" + line) if line.startswith("#") else line for line in text.rstrip("\n").splitlines()]
    body = _LINK.sub(r"](figures/\1)", "\n".join(lines))
    return f"<!-- --8<-- [start:{name}] -->\n{body}\n<!-- --8<-- [end:{name}] -->\n"


def results_page(figures: str | Path = "figures") -> str:
    """The page's text: a section per registered artifact whose .md is in `figures` (each named as its step)."""
    figures = Path(figures)
    missing = [name for name in ARTIFACTS if not (figures / f"{name}.md").is_file()]
    if missing:
        raise FileNotFoundError(f"{figures}: no {', '.join(f'{m}.md' for m in missing)}; run `filegram reproduce` "
                                "(or `--only` those steps) before writing the results page")
    sections = [_section(name, (figures / f"{name}.md").read_text(encoding="utf-8")) for name in ARTIFACTS]
    return HEAD + "\n" + "\n".join(sections)


def write_results_page(figures: str | Path = "figures", out: str | Path = "docs/results.md") -> Path:
    return atomic.write_text(Path(out), results_page(figures))


def main() -> None:
    """`python -m filegram_kit.report.results_page [FIGURES] [OUT]`: rewrite the page from figures/ alone."""
    import sys

    args = sys.argv[1:]
    print(f"wrote {write_results_page(*args[:2])}")


if __name__ == "__main__":
    main()
