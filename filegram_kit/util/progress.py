"""Progress bars that also reach a log: tqdm on a terminal or in a notebook, and where tqdm would stay silent
(stderr redirected to a file, as under nohup, CI or `make reproduce > log`) a plain line every LOG_EVERY seconds.

    for item in progress_bar(items, desc="answering", unit="item"): ...
    with progress_bar(total=n, desc="rendering outputs", unit="traj") as bar: bar.update(1)

    answering: 1204/13959 item (9%), 05:12 elapsed, 55:02 left      <- what a log receives, every 30 s

`disable=True` silences it, `disable=False` forces tqdm's own bar, `disable=None` (the default) chooses as above.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from tqdm.auto import tqdm

LOG_EVERY = 30.0  # seconds between two lines in a log
LOG_FORMAT = "{desc}: {n_fmt}/{total_fmt} {unit} ({percentage:.0f}%), {elapsed} elapsed, {remaining} left"
LOG_FORMAT_OPEN = "{desc}: {n_fmt} {unit}, {elapsed} elapsed"  # no total known


class _Lines:
    """A file for tqdm that turns its carriage-return redraws into whole lines (a log keeps every one), each once:
    a bar whose last update was due for a line draws the same line again when it closes."""

    def __init__(self, stream: Any):
        self.stream = stream
        self.last = ""

    def write(self, text: str) -> None:
        line = text.replace("\r", "").rstrip()
        if line and line != self.last:
            self.stream.write(line + "\n")
            self.last = line

    def flush(self) -> None:
        self.stream.flush()


def _in_notebook() -> bool:
    marimo = sys.modules.get("marimo")
    if marimo is not None and getattr(marimo, "running_in_notebook", lambda: False)():
        return True
    ipython = sys.modules.get("IPython")  # a Jupyter kernel's shell has a kernel; importing ipykernel is not enough
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def progress_bar(iterable: Any = None, *, disable: bool | None = None, total: int | None = None,
                 **kwargs: Any) -> tqdm:
    """tqdm, or (when `disable` is None, stderr is not a terminal and no notebook shows a bar) a line every
    LOG_EVERY seconds, and one at the end, on stderr."""
    if disable is None and not sys.stderr.isatty() and not _in_notebook():
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        # miniters=1: every update checks the clock, and tqdm's monitor thread (which redraws a bar whose dynamic
        # miniters grew) stays out, so a log gets one line per interval, not two
        kwargs |= {"file": _Lines(sys.stderr), "mininterval": LOG_EVERY, "miniters": 1,
                   "bar_format": LOG_FORMAT if total else LOG_FORMAT_OPEN, "dynamic_ncols": False}
        return _keep_alive(tqdm(iterable, disable=False, total=total, **kwargs))
    return tqdm(iterable, disable=disable, total=total, **kwargs)


def _keep_alive(bar: tqdm) -> tqdm:
    """A log line every LOG_EVERY seconds also while nothing advances (a long ingest, a slow local model):
    a daemon thread redraws the bar (its elapsed time moves on) until the bar is closed."""
    def beat() -> None:
        while True:
            time.sleep(max(LOG_EVERY / 4, 0.05))
            if bar.disable:  # closed
                return
            if time.time() - bar.last_print_t >= LOG_EVERY:
                bar.refresh()
                bar.last_print_t = time.time()  # refresh() leaves it; the next line is due an interval later

    threading.Thread(target=beat, name="progress-heartbeat", daemon=True).start()
    return bar
