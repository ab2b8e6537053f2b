"""How long `filegram reproduce` takes: BENCHMARKS.md's reproduce section, written from MANIFEST.json files only.

    python benchmarks/reproduce.py [--quick] [--full] [--append BENCHMARKS.md]

The full run's numbers come from figures/MANIFEST.json (the last `make reproduce`: its wall seconds, corpus
seconds and every step's seconds and status; a step it skipped as unchanged keeps the seconds of the run that
made it, and the section says so). --quick also times `filegram reproduce --quick` from scratch, and --full the
full run from scratch (about as long as `make reproduce` on an empty data folder), each in a fresh temporary
data folder (FILEGRAM_CORPUS points the corpora and the results cache there) and a fresh output folder, so it
pays for building its corpora, items and every answer, as on a machine right after `make setup`. Nothing in the
section is typed by hand: rerun the script after a `make reproduce`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from markdown_section import write_section

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## filegram reproduce"


def fresh_run(*flags: str) -> tuple[float, dict]:
    """(wall seconds, MANIFEST) of one `filegram reproduce` in a fresh data and output folder."""
    with tempfile.TemporaryDirectory(prefix="filegram-bench-reproduce-") as tmp:
        env = {**os.environ, "FILEGRAM_CORPUS": str(Path(tmp) / "corpus")}
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "filegram_kit.cli", "reproduce", *flags, "--out",
                        str(Path(tmp) / "out")], check=True, env=env, cwd=tmp, capture_output=True)
        seconds = time.perf_counter() - start
        return seconds, json.loads((Path(tmp) / "out" / "MANIFEST.json").read_text(encoding="utf-8"))


def step_table(manifest: dict) -> list[str]:
    """Every step, slowest first, with its status in that run."""
    steps = sorted(manifest["steps"].items(), key=lambda kv: (-(kv[1].get("seconds") or 0), kv[0]))
    return ["| step | seconds | status |", "|---|---:|---|",
            *(f"| {name} | {step.get('seconds')} | {step.get('status', '')} |" for name, step in steps)]


def run_summary(manifest: dict, wall: float | None, what: str) -> list[str]:
    steps = manifest["steps"].values()
    total = round(sum(s.get("seconds") or 0 for s in steps), 1)
    skipped = sum(1 for s in steps if s.get("status") == "unchanged")
    wall = wall if wall is not None else manifest.get("wall_seconds")
    settings, dirty = manifest["settings"], ", uncommitted changes" if manifest.get("git_dirty") else ""
    head = (f"**{what}** (git sha {(manifest.get('git_sha') or '?')[:7]}{dirty}; item seeds "
            f"{settings['item_seeds']}, {len(settings['methods'])} methods, backend {settings['backend']}): "
            + (f"**{wall:.0f} s** wall ({wall / 60:.1f} min), " if wall is not None else "")
            + f"corpus {manifest.get('corpus_seconds')} s, steps {total} s.")
    if skipped:
        head += (f" {skipped} of {len(manifest['steps'])} steps were unchanged and skipped in this run: their "
                 "seconds are those of the run that made them, and the wall time does not include them.")
    return [head, "", *step_table(manifest)]


def section(quick: tuple[float, dict] | None, full: dict | None, full_wall: float | None = None,
            full_source: str = "figures/MANIFEST.json") -> str:
    lines = [HEADING, "", f"`python benchmarks/reproduce.py` on {platform.machine()}, {os.cpu_count()} cores "
                          f"(written from the MANIFEST.json of each run; the script's docstring says how)."]
    if full:
        what = "Full run from scratch" if full_wall is not None else f"Full run ({full_source})"
        lines += ["", *run_summary(full, full_wall, what)]
    if quick:
        seconds, manifest = quick
        lines += ["", *run_summary(manifest, seconds, "`--quick`, from scratch")]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--append", type=Path, help="write the section into this Markdown file (replacing an older "
                        "one)")
    parser.add_argument("--quick", action="store_true", help="also time `filegram reproduce --quick` from scratch")
    parser.add_argument("--full", action="store_true", help="also time the full run from scratch (as long as "
                        "`make reproduce` on an empty data folder)")
    parser.add_argument("--full-manifest", type=Path, default=ROOT / "figures" / "MANIFEST.json",
                        help="without --full: the MANIFEST.json of a full run to report (default: figures/)")
    args = parser.parse_args()
    quick = fresh_run("--quick") if args.quick else None
    full_wall, full = fresh_run() if args.full else (None, None)
    if full is None and args.full_manifest.is_file():
        full = json.loads(args.full_manifest.read_text(encoding="utf-8"))
    text = section(quick, full, full_wall, str(args.full_manifest.relative_to(ROOT)
                                                if args.full_manifest.is_relative_to(ROOT) else args.full_manifest))
    if args.append:
        write_section(args.append, HEADING, text)
    print(text)


if __name__ == "__main__":
    main()
