"""Long work reports progress in a log too: where tqdm would stay silent (stderr not a terminal), progress_bar
writes whole lines, at most one per LOG_EVERY seconds, and one at the end."""

from __future__ import annotations

import io

from filegram_kit.util import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_whole_lines_with_counts(monkeypatch):
    import IPython  # imported (as in a process that ran nbclient), yet no kernel: still a log, not a notebook

    assert IPython.get_ipython() is None
    log = io.StringIO()
    monkeypatch.setattr("sys.stderr", log)
    monkeypatch.setattr(progress, "LOG_EVERY", 0.0)  # every update is due
    assert list(progress.progress_bar(range(3), desc="answering", unit="item")) == [0, 1, 2]
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and len(lines) >= 2
    assert lines[0].startswith("answering: 0/3 item (0%)") and lines[-1].startswith("answering: 3/3 item (100%)")


def test_lines_wait_for_the_interval_and_the_end_is_always_written(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr("sys.stderr", log)
    with progress.progress_bar(total=500, desc="rendering outputs", unit="traj") as bar:
        for _ in range(500):
            bar.update(1)
    lines = log.getvalue().splitlines()
    assert len(lines) == 2 and lines[-1].startswith("rendering outputs: 500/500 traj (100%)")  # start and end only


def test_the_end_line_is_written_once_when_the_last_update_was_due(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr("sys.stderr", log)
    monkeypatch.setattr(progress, "LOG_EVERY", 0.0)  # the last update draws the end line; close draws it again
    with progress.progress_bar(total=2, desc="answering", unit="item") as bar:
        bar.update(1)
        bar.update(1)
    ends = [line for line in log.getvalue().splitlines() if line.startswith("answering: 2/2 item (100%)")]
    assert len(ends) == 1, log.getvalue()


def test_a_log_hears_from_a_bar_that_does_not_advance(monkeypatch):
    """A long ingest or a slow local model answers nothing for minutes: the log still gets a line per interval."""
    import time

    log, redraws = io.StringIO(), []
    monkeypatch.setattr("sys.stderr", log)
    monkeypatch.setattr(progress, "LOG_EVERY", 0.5)
    with progress.progress_bar(total=4, desc="answering", unit="item") as bar:
        monkeypatch.setattr(bar, "refresh", lambda *a, real=bar.refresh, **k: redraws.append(1) or real(*a, **k))
        time.sleep(2.3)  # no update at all
        lines = log.getvalue().splitlines()  # before the bar's closing line
    elapsed = {line.split(", ")[1] for line in lines}
    assert len(lines) >= 2 and "00:00 elapsed" in elapsed and len(elapsed) >= 2, lines
    assert 2 <= len(redraws) <= 6  # one per interval (about 4 in 2.3 s), not one per look at the clock (about 14)
    after = len(log.getvalue().splitlines())
    time.sleep(1.2)  # a closed bar stays quiet
    assert len(log.getvalue().splitlines()) == after


def test_a_terminal_keeps_tqdm_and_disable_silences(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    list(progress.progress_bar(range(3), desc="x", unit="item", file=terminal))
    assert "\r" in terminal.getvalue()  # tqdm's own redrawn bar
    quiet = io.StringIO()
    monkeypatch.setattr("sys.stderr", quiet)
    list(progress.progress_bar(range(3), desc="x", unit="item", disable=True))
    assert quiet.getvalue() == ""
