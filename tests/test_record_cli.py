"""The real-trace commands end to end: record, recover, import shell|log, and the persona comparison."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest

from filegram_kit.behaviour.fingerprint import FEATURES
from filegram_kit.cli import main
from filegram_kit.memory.filegramos.calibration import dimension_features
from filegram_kit.memory.filegramos.neighbours import persona_neighbours
from filegram_kit.record import Recording
from filegram_kit.traces.load import load_trajectories
from filegram_kit.traces.profiles import load_profiles
from filegram_kit.traces.schema import DIMENSION_CODES


def behavioural_types(out: Path) -> list[list[str]]:
    return [[e.event_type for e in t.events if e.is_behavioral] for t in load_trajectories(out)]


def test_import_shell_writes_trajectories_and_reports(tmp_path, capsys):
    history = tmp_path / "zsh_history"
    history.write_text(": 1790000000:0;cd ~/work\n: 1790000010:0;mkdir -p reports\n"
                       ": 1790000020:0;cat notes.md\n: 1790000030:0;mv notes.md reports/notes.md\n"
                       ": 1790000040:0;rm *.tmp\n", encoding="utf-8")
    code = main(["import", "shell", str(history), "--root", "/home/u/work", "--home", "/home/u",
                 "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0 and "glob not expanded 1" in out and "wrote 1 trajectory folder" in out
    assert behavioural_types(tmp_path / "out") == [["dir_create", "file_read", "file_move"]]


def test_import_shell_without_root_and_a_bad_log_row_are_clear_errors(tmp_path, capsys):
    history = tmp_path / "h"
    history.write_text("ls\n", encoding="utf-8")
    assert main(["import", "shell", str(history), "--out", str(tmp_path / "o")]) == 2
    assert "--root" in capsys.readouterr().err
    log = tmp_path / "events.csv"
    log.write_text("time,op,path\n1790000000,write,a.md\n1790000001,teleport,b.md\n", encoding="utf-8")
    assert main(["import", "log", str(log), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "events.csv" in err and "line 3" in err and "'op'" in err
    assert main(["import", "log", str(log), "--out", str(tmp_path / "o"), "--collect-errors"]) == 0
    assert behavioural_types(tmp_path / "o") == [["file_write"]]


def _when_started(out: Path, action) -> threading.Thread:
    """Run `action` once the recording's journal holds the baseline (written after the observer started)."""
    def started() -> bool:
        journals = list((out / ".journal").glob("*.jsonl"))
        return bool(journals) and len(journals[0].read_text(encoding="utf-8").splitlines()) >= 2

    def run() -> None:
        deadline = time.monotonic() + 30  # a guard against hanging, not a speed assertion
        while not started() and time.monotonic() < deadline:
            time.sleep(0.05)
        action()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_record_command_watches_a_folder_for_a_while(tmp_path, capsys):
    folder, out = tmp_path / "work", tmp_path / "out"
    folder.mkdir()
    (folder / "old.md").write_text("old\n", encoding="utf-8")

    def work() -> None:
        (folder / "drafts").mkdir()
        (folder / "drafts" / "plan.md").write_text("# Plan\n", encoding="utf-8")
        (folder / "old.md").unlink()

    thread = _when_started(out, work)
    code = main(["record", str(folder), "--out", str(out), "--duration", "4", "--redact", "Plan"])
    thread.join()
    printed = capsys.readouterr().out
    assert code == 0 and "mkdir   drafts" in printed and "wrote 1 trajectory folder" in printed
    [traj] = load_trajectories(out)
    assert [e.event_type for e in traj.events if e.is_behavioral] == ["dir_create", "file_write", "file_delete"]
    write = next(e for e in traj.events if e.event_type == "file_write")
    assert traj.content(write["media_ref"]) == "# [REDACTED]\n"


