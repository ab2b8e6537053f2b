"""How long `filegram reproduce` takes from scratch: the quick subset, and (with --full) the full run.

    python benchmarks/reproduce.py [--full] [--append BENCHMARKS.md]

Each run goes into a fresh temporary data folder (FILEGRAM_CORPUS points the corpora and the results
cache there) and a fresh output folder, so it pays for building its corpora, items and every answer, as
on a machine right after `make setup`. The full run takes about half an hour on 2 cores, so `make bench`
leaves it out; without --full the section reports the per-step seconds of figures/MANIFEST.json (the last
`make reproduce`; a step it skipped as unchanged keeps the seconds of the run that made it).
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

ROOT = Path(__file__).resolve().parents[1]


def fresh_run(*flags: str) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory(prefix="filegram-bench-reproduce-") as tmp:
        env = {**os.environ, "FILEGRAM_CORPUS": str(Path(tmp) / "corpus")}
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "filegram_kit.cli", "reproduce", *flags, "--out",
                        str(Path(tmp) / "out")], check=True, env=env, cwd=tmp, capture_output=True)
        seconds = time.perf_counter() - start
        return seconds, json.loads((Path(tmp) / "out" / "MANIFEST.json").read_text(encoding="utf-8"))


def step_rows(manifest: dict, limit: int = 12) -> list[str]:
    steps = sorted(manifest["steps"].items(), key=lambda kv: -(kv[1].get("seconds") or 0))
    rows = [f"| {name} | {step.get('seconds')} |" for name, step in steps[:limit]]
    rest = sum(step.get("seconds") or 0 for _, step in steps[limit:])
    return rows + [f"| the other {len(steps) - limit} steps | {round(rest, 1)} |"]


def section(quick: tuple[float, dict] | None, full: dict | None, full_wall: float | None = None) -> str:
    lines = ["## filegram reproduce", "",
             f"`python benchmarks/reproduce.py` on {platform.machine()}, {os.cpu_count()} cores."]
    if quick:
        seconds, manifest = quick
        lines += ["", f"**`--quick`, from scratch** (its corpora, items and answers built in a fresh data folder): "
                      f"**{seconds:.0f} s** wall, of which corpus {manifest.get('corpus_seconds')} s. Slowest "
                      "steps:", "", "| step | seconds |", "|---|---|", *step_rows(manifest, 6)]
    if full:
        total = round(sum(s.get("seconds") or 0 for s in full["steps"].values()) + (full.get("corpus_seconds") or 0))
        where = (f"from scratch: **{full_wall:.0f} s** wall" if full_wall is not None else
                 f"the MANIFEST.json of a `make reproduce` at git sha {(full.get('git_sha') or '?')[:7]}; a step "
                 "it skipped as unchanged shows the seconds of the run that made it")
        lines += ["", f"**Full run** ({where}): {total} s of steps + corpus. Slowest steps:", "",
                  "| step | seconds |", "|---|---|", *step_rows(full)]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--append", type=Path, help="append the section to this Markdown file")
    parser.add_argument("--full", action="store_true", help="also time the full run from scratch (~30 min)")
    parser.add_argument("--full-manifest", type=Path, default=ROOT / "figures" / "MANIFEST.json",
                        help="without --full: the MANIFEST.json of a full run to report (default: figures/)")
    args = parser.parse_args()
    quick = fresh_run("--quick")
    full_wall, full = fresh_run() if args.full else (None, None)
    if full is None and args.full_manifest.is_file():
        full = json.loads(args.full_manifest.read_text(encoding="utf-8"))
    text = section(quick, full, full_wall)
    if args.append:
        old = args.append.read_text(encoding="utf-8") if args.append.is_file() else ""
        head, found, rest = old.partition("## filegram reproduce\n")
        tail = rest[rest.find("\n## "):] if found and "\n## " in rest else ""
        args.append.write_text(head.rstrip("\n") + "\n\n" + text + tail, encoding="utf-8")  # replaces an older one
    print(text)


if __name__ == "__main__":
    main()
