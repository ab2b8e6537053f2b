"""`filegram store PATH`: build, refresh or inspect a corpus' columnar event store (filegram_kit.store)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .output import emit


def cmd_store(args: argparse.Namespace) -> int:
    from ..store import EventStore, StoreError, update_store
    from ..store.layout import corpus_root

    root = corpus_root(args.path)
    if root is None:
        print(f"error: {args.path}: not a corpus folder (no signal/ folder of trajectories)", file=sys.stderr)
        return 2
    if not args.status:
        try:
            print(update_store(root, workers=args.workers, rebuild=args.rebuild, executor=args.executor,
                               address=args.address))
        except StoreError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    store = EventStore.open(root)
    if store is None:
        print(f"{root}: no store made by this code (run `filegram store {root}`)")
        return 1
    counts = dict(store.status().group_by("state").len().iter_rows())
    print(f"{store.root}: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in ("current", "stale", "new", "gone",
                                                                          "problems"))
          + " (stale, new and problem trajectories are read from events.json; gone ones are dropped by an update)")
    problems = store.problems()
    if problems.height:
        emit(problems, "table")
    return 0


def add_store(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("store", help="build or refresh a corpus' columnar event store (Parquet; read instead of "
                       "events.json wherever it is current)")
    p.add_argument("path", type=Path, help="the corpus folder (or its signal/ folder)")
    p.add_argument("--workers", type=int, help="conversion processes (default: all cores, one for small updates)")
    p.add_argument("--rebuild", action="store_true", help="convert every trajectory again")
    p.add_argument("--status", action="store_true", help="only say what is current and what has problems")
    from ..util.executors import add_executor_arguments

    add_executor_arguments(p, what="conversion parts")
    p.set_defaults(func=cmd_store)
