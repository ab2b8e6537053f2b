"""Speed of FileGramBench offline: Table 3 as `make reproduce` runs it (item seeds 0, 1, 2, four methods, controls).

    python benchmarks/bench.py [--corpus data/corpus] [--workers 2] [--executor process] [--append BENCHMARKS.md]

Times `build_items` for each item seed, the audit of each seed's items, one full `evaluate` run
(no_context, full_context, naive_rag, filegramos; offline backend; the seeds' items together, so an
input set shared by seeds is ingested once) into a fresh temporary folder, and the control rows;
then prints a Markdown section with the wall time per step and method (from the rows' own timings)
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

from filegram_kit import atomic
from filegram_kit.bench.audit import audit_per_seed
from filegram_kit.bench.controls import evaluate_controls
from filegram_kit.bench.facts import corpus_facts
from filegram_kit.bench.generate import build_items
from filegram_kit.bench.harness import evaluate
from filegram_kit.report.corpus_source import default_corpus

METHODS = ["no_context", "full_context", "naive_rag", "filegramos"]
ITEM_SEEDS = (0, 1, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=None, help="default: data/corpus (built if missing)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--executor", choices=("thread", "process"), default="process")
    parser.add_argument("--append", type=Path, metavar="FILE", help="also append the section to FILE")
    args = parser.parse_args()
    corpus = args.corpus or default_corpus(progress=False)
    start = time.perf_counter()
    items = [i for seed in ITEM_SEEDS for i in build_items(corpus, seed=seed)]
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
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    lines = ["## FileGramBench (offline backend)", "",
             f"`python benchmarks/bench.py` on {platform.machine()}, {os.cpu_count()} cores, {args.workers} "
             f"{args.executor} workers: {len(items)} items (item seeds {', '.join(map(str, ITEM_SEEDS))}), "
             f"{rows.height} answers, {controls} control rows. Peak memory {peak:.0f} MB in the "
             f"main process, {child:.0f} MB in the largest worker.", "",
             "| step | seconds |", "|---|---|",
             f"| build_items, {len(ITEM_SEEDS)} seeds ({len(items)} items) | {build_s:.2f} |",
             f"| audit_per_seed (choices-only adversary, position, task prior, observer; "
             f"{'passed' if audit.passed else 'FAILED'}) | {audit_s:.1f} |",
             f"| evaluate: 4 core methods x all items (wall) | {eval_s:.1f} |",
             f"| evaluate_controls: choices_only, observer, oracle, oracle_context | {controls_s:.1f} |",
             f"| total: Table 3 with the audit and controls, {len(ITEM_SEEDS)} item seeds | "
             f"{build_s + audit_s + eval_s + controls_s:.1f} |"]
    for row in per_method.sort("method").iter_rows(named=True):
        lines.append(f"| {row['method']}: ingest + answer, summed over workers ({row['len']} rows) | "
                     f"{row['ingest_s'] + row['latency_s']:.1f} |")
    print("\n".join(lines))
    if args.append:
        atomic.append_text(args.append, "\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
