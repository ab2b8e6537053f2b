"""The event -> observation rules, driven by hand-made watchdog events (deterministic, no observer)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from watchdog.events import (
    DirCreatedEvent,
    DirModifiedEvent,
    FileClosedEvent,
    FileClosedNoWriteEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from filegram_kit.record.observations import Observation
from filegram_kit.record.privacy import PrivacyPolicy
from filegram_kit.record.watch_handler import RecordingHandler
from tests.record_helpers import sha16


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "notes.md").write_text("alpha\n")
    return tmp_path


def handler(root: Path, *, close_events: bool = True) -> tuple[RecordingHandler, list[Observation]]:
    seen: list[Observation] = []
    h = RecordingHandler(root, PrivacyPolicy().bind(root), seen.append, close_events=close_events,
                         clock=lambda: 1000.0)
    h.last_hash["notes.md"] = sha16(b"alpha\n")
    return h, seen


def p(root: Path, rel: str) -> str:
    return str(root / rel)


def test_inotify_reads_a_new_file_at_close_not_at_create_or_modify(root):
    h, seen = handler(root)
    (root / "a.md").write_text("hello\n")
    for event in (FileCreatedEvent(p(root, "a.md")), FileOpenedEvent(p(root, "a.md")),
                  FileModifiedEvent(p(root, "a.md")), DirModifiedEvent(str(root))):
        h.dispatch(event)
    assert seen == [] and "a.md" in h.pending
    h.dispatch(FileClosedEvent(p(root, "a.md")))
    assert [(o.kind, o.path, o.content) for o in seen] == [("write", "a.md", "hello\n")]
    assert h.pending == {} and h.own_opens == {"a.md": 1}  # our read's close is still to come
    h.dispatch(FileClosedNoWriteEvent(p(root, "a.md")))
    assert len(seen) == 1 and h.own_opens == {} and h.skipped["own_read"] == 1
    h.dispatch(FileClosedNoWriteEvent(p(root, "a.md")))  # somebody else reads it
    assert [(o.kind, o.size) for o in seen[1:]] == [("read", 6)]


def test_files_already_in_a_new_directory_are_read_at_once(root):
    h, seen = handler(root)
    (root / "batch").mkdir()
    (root / "batch" / "f.txt").write_text("early\n")
    h.dispatch(DirCreatedEvent(p(root, "batch")))
    h.dispatch(FileCreatedEvent(p(root, "batch/f.txt")))  # no close will follow: it predates the watch
    assert [(o.kind, o.path, o.content) for o in seen] == [("mkdir", "batch", None),
                                                           ("write", "batch/f.txt", "early\n")]


def test_a_new_file_never_closed_is_written_when_settling(root):
    h, seen = handler(root)
    (root / "held.md").write_text("open\n")
    h.dispatch(FileCreatedEvent(p(root, "held.md")))
    assert seen == []
    h.settle_all()
    assert [(o.kind, o.path, o.content) for o in seen] == [("write", "held.md", "open\n")]


def test_without_close_events_creates_and_modifies_are_read_and_deduplicated(root):
    h, seen = handler(root, close_events=False)
    (root / "a.md").write_text("v1\n")
    h.dispatch(FileCreatedEvent(p(root, "a.md")))
    h.dispatch(FileModifiedEvent(p(root, "a.md")))  # same bytes: an editor's second event for one save
    (root / "a.md").write_text("v2\n")
    h.dispatch(FileModifiedEvent(p(root, "a.md")))
    h.dispatch(FileClosedNoWriteEvent(p(root, "a.md")))  # not sent by such backends; harmless
    assert [(o.kind, o.content) for o in seen] == [("write", "v1\n"), ("write", "v2\n"), ("read", None)]
    assert h.own_opens == {}  # nothing counted: such backends report no reads of ours


def test_moves_with_one_end_outside_the_folder(root, tmp_path):
    h, seen = handler(root)
    (root / "in.md").write_text("arrived\n")
    h.dispatch(FileMovedEvent("", p(root, "in.md")))  # inotify full events: moved in from outside
    h.dispatch(FileMovedEvent(p(root, "notes.md"), ""))  # moved out
    assert [(o.kind, o.path, o.content) for o in seen] == [("write", "in.md", "arrived\n"),
                                                           ("delete", "notes.md", None)]
    assert "notes.md" not in h.last_hash


def test_atomic_save_and_displaced_backup(root):
    h, seen = handler(root)
    (root / "notes.md").write_text("alpha\nsaved\n")
    h.dispatch(FileMovedEvent(p(root, ".notes.md.x1.tmp"), p(root, "notes.md")))
    assert [(o.kind, o.path) for o in seen] == [("write", "notes.md")]
    h.dispatch(FileMovedEvent(p(root, "notes.md"), p(root, "notes.md~")))
    assert len(seen) == 1 and set(h.displaced) == {"notes.md"}
    (root / "notes.md").unlink()
    h.dispatch(FileDeletedEvent(p(root, "notes.md~")))  # the backup goes and notes.md is still gone
    assert [(o.kind, o.path, o.time_ms) for o in seen[1:]] == [("delete", "notes.md", 1000.0)]


def test_tracked_to_tracked_move_carries_state_and_children_are_not_repeated(root):
    h, seen = handler(root)
    h.dispatch(FileMovedEvent(p(root, "notes.md"), p(root, "kept.md")))
    synthetic = FileMovedEvent(p(root, "d/x.md"), p(root, "e/x.md"), is_synthetic=True)
    h.dispatch(synthetic)
    assert [(o.kind, o.path, o.dest) for o in seen] == [("move", "notes.md", "kept.md")]
    assert h.last_hash == {"kept.md": sha16(b"alpha\n")}


def test_fences_are_released_from_either_end_of_a_move(root):
    h, seen = handler(root)
    fence = threading.Event()
    h.fences[".filegram-fence-1-2"] = fence
    h.dispatch(FileMovedEvent(p(root, ".filegram-fence-1-1"), p(root, ".filegram-fence-1-2")))  # polling inode reuse
    assert fence.is_set() and seen == []


def test_errors_are_counted_and_never_raised(root):
    h, seen = handler(root)

    def boom(rel):
        raise RuntimeError(f"cannot read {rel}")

    h.capture = boom
    h.dispatch(FileClosedEvent(p(root, "notes.md")))
    assert h.errors == 1 and "cannot read notes.md" in h.error_messages[0] and seen == []


def test_events_outside_the_root_and_on_the_root_itself_are_dropped(root, tmp_path_factory):
    h, seen = handler(root)
    other = tmp_path_factory.mktemp("other")
    h.dispatch(FileClosedEvent(str(other / "x.md")))
    h.dispatch(DirModifiedEvent(str(root)))
    assert seen == [] and h.errors == 0
