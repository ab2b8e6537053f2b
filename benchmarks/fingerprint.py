"""Speed of the 17-D fingerprint: the 640-trajectory corpus and a synthetic 1M-event frame.

    python benchmarks/fingerprint.py [--corpus data/corpus] [--events 1000000] [--trajectories 32000] [--reps 5]

Corpus: loads and cleans once, then times `fingerprint_frame` on the prebuilt events frame and
`fingerprints` end to end (events_frame with content + features). Synthetic: a frame with the
corpus's event-type mix and a Markdown `content` for every create, timed against one bare polars
group_by over the same columns (the floor any per-trajectory aggregation pays). Each step is the
best of --reps runs (median beside it). Prints a Markdown table; nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

import filegram_kit as fk
from filegram_kit.behaviour.fingerprint import deviations, extended_features, fingerprint_frame
from filegram_kit.report.corpus_source import default_corpus
from filegram_kit.util import atomic

# share of each retained event type in a cleaned corpus (paper Table 5 proportions, rounded)
MIX = {"file_read": 0.227, "file_browse": 0.082, "file_search": 0.015, "file_write": 0.151, "file_edit": 0.053,
       "dir_create": 0.047, "file_copy": 0.011, "file_move": 0.006, "file_delete": 0.005, "file_rename": 0.004,
       "cross_file_reference": 0.204, "context_switch": 0.195}
EXTENSIONS = {"md": 0.8, "csv": 0.08, "png": 0.06, "py": 0.04, "json": 0.02}


def timed(fn: Callable[[], object], reps: int) -> tuple[float, float, object]:
    times, value = [], None
    for _ in range(reps):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), value


def _documents(rng: np.random.Generator, n: int) -> list[str]:
    """Markdown outputs of 300-3000 characters, some with a table."""
    docs = []
    for i in range(n):
        lines = [f"# Report {i}", "", *(f"- point {j}: " + "word " * int(rng.integers(5, 30)) for j in range(8))]
        if rng.random() < 0.5:
            rows = int(rng.integers(2, 12))
            lines += ["", "| item | value |", "|---|---|", *(f"| r{j} | {j * 3} |" for j in range(rows))]
        docs.append("\n".join(lines) + "\n")
    return docs


def synthetic_frame(n_events: int, n_trajectories: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    types = np.array(list(MIX))
    kind = rng.choice(len(types), n_events, p=np.array(list(MIX.values())) / sum(MIX.values()))
    traj = np.sort(rng.integers(0, n_trajectories, n_events))
    is_write, is_edit = types[kind] == "file_write", types[kind] == "file_edit"
    create = is_write & (rng.random(n_events) < 0.77)
    exts = rng.choice(list(EXTENSIONS), n_events, p=list(EXTENSIONS.values()))
    docs = _documents(rng, 256)
    doc_index = np.where(create, rng.integers(1, len(docs) + 1, n_events), 0)  # 0 -> null
    lengths = np.array([0] + [len(d) for d in docs])
    ids = pl.Series([f"p{t % 20 + 1}_T-{t:05d}" for t in range(n_trajectories)])
    return pl.DataFrame({
        "trajectory_id": ids.gather(traj), "profile_id": pl.Series([f"p{t % 20 + 1}" for t in range(n_trajectories)])
        .gather(traj), "task_id": pl.Series([f"T-{t:05d}" for t in range(n_trajectories)]).gather(traj),
        "event_type": pl.Series(types).gather(kind),
        "operation": pl.Series([None, "create", "overwrite"], dtype=pl.String)
        .gather(np.where(create, 1, np.where(is_write, 2, 0))),
        "content_length": np.where(create, lengths[doc_index], rng.integers(100, 5000, n_events)),
        "view_count": rng.integers(1, 4, n_events), "depth": rng.integers(0, 4, n_events),
        "lines_added": np.where(is_edit, rng.integers(0, 40, n_events), 0),
        "lines_deleted": np.where(is_edit, rng.integers(0, 20, n_events), 0),
        "file_path": pl.Series([f"out/file{i}." for i in range(50)]).gather(rng.integers(0, 50, n_events))
        + pl.Series(exts),
        "content": pl.Series([None, *docs], dtype=pl.String).gather(doc_index),
    })


def bare_group_by(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.group_by("trajectory_id").agg(
        pl.len(), pl.col("profile_id", "task_id").first(), pl.col("content_length", "view_count", "lines_added",
                                                                  "lines_deleted").sum(), pl.col("depth").max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=None, help="default: data/corpus (built if missing)")
    parser.add_argument("--append", type=Path, metavar="FILE", help="also append the section to FILE (BENCHMARKS.md)")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--trajectories", type=int, default=32_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    args.corpus = args.corpus or default_corpus(progress=False)
    rows: list[tuple[str, float, float]] = []

    def step(label: str, fn: Callable[[], object], reps: int = args.reps) -> object:
        best, median, value = timed(fn, reps)
        rows.append((label, best, median))
        return value

    trajs = fk.clean(fk.load_trajectories(args.corpus, check_media=False, progress=False)).trajectories
    frame = step(f"corpus: events_frame(with_content=True), {len(trajs)} trajectories",
                 lambda: fk.events_frame(trajs, with_content=True))
    fp = step(f"corpus: fingerprint_frame on the prebuilt frame ({frame.height} events)",
              lambda: fingerprint_frame(frame))
    step("corpus: fingerprints(trajs) end to end (frame + features)", lambda: fk.fingerprints(trajs))
    step("corpus: extended_features on the prebuilt frame", lambda: extended_features(frame))
    step(f"corpus: deviations of {fp.height} fingerprints (by profile)", lambda: deviations(fp))
    big = step(f"synthetic: build a {args.events:,}-event frame, {args.trajectories:,} trajectories",
               lambda: synthetic_frame(args.events, args.trajectories), reps=1)
    step("synthetic: bare group_by (len, 4 sums, 1 max) for reference", lambda: bare_group_by(big))
    big_fp = step("synthetic: fingerprint_frame", lambda: fingerprint_frame(big))
    step("synthetic: deviations (by profile)", lambda: deviations(big_fp))
    creates = int(big.select(pl.col("operation") == "create").sum().item())
    content_mb = big["content"].str.len_bytes().sum() / 2**20
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines = ["## Fingerprints", "",
             f"`python benchmarks/fingerprint.py` on {platform.machine()}, {os.cpu_count()} cores "
             f"(POLARS_MAX_THREADS={os.environ.get('POLARS_MAX_THREADS', 'all')}), Python "
             f"{platform.python_version()}, polars {pl.__version__}. Synthetic frame: {creates:,} creates carrying "
             f"{content_mb:.0f} MB of Markdown. Peak memory {peak_mb:.0f} MB.", "",
             "| step | best s | median s |", "|---|---|---|"]
    lines += [f"| {label} | {best:.3f} | {median:.3f} |" for label, best, median in rows]
    print("\n".join(lines))
    if args.append:
        atomic.append_text(args.append, "\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
