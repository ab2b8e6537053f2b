"""Speed and memory of FileGramOS, offline: ingest every persona of a corpus, then answer queries.

    python benchmarks/memory.py [--corpus data/corpus] [--queries 16]

Loads the corpus once, then times (1) the one-off start-up of the offline backend (loading the WordLlama
weights from the installed wheel, done once per process), (2) ingest of every persona's
sessions into its own memory, and (3) retrieval of one probe query per behavioural attribute per
persona. Prints a Markdown section for BENCHMARKS.md; nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time
from pathlib import Path

import filegram_kit as fk
from filegram_kit.llm import get_backend
from filegram_kit.memory import get_memory
from filegram_kit.report.corpus_source import default_corpus
from filegram_kit.report.memory_tables import PROBES
from filegram_kit.util import atomic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=None, help="default: data/corpus (built if missing)")
    parser.add_argument("--append", type=Path, metavar="FILE", help="also append the section to FILE (BENCHMARKS.md)")
    parser.add_argument("--queries", type=int, default=len(PROBES), help="probe queries per persona")
    args = parser.parse_args()
    args.corpus = args.corpus or default_corpus(progress=False)
    trajs = fk.load_trajectories(args.corpus, progress=False)
    by_user: dict[str, list] = {}
    for traj in trajs:
        by_user.setdefault(traj.profile_id, []).append(traj)
    backend = get_backend("offline")
    start = time.perf_counter()
    backend.embed(["warm up"])
    warm = time.perf_counter() - start
    start = time.perf_counter()
    memories = {pid: get_memory("filegramos").ingest(items, backend=backend) for pid, items in sorted(by_user.items())}
    ingest = time.perf_counter() - start
    queries = PROBES[:args.queries]
    start = time.perf_counter()
    contexts = [m.retrieve(q, backend=backend) for m in memories.values() for q in queries]
    query = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines = ["## FileGramOS (offline backend)", "",
             f"`python benchmarks/memory.py` on {platform.machine()}, {os.cpu_count()} cores: {len(trajs)} "
             f"trajectories of {len(memories)} personas from `{Path(args.corpus).name}/`. Peak memory {peak_mb:.0f} MB "
             f"(the whole process, corpus included).", "",
             "| step | seconds |", "|---|---|",
             f"| offline backend start-up (WordLlama weights loaded, once per process) | {warm:.2f} |",
             f"| ingest: {len(memories)} personas, one memory each | {ingest:.2f} |",
             f"| retrieve: {len(contexts)} queries ({len(queries)} per persona), mean "
             f"{sum(c.tokens for c in contexts) / len(contexts):.0f} tokens | {query:.2f} |"]
    print("\n".join(lines))
    if args.append:
        atomic.append_text(args.append, "\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
