"""Speed of the real-trace path: journal appends, observations -> trajectories, shell history import.

    python benchmarks/record.py [--observations 20000] [--commands 20000] [--append BENCHMARKS.md]

Synthetic but realistic inputs made here (a user editing, reading, filing and deleting notes in a
folder tree; a zsh history of the same kind of work). Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from filegram_kit.record import Observation, import_shell_history, write_sessions
from filegram_kit.record.journal import Journal
from filegram_kit.util import atomic

T0 = 1_790_000_000_000.0


def synthetic_observations(n: int, seed: int = 0) -> list[Observation]:
    """n observations of note work: 60% writes (growing files), 25% reads, the rest mkdir/move/copy/delete."""
    rng = np.random.default_rng(seed)
    texts: dict[str, str] = {}
    out, t = [], T0
    for i in range(n):
        t += float(rng.exponential(20_000))  # ~20 s between operations: sessions split on idle gaps
        path = f"project{rng.integers(8)}/notes/n{rng.integers(200)}.md"
        roll = rng.random()
        if roll < 0.6 or path not in texts:
            texts[path] = texts.get(path, "# Notes\n") + f"- item {i}: {rng.integers(10**6)}\n"
            data = texts[path]
            out.append(Observation("write", path, t, content=data, size=len(data),
                                   content_hash=hashlib.sha256(data.encode()).hexdigest()[:16]))
        elif roll < 0.85:
            out.append(Observation("read", path, t, size=len(texts[path])))
        elif roll < 0.9:
            out.append(Observation("mkdir", f"project{rng.integers(8)}/archive{i}", t))
        elif roll < 0.95:
            dest = path.replace("/notes/", "/notes/copy-")
            texts[dest] = texts[path]
            out.append(Observation("copy", path, t, dest=dest))
        else:
            texts.pop(path)
            out.append(Observation("delete", path, t))
    return out


def synthetic_history(n: int) -> str:
    commands = ["ls", "cat notes/n{i}.md", "mkdir -p archive/{i}", "cp notes/n{i}.md archive/{i}/",
                "mv notes/n{i}.md notes/renamed-{i}.md", "grep -rn todo notes", "rm notes/tmp{i}.txt", "git status"]
    lines = []
    for i in range(n):
        lines.append(f": {1_790_000_000 + 15 * i}:0;" + commands[i % len(commands)].format(i=i))
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--observations", type=int, default=20_000)
    parser.add_argument("--commands", type=int, default=20_000)
    parser.add_argument("--journal-lines", type=int, default=2_000)
    parser.add_argument("--append", type=Path, metavar="FILE", help="also append the section to FILE")
    args = parser.parse_args()
    obs = synthetic_observations(args.observations)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        journal = Journal.create(tmp / "rec", {"folder": "bench"})
        start = time.perf_counter()
        for o in obs[:args.journal_lines]:
            journal.append(o)
        per_line = (time.perf_counter() - start) / args.journal_lines
        journal.close()
        rows.append((f"journal: append + fsync, per observation (mean of {args.journal_lines})",
                     f"{per_line * 1e6:.0f} us"))
        start = time.perf_counter()
        paths = write_sessions(obs, tmp / "out")
        rows.append((f"write_sessions: {len(obs):,} observations -> {len(paths)} trajectories",
                     f"{time.perf_counter() - start:.2f} s"))
        history = tmp / "zsh_history"
        history.write_text(synthetic_history(args.commands), encoding="utf-8")
        start = time.perf_counter()
        imported = import_shell_history(history, root="/home/u/work", home="/home/u", cwd="/home/u/work")
        rows.append((f"import_shell_history: {args.commands:,} commands -> {len(imported.observations):,} "
                     "observations", f"{time.perf_counter() - start:.2f} s"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines = ["## Real traces (record)", "",
             f"`python benchmarks/record.py` on {platform.machine()}, {os.cpu_count()} cores: synthetic observations "
             f"of note work (~20 s apart) and a zsh history. Peak memory {peak:.0f} MB.", "",
             "| step | time |", "|---|---|", *[f"| {label} | {value} |" for label, value in rows]]
    print("\n".join(lines))
    if args.append:
        atomic.append_text(args.append, "\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
