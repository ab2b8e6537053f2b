"""The live recorder on a real folder: each file operation -> the observations it must produce."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from filegram_kit.record.privacy import DEFAULT_REDACTIONS, PrivacyPolicy
from filegram_kit.record.watcher import Recording
from filegram_kit.util import atomic
from tests.record_helpers import kinds, linux_only, seed_folder, settle, sha16, step, wait_for


def journal_body(rec: Recording) -> str:
    """The journal without its header (whose policy settings list the ignore patterns)."""
    return "\n".join(rec.journal_path.read_text().splitlines()[1:])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return seed_folder(tmp_path / "work")


@pytest.fixture
def rec(folder: Path, tmp_path: Path):
    recording = Recording(folder, tmp_path / "out", debounce_ms=0).start()
    yield recording
    if recording.state == "running":
        recording.stop(finalize=False)


def test_baseline_holds_every_tracked_file_with_content(rec):
    base = [o for o in rec.observations if o.kind == "baseline" and not o.is_dir]
    assert sorted(o.path for o in base) == ["docs/plan.txt", "notes.md"]  # .git is ignored
    assert [o.path for o in rec.observations if o.kind == "baseline" and o.is_dir] == ["docs"]
    notes = next(o for o in base if o.path == "notes.md")
    assert (notes.content, notes.content_hash, notes.size) == ("alpha\nbeta\n", sha16(b"alpha\nbeta\n"), 11)
    assert "mtime_ms" in notes.extra


def test_new_file_edit_and_overwrite_are_writes_with_content(rec, folder):
    new = step(rec, lambda: (folder / "report.md").write_text("# Report\n"))
    assert kinds(new) == [("write", "report.md")]
    assert new[0].content == "# Report\n" and new[0].content_hash == sha16(b"# Report\n") and new[0].size == 9

    def append():
        with open(folder / "notes.md", "a") as fh:
            fh.write("gamma\n")

    edit = step(rec, append)
    assert kinds(edit) == [("write", "notes.md")] and edit[0].content == "alpha\nbeta\ngamma\n"
    over = step(rec, lambda: (folder / "notes.md").write_text("fresh start\n"))
    assert kinds(over) == [("write", "notes.md")] and over[0].content == "fresh start\n"


def test_a_save_that_changes_nothing_is_not_a_write(rec, folder):
    assert step(rec, lambda: (folder / "notes.md").write_text("alpha\nbeta\n")) == []
    assert rec.status()["skipped"]["same_content"] >= 1


def test_move_into_a_subdir_and_rename_in_place(rec, folder):
    moved = step(rec, lambda: shutil.move(folder / "notes.md", folder / "docs" / "notes.md"))
    assert [(o.kind, o.path, o.dest) for o in moved] == [("move", "notes.md", "docs/notes.md")]
    renamed = step(rec, lambda: (folder / "docs" / "notes.md").rename(folder / "docs" / "my_notes.md"))
    assert [(o.kind, o.path, o.dest) for o in renamed] == [("move", "docs/notes.md", "docs/my_notes.md")]
    # state follows the move: saving the same bytes again is still "no change"
    assert step(rec, lambda: (folder / "docs" / "my_notes.md").write_text("alpha\nbeta\n")) == []


def test_directory_move_is_one_move(rec, folder):
    moved = step(rec, lambda: (folder / "docs").rename(folder / "documents"))
    assert [(o.kind, o.path, o.dest, o.is_dir) for o in moved] == [("move", "docs", "documents", True)]


def test_copy_is_a_write_with_the_source_hash(rec, folder):
    copied = [o for o in step(rec, lambda: shutil.copy(folder / "notes.md", folder / "notes.md.bak"))
              if o.kind != "read"]
    assert kinds(copied) == [("write", "notes.md.bak")]
    assert copied[0].content_hash == sha16(b"alpha\nbeta\n")


def test_delete_of_file_and_directory(rec, folder):
    assert kinds(step(rec, lambda: (folder / "notes.md").unlink())) == [("delete", "notes.md")]
    gone = step(rec, lambda: shutil.rmtree(folder / "docs"))
    assert [(o.kind, o.path, o.is_dir) for o in gone] == [("delete", "docs/plan.txt", False), ("delete", "docs", True)]


def test_nested_mkdir_reports_each_directory_once_with_siblings(rec, folder):
    made = step(rec, lambda: os.makedirs(folder / "archive" / "2024" / "q1"))
    assert [(o.kind, o.path, o.is_dir, o.sibling_count) for o in made] == [
        ("mkdir", "archive", True, 1),  # docs exists beside it; .git is ignored
        ("mkdir", "archive/2024", True, 0),
        ("mkdir", "archive/2024/q1", True, 0),
    ]
    again = step(rec, lambda: (folder / "archive" / "2025").mkdir())
    assert [(o.path, o.sibling_count) for o in again] == [("archive/2025", 1)]


def test_files_written_into_a_new_directory_before_it_is_watched_are_not_lost(rec, folder):
    def burst():
        (folder / "batch").mkdir()
        for i in range(5):
            (folder / "batch" / f"f{i}.txt").write_text(f"file {i}\n")

    got = step(rec, burst)
    writes = {o.path: o.content for o in got if o.kind == "write"}
    assert writes == {f"batch/f{i}.txt": f"file {i}\n" for i in range(5)}
    assert [o.path for o in got if o.kind == "mkdir"] == ["batch"]


@linux_only
def test_a_file_is_read_when_its_writer_closes_it_never_half_written(rec, folder):
    before = len(rec.observations)  # taken before the close: the observer may handle it at once
    with open(folder / "long.md", "w") as fh:
        fh.write("part one\n")
        fh.flush()
        settle(rec)
        assert [o for o in rec.observations if o.path == "long.md"] == []
        fh.write("part two\n")
    settle(rec)
    got = rec.observations[before:]
    assert [(o.kind, o.content) for o in got] == [("write", "part one\npart two\n")]


@linux_only
def test_new_files_never_closed_are_written_at_stop(rec, folder):
    os.link(folder / "notes.md", folder / "hardlink.md")  # a create without open/close
    with open(folder / "held.md", "w") as held:
        held.write("still open\n")
        held.flush()
        settle(rec)
        assert [o for o in rec.observations if o.kind == "write"] == []
        rec.stop(finalize=False)
    assert sorted((o.kind, o.path, o.content) for o in rec.observations if o.kind == "write") == [
        ("write", "hardlink.md", "alpha\nbeta\n"), ("write", "held.md", "still open\n")]


@linux_only
def test_reading_a_file_is_a_read_with_its_size(rec, folder):
    got = step(rec, lambda: (folder / "docs" / "plan.txt").read_text())
    assert [(o.kind, o.path, o.size) for o in got] == [("read", "docs/plan.txt", 9)]


@linux_only
def test_the_recorders_own_reads_are_not_reads(rec, folder):
    settle(rec)  # baseline opened every file: those closes must have been swallowed
    assert [o for o in rec.observations if o.kind == "read"] == []
    step(rec, lambda: (folder / "new.md").write_text("hello\n"))  # captured by reading it
    settle(rec)
    assert [o for o in rec.observations if o.kind == "read"] == []
    assert rec.status()["skipped"]["own_read"] >= 3
    got = step(rec, lambda: (folder / "new.md").read_text())  # a real read right after still counts
    assert kinds(got) == [("read", "new.md")]


def test_ignored_paths_never_reach_the_journal(rec, folder):
    def noise():
        (folder / ".git" / "index").write_bytes(b"DIRC")
        (folder / ".notes.md.swp").write_bytes(b"b0VIM")
        (folder / "notes.md~").write_text("backup\n")
        (folder / "__pycache__").mkdir()
        (folder / "__pycache__" / "m.pyc").write_bytes(b"\x00")

    assert step(rec, noise) == []
    assert rec.status()["skipped"]["ignored"] >= 5
    body = journal_body(rec)
    assert ".git" not in body and ".swp" not in body and "__pycache__" not in body and "~" not in body


def test_filegramignore_created_during_recording_applies_with_negation(rec, folder):
    assert step(rec, lambda: (folder / ".filegramignore").write_text("*.log\n!keep.log\n")) == []

    def logs():
        (folder / "debug.log").write_text("noise\n")
        (folder / "keep.log").write_text("signal\n")

    assert kinds(step(rec, logs)) == [("write", "keep.log")]
    step(rec, lambda: (folder / ".filegramignore").write_text("*.md\n"))  # re-read after a change
    assert step(rec, lambda: (folder / "notes.md").write_text("hidden now\n")) == []
    assert kinds(step(rec, lambda: (folder / "debug.log").write_text("visible now\n"))) == [("write", "debug.log")]


def test_binary_file_keeps_hash_and_size_but_no_content(rec, folder):
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    got = step(rec, lambda: (folder / "logo.png").write_bytes(data))
    assert [(o.kind, o.content, o.content_hash, o.size) for o in got] == [("write", None, sha16(data), len(data))]
    assert got[0].extra["withheld"] == "binary"


def test_size_limit_metadata_only_and_redaction(folder, tmp_path):
    policy = PrivacyPolicy(max_content_bytes=16, redact=DEFAULT_REDACTIONS)
    with Recording(folder, tmp_path / "out", policy=policy) as rec:
        big = step(rec, lambda: (folder / "big.txt").write_text("x" * 17))
        secret = step(rec, lambda: (folder / "s.txt").write_text("mail a@b.io\n"))
        rec.stop(finalize=False)
    assert (big[0].content, big[0].size, big[0].extra["withheld"]) == (None, 17, "too_large")
    assert secret[0].content == "mail [REDACTED]\n" and secret[0].extra["redactions"] == 1
    assert secret[0].content_hash == sha16(b"mail a@b.io\n")
    assert "a@b.io" not in journal_body(rec)
    with Recording(folder, tmp_path / "out2", policy=PrivacyPolicy(metadata_only=True)) as meta:
        got = step(meta, lambda: (folder / "diary.txt").write_text("dear diary\n"))
        meta.stop(finalize=False)
    assert [o.content for o in meta.observations] == [None] * len(meta.observations)
    assert got[0].content_hash == sha16(b"dear diary\n") and "dear diary" not in journal_body(meta)


def test_atomic_save_is_a_write_of_the_target(rec, folder):
    got = step(rec, lambda: atomic.write_text(folder / "notes.md", "alpha\nbeta\nsaved atomically\n"))
    assert [(o.kind, o.path, o.content) for o in got] == [("write", "notes.md", "alpha\nbeta\nsaved atomically\n")]
    assert ".tmp" not in journal_body(rec)

    def gnome_save():
        tmp = folder / "docs" / ".goutputstream-X1Y2Z3"
        tmp.write_text("step one\nstep two\n")
        os.replace(tmp, folder / "docs" / "plan.txt")

    assert kinds(step(rec, gnome_save)) == [("write", "docs/plan.txt")]


def test_vim_style_backup_rename_is_one_write(rec, folder):
    def vim_save():
        os.rename(folder / "notes.md", folder / "notes.md~")
        (folder / "notes.md").write_text("alpha\nbeta\nfrom vim\n")
        (folder / "notes.md~").unlink()

    got = step(rec, vim_save)
    assert [(o.kind, o.path, o.content) for o in got] == [("write", "notes.md", "alpha\nbeta\nfrom vim\n")]


def test_a_file_renamed_to_an_ignored_name_and_removed_is_a_delete(rec, folder):
    got = step(rec, lambda: (os.rename(folder / "notes.md", folder / "notes.md~"), (folder / "notes.md~").unlink()))
    assert kinds(got) == [("delete", "notes.md")]


def test_a_file_renamed_to_an_ignored_name_is_a_delete_at_stop(rec, folder):
    assert step(rec, lambda: os.rename(folder / "notes.md", folder / "notes.md.swp")) == []
    rec.stop(finalize=False)
    assert kinds(rec.observations[-1:]) == [("delete", "notes.md")]


def test_moves_in_and_out_of_the_folder(rec, folder, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("from outside\n")
    got = step(rec, lambda: shutil.move(outside, folder / "inbox.txt"))
    assert [(o.kind, o.path, o.content) for o in got] == [("write", "inbox.txt", "from outside\n")]
    assert kinds(step(rec, lambda: shutil.move(folder / "inbox.txt", tmp_path / "gone.txt"))) == [
        ("delete", "inbox.txt")]


def test_the_observer_survives_errors_and_counts_them(folder, tmp_path):
    class Exploding(PrivacyPolicy):
        def capture_file(self, rel_path, path):
            if rel_path == "boom.txt":
                raise RuntimeError("disk on fire")
            return super().capture_file(rel_path, path)

    with Recording(folder, tmp_path / "out", policy=Exploding()) as rec:
        assert step(rec, lambda: (folder / "boom.txt").write_text("x\n")) == []
        assert kinds(step(rec, lambda: (folder / "fine.txt").write_text("y\n"))) == [("write", "fine.txt")]
        status = rec.status()
        rec.stop(finalize=False)
    assert status["errors"] >= 1 and "disk on fire" in status["error_messages"][0]
    assert "boom.txt" in status["error_messages"][0]


def test_status_tail_and_journal(rec, folder):
    step(rec, lambda: (folder / "a.md").write_text("a\n"))
    wait_for(rec, lambda o: o.kind == "write" and o.path == "a.md")
    status = rec.status()
    assert status["state"] == "running" and status["folder"] == "work" and status["errors"] == 0
    assert status["by_kind"]["baseline"] == 3 and status["by_kind"]["write"] == 1  # docs/, 2 files
    assert kinds(rec.tail(1)) == [("write", "a.md")] and rec.tail(0) == []
    header = rec.journal_path.read_text().splitlines()[0]
    assert '"folder": "work"' in header and str(folder) not in header  # the name, not the absolute path


def test_output_folder_inside_the_recorded_folder_is_ignored(folder):
    with Recording(folder, folder / "out") as rec:
        step(rec, lambda: (folder / "notes.md").write_text("alpha\nbeta\nmore\n"))
        rec.stop(finalize=False)
    assert all(not o.path.startswith("out") for o in rec.observations)
    assert rec.status()["skipped"]["ignored"] >= 1  # the journal's own writes


def test_polling_backend_records_without_reads(folder, tmp_path):
    with Recording(folder, tmp_path / "out", backend="polling", poll_interval=0.05) as rec:
        assert rec.status()["reads_observed"] is False
        new = step(rec, lambda: (folder / "p.md").write_text("polled\n"))
        moved = step(rec, lambda: (folder / "p.md").rename(folder / "docs" / "p.md"))
        read = step(rec, lambda: (folder / "docs" / "p.md").read_text())
        rec.stop(finalize=False)
    assert [(o.kind, o.content) for o in new] == [("write", "polled\n")]
    assert [(o.kind, o.path, o.dest) for o in moved] == [("move", "p.md", "docs/p.md")]
    assert read == []


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"folder": "missing"}, NotADirectoryError, "not a directory"),
    ({"out": "."}, ValueError, "the recorded folder itself"),
    ({"backend": "carrier-pigeon"}, ValueError, "backend 'carrier-pigeon'"),
])
def test_bad_arguments_are_named(folder, kwargs, error, match, monkeypatch):
    monkeypatch.chdir(folder)
    args = {"folder": folder, "out": folder.parent / "out", **kwargs}
    with pytest.raises(error, match=match):
        Recording(args.pop("folder"), args.pop("out"), **args)


def test_lifecycle_errors(folder, tmp_path):
    rec = Recording(folder, tmp_path / "out")
    with pytest.raises(RuntimeError, match="cannot stop, it is new"):
        rec.stop()
    rec.start()
    with pytest.raises(RuntimeError, match="already running"):
        rec.start()
    rec.stop(finalize=False)
    with pytest.raises(RuntimeError, match="cannot sync, it is stopped"):
        rec.sync()


def test_the_absolute_folder_path_is_kept_only_when_allowed(folder, tmp_path):
    with Recording(folder, tmp_path / "out", keep_folder_path=True) as rec:
        rec.stop(finalize=False)
    header = rec.journal_path.read_text().splitlines()[0]
    assert f'"folder_path": "{folder}"' in header
