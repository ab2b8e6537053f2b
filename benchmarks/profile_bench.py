"""Where Table 3's time goes: cProfile of the offline answering path on a sample, summarised for BENCHMARKS.md.

    python benchmarks/profile_bench.py [--limit 40] [--corpus data/corpus] [--append BENCHMARKS.md]

Table 3 is most of `make reproduce` (13 methods x every item of 3 item seeds, the style-pack-B twin, Track 4).
This runs its inner loop, `evaluate` of all 13 methods over the first --limit items of each sub-task of item seed
0, serially under cProfile (about twice the unprofiled time), and reports the share of ingesting and of
answering, each memory's ingest, the reader's parts and the functions with the most time of their own.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import tempfile
import time
from pathlib import Path

from markdown_section import write_section

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Where Table 3's time goes (profile)"
PHASES = {("bench/harness.py", "_ingest"): "ingest (every memory)",
          ("bench/harness.py", "answer_item"): "answer (retrieve + shared reader)",
          ("llm/algorithms/lexical_reader.py", "option_evidence"): "reader: option evidence",
          ("llm/algorithms/lexical_reader.py", "_indexed"): "reader: indexing a context (sentences, BM25, embeddings)",
          ("llm/algorithms/compare.py", "comparison_evidence"): "reader: comparison reading (naming options)"}


def _short(path: str) -> str:
    return path.split("filegram_kit/", 1)[1] if "filegram_kit/" in path else path.rsplit("/", 1)[-1]


def profile(corpus: Path, limit: int) -> tuple[float, int, pstats.Stats]:
    from filegram_kit.bench.generate import build_items
    from filegram_kit.bench.harness import evaluate
    from filegram_kit.report.settings import TABLE3_METHODS

    items = build_items(corpus, seed=0)
    with tempfile.TemporaryDirectory(prefix="filegram-profile-") as tmp:
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.enable()
        rows = evaluate(items, corpus, list(TABLE3_METHODS), out=Path(tmp) / "run", workers=1, limit=limit,
                        progress=False)
        profiler.disable()
        return time.perf_counter() - start, rows.height, pstats.Stats(profiler)


def section(seconds: float, rows: int, stats: pstats.Stats, limit: int) -> str:
    table = stats.stats  # {(file, line, function): (calls, ncalls, own, cumulative, callers)}
    total = stats.total_tt
    cumulative = {(_short(f), fn): v[3] for (f, _, fn), v in table.items()}
    lines = [HEADING, "", f"`python benchmarks/profile_bench.py --limit {limit}` on {platform.machine()}, "
             f"{os.cpu_count()} cores: 13 methods x the first {limit} items of each sub-task of item seed 0, one "
             f"process, under cProfile: {rows} rows in {seconds:.1f} s ({total:.1f} s profiled).", "",
             "| part | seconds | share |", "|---|---:|---:|"]
    lines += [f"| {label} | {cumulative.get(key, 0.0):.1f} | {100 * cumulative.get(key, 0.0) / total:.0f}% |"
              for key, label in PHASES.items()]
    ingests = sorted(((v[3], f"{_short(f)}:{line}") for (f, line, fn), v in table.items()
                      if fn == "ingest" and _short(f).startswith("memory/")), reverse=True)  # context.py: 2 classes
    lines += ["", "Each memory's ingest (all its input sets):", "", "| memory | seconds |", "|---|---:|",
              *(f"| {where} | {t:.1f} |" for t, where in ingests)]
    own = sorted(((v[2], v[1], f"{_short(f)}:{line} {fn}") for (f, line, fn), v in table.items()), reverse=True)
    lines += ["", "The 15 functions with the most time of their own:", "", "| function | own seconds | calls |",
              "|---|---:|---:|", *(f"| `{name}` | {t:.1f} | {n} |" for t, n, name in own[:15])]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=40, help="items per sub-task (default 40)")
    parser.add_argument("--corpus", type=Path, default=ROOT / "data" / "corpus")
    parser.add_argument("--append", type=Path, help="write the section into this Markdown file")
    args = parser.parse_args()
    text = section(*profile(args.corpus, args.limit), args.limit)
    if args.append:
        write_section(args.append, HEADING, text)
    print(text)


if __name__ == "__main__":
    main()