def test_recover_finalises_an_unfinished_recording(tmp_path, capsys):
    folder, out = tmp_path / "work", tmp_path / "out"
    folder.mkdir()
    rec = Recording(folder, out, debounce_ms=0).start()
    (folder / "a.md").write_text("a\n", encoding="utf-8")
    rec.sync()
    rec.stop(finalize=False)  # what a crash leaves: a journal without its finalised marker
    assert main(["recover", str(out)]) == 0
    assert behavioural_types(out) == [["file_write"]]
    assert main(["recover", str(out)]) == 0 and "no unfinished recording" in capsys.readouterr().out
    last = (next((out / ".journal").glob("*.jsonl"))).read_text().splitlines()[-1]
    assert json.loads(last).get("finalized") is True


def _fingerprints(rows: dict[str, list[float]]) -> pl.DataFrame:
    return pl.DataFrame([{"trajectory_id": f"{pid}_{i}", "profile_id": pid, **dict(zip(FEATURES, v, strict=True))}
                         for pid, vectors in rows.items() for i, v in enumerate(vectors)])


def test_persona_neighbours_ranks_the_persona_the_user_resembles_first():
    personas = load_profiles()
    ids = sorted(personas)[:3]
    base = [float(i) for i in range(len(FEATURES))]
    shifted = {pid: [[x * (1 + k) + s for x in base] for s in (0.0, 0.5)] for k, pid in enumerate(ids)}
    theirs = _fingerprints(shifted)
    mine = _fingerprints({"me": [[x * 2 + 0.25 for x in base]]})  # the mean of ids[1]'s two sessions
    table = persona_neighbours(mine, theirs, personas, k=2)
    assert table.height == 2 * len(DIMENSION_CODES)
    firsts = table.filter(pl.col("rank") == 1)
    assert firsts["persona"].to_list() == [ids[1]] * 6 and firsts["distance"].to_list() == [0.0] * 6
    for row in firsts.iter_rows(named=True):
        assert row["persona_tier"] == personas[ids[1]].tiers[row["dimension"]].value
        assert row["features"] == ", ".join(dimension_features(row["dimension"]))
        assert row["reading"] in ("L", "M", "R") and 0 < row["confidence"] <= 1
    with pytest.raises(ValueError, match="no session"):
        persona_neighbours(mine.head(0), theirs, personas)


def test_the_demo_session_records_every_kind_of_file_work(tmp_path):
    from filegram_kit.record.demo import demo_session, seed_folder

    folder = seed_folder(tmp_path / "work")
    rec = Recording(folder, tmp_path / "out", debounce_ms=0).start()
    steps = demo_session(folder)
    [path] = rec.stop()
    [traj] = load_trajectories(path)
    types = {e.event_type for e in traj.events if e.is_behavioral}
    expected = {"file_write", "file_edit", "file_copy", "dir_create", "file_move", "file_rename", "file_delete"}
    assert len(steps) == 10 and expected <= types
    if sys.platform.startswith("linux"):  # reads are reported by inotify only
        assert "file_read" in types and "cross_file_reference" in {e.event_type for e in traj.events}
    copy = next(e for e in traj.events if e.event_type == "file_copy")
    assert copy["dest_path"].endswith("report.md.bak") and copy["is_backup"] is True


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", ["SIGTERM", "SIGHUP"])
def test_a_service_managers_signal_stops_a_recording_like_ctrl_c(tmp_path, signum):
    """`filegram record` under systemd (SIGTERM) or in a closed terminal (SIGHUP): the session is finalised."""
    import os
    import signal
    import subprocess

    from filegram_kit.record import open_journals

    folder, out = tmp_path / "work", tmp_path / "out"
    folder.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen([sys.executable, "-m", "filegram_kit.cli", "record", str(folder), "--out", str(out),
                              "--name", "svc", "--debounce", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env)
    try:
        assert child.stdout.readline().startswith("recording"), "the recorder did not start"
        (folder / "plan.md").write_text("# plan\n", encoding="utf-8")
        lines = []
        while not any("plan.md" in line for line in lines):  # printed once observed (journaled)
            lines.append(child.stdout.readline())
            assert lines[-1], f"the recorder ended early: {lines}"
        child.send_signal(getattr(signal, signum))
        rest = child.communicate(timeout=60)[0]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, rest
    assert f"{signum}: stopping" in rest and "wrote 1 trajectory folder" in rest
    assert behavioural_types(out) == [["file_write"]]
    assert open_journals(out) == []  # finalised: nothing left to recover
