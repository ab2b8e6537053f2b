"""Helpers for tests that run a real watchdog observer on a temporary folder.

File-system events arrive asynchronously. `step` performs an action and then waits on
`Recording.sync()` (a fence file whose event arrives after every earlier one); `settle` syncs twice,
because the recorder's own reads made while handling events before the first fence are reported
behind it. `wait_for` polls for an observation. Their deadlines guard against hangs; no test asserts
how fast anything is.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from filegram_kit.record.observations import Observation
from filegram_kit.record.watcher import Recording

LINUX = sys.platform.startswith("linux")
linux_only = pytest.mark.skipif(not LINUX, reason="reads (close without write) are reported by inotify only")


def sha16(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def step(rec: Recording, action: Callable[[], object]) -> list[Observation]:
    """Run `action` and return the observations it caused (waits for its events)."""
    before = len(rec.observations)
    action()
    settle(rec)
    return rec.observations[before:]


def settle(rec: Recording) -> None:
    rec.sync()
    rec.sync()


def wait_for(rec: Recording, predicate: Callable[[Observation], bool], *, deadline_s: float = 15.0) -> Observation:
    """Poll until an observation satisfies `predicate`; fail (not flake) after a generous deadline."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        for obs in rec.observations:
            if predicate(obs):
                return obs
        time.sleep(0.02)
    pytest.fail(f"no matching observation within {deadline_s} s; got {[(o.kind, o.path) for o in rec.observations]}")


def kinds(observations: list[Observation]) -> list[tuple[str, str]]:
    return [(o.kind, o.path) for o in observations]


def seed_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.md").write_text("alpha\nbeta\n")
    (folder / "docs").mkdir()
    (folder / "docs" / "plan.txt").write_text("step one\n")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return folder
