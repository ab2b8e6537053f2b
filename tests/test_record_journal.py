"""The recorder's crash-safe journal: header, append, torn lines, malformed lines, locks, recovery."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from filegram_kit.record.journal import Journal, journal_dir, open_journals, read_journal, recover
from filegram_kit.record.observations import Observation, ObservationError
from filegram_kit.traces.load import load_trajectories

T0 = 1_750_000_000_000.0
SETTINGS = {"folder": "thesis", "started_ms": T0, "name": "ada", "idle_gap_ms": 1_800_000, "debounce_ms": 1_000,
            "seed": 0}


def observations() -> list[Observation]:
    return [
        Observation("baseline", "notes.md", T0, content="a\n", content_hash="1" * 16, size=2),
        Observation("write", "notes.md", T0 + 5_000, content="a\nb\n", content_hash="2" * 16, size=4),
        Observation("mkdir", "archive", T0 + 6_000, is_dir=True, sibling_count=0),
        Observation("move", "notes.md", T0 + 7_000, dest="archive/notes.md"),
    ]


def write_journal(out: Path, obs: list[Observation]) -> Path:
    journal = Journal.create(out, SETTINGS)
    journal.append_many(obs[:1])
    for o in obs[1:]:
        journal.append(o)
    journal.close()
    return journal.path


def test_journal_round_trip_and_header(tmp_path):
    path = write_journal(tmp_path, observations())
    assert path.parent == journal_dir(tmp_path) == tmp_path / ".journal"
    header = json.loads(path.read_text().splitlines()[0])
    assert header["filegram_journal"] == 1 and header["folder"] == "thesis" and header["name"] == "ada"
    contents = read_journal(path)
    assert contents.observations == observations()
    assert not contents.finalized and not contents.torn


def test_unfinished_journals_are_found_and_finalized_ones_are_not(tmp_path):
    path = write_journal(tmp_path, observations())
    assert open_journals(tmp_path) == [path]
    journal = Journal.create(tmp_path, SETTINGS)
    journal.finalize([tmp_path / "signal" / "ada_x"])
    journal.close()
    assert open_journals(tmp_path) == [path]
    assert read_journal(journal.path).finalized


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_journal_held_by_a_live_recorder_is_not_open_for_recovery(tmp_path):
    journal = Journal.create(tmp_path, SETTINGS)
    journal.append(observations()[1])
    assert open_journals(tmp_path) == []
    journal.close()
    assert open_journals(tmp_path) == [journal.path]


def test_torn_last_line_is_dropped_with_a_warning_naming_the_line(tmp_path):
    path = write_journal(tmp_path, observations())
    with open(path, "ab") as fh:
        fh.write(b'{"kind": "write", "path": "notes.md", "ti')
    with pytest.warns(UserWarning, match=r"line 6 is torn"):
        contents = read_journal(path)
    assert contents.torn and contents.observations == observations()


def test_malformed_line_in_the_middle_names_file_and_line(tmp_path):
    path = write_journal(tmp_path, observations())
    lines = path.read_text().splitlines()
    lines[2] = '{"kind": "teleport", "path": "x", "time_ms": 1}'
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ObservationError, match=rf"{path.name}: line 3: field 'kind': unknown kind 'teleport'"):
        read_journal(path)
    lines[2] = "not json"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ObservationError, match=rf"{path.name}: line 3: not a JSON line"):
        read_journal(path)


def test_a_complete_last_line_that_is_malformed_is_an_error_not_a_tear(tmp_path):
    path = write_journal(tmp_path, observations())
    with open(path, "ab") as fh:
        fh.write(b'{"kind": "write"}\n')
    with pytest.raises(ObservationError, match=r"line 6: field 'path': missing"):
        read_journal(path)


def test_recover_translates_truncates_and_marks_finalized(tmp_path):
    path = write_journal(tmp_path, observations())
    with open(path, "ab") as fh:
        fh.write(b'{"kind": "del')
    with pytest.warns(UserWarning, match="line 6 is torn"):
        trajs = recover(tmp_path)
    assert [t.name for t in trajs] == ["ada_20250615-150645"]
    assert open_journals(tmp_path) == []
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["finalized"] is True and last["trajectories"] == ["ada_20250615-150645"]
    assert read_journal(path).observations == observations()  # the torn tail is gone, nothing else
    events = load_trajectories(tmp_path, progress=False)[0].events
    kinds = [e.event_type for e in events]
    assert "file_edit" in kinds and "dir_create" in kinds and "file_move" in kinds
    assert recover(tmp_path) == []  # idempotent


def test_recover_of_a_journal_with_only_a_torn_header(tmp_path):
    folder = journal_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "rec-x.jsonl").write_bytes(b'{"filegram_jour')
    with pytest.warns(UserWarning, match="line 1 is torn"):
        assert recover(tmp_path) == []
    assert open_journals(tmp_path) == []


CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from filegram_kit.record.watcher import Recording
    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    rec = Recording(folder, out, name="crash", debounce_ms=0).start()
    (folder / "draft.md").write_text("first line\\n")
    rec.sync()
    with open(folder / "draft.md", "a") as fh:
        fh.write("second line\\n")
    rec.sync()
    print("ready", rec.journal_path, flush=True)
    time.sleep(600)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_recording_is_recovered_by_the_next_start(tmp_path):
    folder, out = tmp_path / "work", tmp_path / "out"
    folder.mkdir()
    (folder / "old.txt").write_text("kept\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(folder), str(out)], stdout=subprocess.PIPE,
                             text=True, env=env)
    try:
        line = child.stdout.readline()
        assert line.startswith("ready"), line
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
    journal = Path(line.split(" ", 1)[1].strip())
    with open(journal, "ab") as fh:  # the kill landed mid-write
        fh.write(b'{"kind": "write", "path": "draft.md", "time_ms": 17')
    from filegram_kit.record.watcher import Recording

    with pytest.warns(UserWarning, match="torn"):
        rec = Recording(folder, out, name="next").start()
    try:
        assert [p.name.split("_")[0] for p in rec.recovered] == ["crash"]
        assert rec.status()["recovered"] == [p.name for p in rec.recovered]
    finally:
        rec.stop(finalize=False)
    trajs = load_trajectories(out, progress=False)
    events = [e for e in trajs[0].events if e.event_type.startswith("file_")]
    assert [e.event_type for e in events] == ["file_write", "file_edit"]
    assert "+second line" in trajs[0].content(events[1]["media_ref_diff"])
