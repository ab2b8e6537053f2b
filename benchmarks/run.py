"""Speed of the trace engine and the trajectory pipeline at paper scale (640 trajectories).

    python benchmarks/run.py --out BENCHMARKS.md [--workers 2] [--seed 0]

Builds the task workspaces, then the full offline corpus (20 personas x 32 tasks) in a fresh
folder (its columnar store included), resumes it once (nothing left to do), converts it to the store
again, then times load from the store and from events.json (with media checks), clean, events_frame
and fingerprints from the store. Results are written as a Markdown table; nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

import filegram_kit as fk
from filegram_kit.engine import build_corpus, count_events, metadata_share
from filegram_kit.store import update_store
from filegram_kit.traces.tasks import load_tasks
from filegram_kit.util import atomic
from filegram_kit.workspace import ensure_template


def timed(label: str, fn, results: list):
    start = time.perf_counter()
    value = fn()
    results.append((label, time.perf_counter() - start))
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("BENCHMARKS.md"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    results: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "corpus"
        timed("build the 32 task workspaces (1 core)",
              lambda: [ensure_template(t, Path(tmp) / "ws", seed=args.seed) for t in load_tasks().values()], results)
        timed(f"build_corpus: 640 trajectories, {args.workers} workers (incl. workspaces)",
              lambda: build_corpus(root, seed=args.seed, workers=args.workers, progress=False), results)
        timed("build_corpus again (resume: nothing to do)",
              lambda: build_corpus(root, seed=args.seed, workers=args.workers, progress=False), results)
        counts, n = count_events(root)
        timed(f"update_store: convert {n} trajectories to the columnar store (rebuild)",
              lambda: update_store(root, rebuild=True, progress=False), results)
        fk.load_trajectories(root, progress=False)  # warm: the first read opens the store's files
        timed("load_trajectories from the store", lambda: fk.load_trajectories(root, progress=False), results)
        trajs = timed("load_trajectories from events.json (validate + media check)",
                      lambda: fk.load_trajectories(root, progress=False, store=False), results)
        cleaned, report = timed("clean", lambda: fk.clean(trajs), results)
        frame = timed("events_frame (cleaned)", lambda: fk.events_frame(cleaned), results)
        timed("events_frame (cleaned, with_content)", lambda: fk.events_frame(cleaned, with_content=True), results)
        timed("save_trajectories (cleaned)", lambda: fk.save_trajectories(cleaned, Path(tmp) / "out", progress=False),
              results)
        timed("fingerprints(corpus): from the store, end to end", lambda: fk.fingerprints(root), results)
        size_mb = sum(p.stat().st_size for p in (root / "signal").rglob("*") if p.is_file()) / 2**20
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    lines = ["# Benchmarks", "", f"`make bench` ({Path(__file__).name}) on {platform.machine()} with "
             f"{os.cpu_count()} cores, Python {platform.python_version()}, seed {args.seed}: the offline engine's "
             f"{n} trajectories, {sum(counts.values())} raw events ({metadata_share(counts):.1%} simulation "
             f"metadata), {frame.height} atomic actions after cleaning, {size_mb:.0f} MB on disk. Peak memory: "
             f"{peak_mb:.0f} MB in the main process, {child_mb:.0f} MB in the largest worker.", "",
             "| step | seconds |", "|---|---|"]
    lines += [f"| {label} | {sec:.2f} |" for label, sec in results]
    atomic.write_text(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
