"""One run in a sandbox: a fresh copy of a task's workspace, a simulated clock, a media store, and a trajectory
folder that lands whole or not at all. The corpus build and KnowAct's acting agent share it, so an act run is
staged, seeded and landed exactly as a corpus run is.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..traces.media import MediaStore
from ..util import atomic
from .recorder import SimClock

START_MS = 1_772_323_200_000.0  # 2026-03-01 00:00 UTC: simulated runs start within 60 days of it


@dataclass
class SandboxRun:
    sandbox: Path  # the workspace copy the agent works in (deleted afterwards)
    staging: Path  # the trajectory folder being written (renamed into place on success)
    clock: SimClock
    media: MediaStore

    def write(self, events: list[dict], summary: dict) -> None:
        """The trajectory's files: its media, summary.json and events.json (release layout)."""
        if self.media.entries:
            self.media.flush()
        atomic.write_json(self.staging / "summary.json", summary)
        atomic.write_json(self.staging / "events.json", events)


@contextmanager
def sandboxed_run(tid: str, template: Path, signal_dir: Path, rng: np.random.Generator, *,
                  prefix: str = "filegram-sandbox-") -> Iterator[SandboxRun]:
    """Stage `signal_dir/<tid>` while the body runs in a copy of `template`; on a clean exit the staged folder
    replaces any earlier one, on an error (or a kill) nothing lands. The clock starts at a seeded time."""
    signal_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{tid}.", dir=signal_dir))
    parent = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        sandbox = parent / tid
        shutil.copytree(template, sandbox, ignore=shutil.ignore_patterns(".complete"))
        clock = SimClock(START_MS + float(rng.integers(0, 60 * 86_400_000)))
        yield SandboxRun(sandbox, staging, clock, MediaStore(staging / "media", clock=clock.now))
        final = signal_dir / tid
        if final.exists():
            shutil.rmtree(final)
        staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(parent, ignore_errors=True)
