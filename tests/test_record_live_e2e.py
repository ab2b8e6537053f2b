"""Record a real folder end to end: live operations -> journal -> translate -> load_trajectories."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from filegram_kit.record.journal import open_journals, read_journal
from filegram_kit.record.privacy import PrivacyPolicy
from filegram_kit.record.watcher import Recording
from filegram_kit.traces.load import load_trajectories
from filegram_kit.util import atomic
from tests.record_helpers import LINUX, seed_folder, step

ACTIONS = ("file_read", "file_write", "file_edit", "file_copy", "file_move", "file_rename", "file_delete",
           "dir_create")


def actions(traj) -> list[tuple]:
    out = []
    for e in traj.events:
        if e.event_type not in ACTIONS:
            continue
        path = e.get("file_path") or e.get("dir_path") or e.get("old_path") or e.get("source_path")
        out.append((e.event_type, path.rsplit(f"{traj.id}/", 1)[-1]))
    return out


def test_a_recorded_session_loads_as_typed_events_with_media(tmp_path):
    folder, out = seed_folder(tmp_path / "work"), tmp_path / "out"

    def append():
        with open(folder / "notes.md", "a") as fh:
            fh.write("gamma added\n")

    with Recording(folder, out, name="ada", debounce_ms=0) as rec:
        step(rec, append)
        if LINUX:
            step(rec, lambda: (folder / "docs" / "plan.txt").read_text())
        step(rec, lambda: (folder / "notes.md").rename(folder / "my_notes.md"))
        step(rec, lambda: (folder / "archive").mkdir())
        step(rec, lambda: shutil.move(folder / "docs" / "plan.txt", folder / "archive" / "plan.txt"))
        step(rec, lambda: shutil.copy(folder / "my_notes.md", folder / "my_notes.md.bak"))
        step(rec, lambda: atomic.write_text(folder / "report.md", "# Report\n"))
        step(rec, lambda: (folder / "report.md").unlink())
    assert rec.state == "stopped" and len(rec.trajectories) == 1
    assert open_journals(out) == [] and read_journal(rec.journal_path).finalized

    (traj,) = load_trajectories(out, progress=False)
    assert traj.id == rec.trajectories[0].name and traj.id.startswith("ada_")
    expected = [("file_edit", "notes.md")]
    expected += [("file_read", "docs/plan.txt")] if LINUX else []
    expected += [("file_rename", "notes.md"), ("dir_create", "archive"), ("file_move", "docs/plan.txt"),
                 ("file_copy", "my_notes.md")]
    expected += [("file_read", "my_notes.md")] if LINUX else []  # shutil.copy reads its source
    expected += [("file_write", "report.md"), ("file_delete", "report.md")]
    assert actions(traj) == expected
    by_type = {e.event_type: e for e in traj.events}
    assert "+gamma added" in traj.content(by_type["file_edit"]["media_ref_diff"])
    assert by_type["file_edit"]["lines_added"] == 1 and by_type["file_edit"]["lines_deleted"] == 0
    assert by_type["file_rename"]["new_path"].endswith("/my_notes.md")
    assert by_type["file_move"]["new_path"].endswith("/archive/plan.txt")
    assert by_type["file_copy"]["dest_path"].endswith("/my_notes.md.bak") and by_type["file_copy"]["is_backup"]
    assert by_type["file_write"]["operation"] == "create"
    assert traj.content(by_type["file_write"]["media_ref"]) == "# Report\n"
    assert by_type["dir_create"]["sibling_count"] == 1  # docs


def test_metadata_only_recording_stores_no_content(tmp_path):
    folder, out = seed_folder(tmp_path / "work"), tmp_path / "out"
    with Recording(folder, out, policy=PrivacyPolicy(metadata_only=True), debounce_ms=0) as rec:
        step(rec, lambda: (folder / "diary.md").write_text("dear diary, a secret\n"))
    (traj,) = load_trajectories(out, progress=False)
    assert [e.event_type for e in traj.events if e.event_type == "file_write"] == ["file_write"]
    blobs = list((rec.trajectories[0] / "media").rglob("*.blob"))
    assert all("secret" not in b.read_text() for b in blobs)
    assert "secret" not in json.dumps([e.to_dict() for e in traj.events])


def test_output_inside_the_recorded_folder_is_not_recorded(tmp_path):
    folder = seed_folder(tmp_path / "work")
    with Recording(folder, folder / ".filegram", debounce_ms=0) as rec:
        step(rec, lambda: (folder / "notes.md").write_text("alpha\nbeta\nmore\n"))
    (traj,) = load_trajectories(folder / ".filegram", progress=False)
    paths = [e.get("file_path") or "" for e in traj.events]
    assert not any(".filegram" in p or ".journal" in p for p in paths)
    assert os.path.isdir(rec.trajectories[0])


def test_nothing_happened_writes_no_trajectory_but_finalizes(tmp_path):
    folder, out = seed_folder(tmp_path / "work"), tmp_path / "out"
    with Recording(folder, out) as rec:
        pass
    assert rec.trajectories == [] and open_journals(out) == []
    assert not Path(out, "signal").exists() or not any(Path(out, "signal").iterdir())
