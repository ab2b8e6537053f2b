"""Speed of FileGramBench offline: all 13 methods of Table 3 over tracks 1-3 (one item set), with the controls.

    python benchmarks/bench.py [--corpus data/corpus] [--seeds 0] [--workers 2] [--executor process] [--append FILE]

Times `build_items` for each item seed (default: seed 0, the 4,003 items of tracks 1-3; `make reproduce`
answers seeds 0, 1 and 2, about three times this), the audit of each seed's items, one full `evaluate`
run (every Table 3 method; offline backend; the seeds' items together, so an input set shared by seeds
is ingested once) into a fresh temporary folder, and the control rows; then prints a Markdown section
with the wall time per step and the ingest and answer time per method (from the rows' own timings)
and the peak memory of the main process and of the largest worker. Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

import polars as pl
from markdown_section import write_section  # benchmarks/markdown_section.py (scripts run from this folder)

from filegram_kit.bench.audit import audit_per_seed
from filegram_kit.bench.controls import evaluate_controls
from filegram_kit.bench.generate import build_items
from filegram_kit.bench.ground_truth import corpus_facts
from filegram_kit.bench.harness import evaluate
from filegram_kit.bench.score import METHOD_LABELS
from filegram_kit.report.corpus_source import default_corpus

METHODS = list(METHOD_LABELS)  # paper Table 3's 13, in its order


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=None, help="default: data/corpus (built if missing)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="item seeds (default: 0)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--executor", choices=("thread", "process"), default="process")
    parser.add_argument("--append", type=Path, metavar="FILE", help="also write the section into FILE "
                        "(replacing an earlier one)")
    args = parser.parse_args()
    seeds = tuple(args.seeds)
    corpus = args.corpus or default_corpus(progress=False)
    start = time.perf_counter()
    items = [i for seed in seeds for i in build_items(corpus, seed=seed)]
    build_s = time.perf_counter() - start
    start = time.perf_counter()
    audit = audit_per_seed(items, corpus_facts(corpus))
    audit_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        rows = evaluate(items, corpus, METHODS, out=Path(tmp) / "run", workers=args.workers, executor=args.executor,
                        progress=False)
        eval_s = time.perf_counter() - start
        start = time.perf_counter()
        controls = evaluate_controls(items, corpus, out=Path(tmp) / "run")
        controls_s = time.perf_counter() - start
    ingest = rows.unique(["method", "input_key"]).group_by("method").agg(pl.col("ingest_s").sum())  # once per set
    per_method = rows.group_by("method").agg(pl.col("latency_s").sum(), pl.len()).join(ingest, on="method")
    order = {m: k for k, m in enumerate(METHODS)}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    lines = ["## FileGramBench (offline backend)", "",
             f"`python benchmarks/bench.py` on {platform.machine()}, {os.cpu_count()} cores, {args.workers} "
             f"{args.executor} workers: {len(items)} items (item seeds {', '.join(map(str, seeds))}), "
             f"{rows.height} answers, {controls} control rows. Peak memory {peak:.0f} MB in the "
             f"main process, {child:.0f} MB in the largest worker.", "",
             "| step | seconds |", "|---|---|",
             f"| build_items, {len(seeds)} seed{'s' * (len(seeds) > 1)} ({len(items)} items) | {build_s:.2f} |",
             f"| audit_per_seed (choices-only adversary, position, task prior, observer; "
             f"{'passed' if audit.passed else 'FAILED'}) | {audit_s:.1f} |",
             f"| evaluate: {len(METHODS)} methods x all items (wall) | {eval_s:.1f} |",
             f"| evaluate_controls: every control (CONTROLS) | {controls_s:.1f} |",
             f"| total: the {len(METHODS)} methods with the audit and controls | "
             f"{build_s + audit_s + eval_s + controls_s:.1f} |", "",
             "| method | ingest s (summed over workers) | answer s | rows |", "|---|---|---|---|"]
    for row in sorted(per_method.iter_rows(named=True), key=lambda r: order.get(r["method"], len(order))):
        lines.append(f"| {row['method']} | {row['ingest_s']:.1f} | {row['latency_s']:.1f} | {row['len']} |")
    print("\n".join(lines))
    if args.append:  # replaces an earlier copy of the section (nothing in it is typed by hand)
        write_section(args.append, lines[0], "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
