"""MkDocs hook: the repository's generated `figures/` (PNG, HTML, CSV, plotly.min.js) and BENCHMARKS.md join the
site under their own paths, so the docs link to the files `filegram reproduce` and `make bench` wrote instead
of copies that could go stale."""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
SHOWN = {".png", ".html", ".js", ".csv"}  # .csv: the numbers each page links beside its figure


def on_files(files: Files, config) -> Files:
    for path in sorted((ROOT / "figures").iterdir()):
        if path.suffix in SHOWN:
            files.append(File(f"figures/{path.name}", str(ROOT), config["site_dir"], config["use_directory_urls"]))
    files.append(File("BENCHMARKS.md", str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files
