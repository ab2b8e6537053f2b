"""How long `filegram knowact` takes offline on the 640-trajectory corpus, from an empty output folder, and
how much its numbers move on other seeds and other corpora.

    python benchmarks/knowact.py [--methods a,b] [--seeds 0,1,2] [--corpora DIR,DIR] [--append BENCHMARKS.md]

Times the whole run (ingest, Know questions, act runs, readings, oracle reruns) with 2 workers for each
seed on the default corpus (built or found first, not timed), then seed 0 on each extra corpus (e.g. the
style-pack-B twin, or a corpus of sampled personas: `filegram corpus --sample 20 --seed 11`). The section
gives each method's Know / Act / Utilization per run, so a reader sees how much the numbers move with the
split, the questions' wording and order, the act runs' seed, the engine's wording and the personas.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import polars as pl
from markdown_section import write_section  # benchmarks/markdown_section.py (scripts run from this folder)

from filegram_kit.knowact import DEFAULT_METHODS, rates, run_knowact
from filegram_kit.report.corpus_source import default_corpus

SECTION = "## KnowAct (offline backend)"


def timed(corpus: Path, methods: list[str], seed: int) -> tuple[float, pl.DataFrame, int]:
    with tempfile.TemporaryDirectory(prefix="filegram-bench-knowact-") as tmp:
        start = time.perf_counter()
        cases = run_knowact(corpus, Path(tmp) / "out", methods=methods, seed=seed, workers=2, progress=False)
        seconds = time.perf_counter() - start
        runs = sum(1 for _ in (Path(tmp) / "out" / "act").rglob("events.json"))
    return seconds, cases, runs


def section(methods: list[str], results: dict[str, tuple[float, pl.DataFrame, int]]) -> str:
    lines = [SECTION, "", f"`python benchmarks/knowact.py` on {platform.machine()}, {os.cpu_count()} cores, 2 workers, "
             f"methods {', '.join(methods)}; each run from an empty output folder.", "",
             "| run (corpus, seed) | wall seconds | cases | act runs |", "|---|---|---|---|"]
    lines += [f"| {s} | {sec:.1f} | {cases.height} | {runs} |" for s, (sec, cases, runs) in results.items()]
    frames = [rates(cases, n_boot=200).select("method", "know_acc", "act_acc", "utilization").with_columns(
        pl.lit(s).alias("seed")) for s, (_, cases, _) in results.items()]
    table = pl.concat(frames)
    lines += ["", "Know / Act / Utilization (%) per run:", "", "| method | " + " | ".join(results) + " |",
              "|---|" + "---|" * len(results)]
    for method in methods:
        cells = []
        for s in results:
            r = table.filter((pl.col("method") == method) & (pl.col("seed") == s)).row(0, named=True)
            util = "n/a" if r["utilization"] is None else f"{r['utilization']:.1f}"
            cells.append(f"{r['know_acc']:.1f} / {r['act_acc']:.1f} / {util}")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    lines += ["", "The instrument per run: the Act ceiling (runs told the true tier) overall and per dimension, and "
              "Act over the cases whose tier no act task's context conveyed (false passes; all methods pooled):", "",
              "| run | Act ceiling | A | B | C | D | E | F | Act, tier not conveyed |",
              "|---|---|---|---|---|---|---|---|---|"]
    for s, (_, cases, _) in results.items():
        first = cases.filter(pl.col("method") == cases["method"][0])
        overall = rates(first, n_boot=200).row(0, named=True)
        per = {r["dimension"]: r["act_ceiling"]
               for r in rates(first, by=["dimension"], n_boot=50).iter_rows(named=True)}
        pooled = rates(cases.with_columns(pl.lit("all").alias("method")), n_boot=200).row(0, named=True)
        lines.append(f"| {s} | {overall['act_ceiling']:.1f} [{overall['act_ceiling_lo']:.1f}, "
                     f"{overall['act_ceiling_hi']:.1f}] | " + " | ".join(f"{per[d]:.0f}" for d in "ABCDEF")
                     + f" | {pooled['act_unconveyed']:.1f} (n={pooled['n_unconveyed']}) |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default=",".join(DEFAULT_METHODS))
    parser.add_argument("--seeds", default="0", help="seeds on the default corpus")
    parser.add_argument("--corpora", default="", help="extra corpus folders, run with seed 0")
    parser.add_argument("--append", type=Path, help="write the section into this Markdown file (replaces one)")
    args = parser.parse_args()
    methods = [m for m in args.methods.split(",") if m]
    corpus = default_corpus(progress=False)
    results = {f"default, seed {s}": timed(corpus, methods, int(s)) for s in args.seeds.split(",")}
    for extra in (Path(c) for c in args.corpora.split(",") if c):
        results[f"{extra.name}, seed 0"] = timed(extra, methods, 0)
    text = section(methods, results)
    if args.append:
        write_section(args.append, SECTION, text)
    print(text)


if __name__ == "__main__":
    main()
