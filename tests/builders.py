"""Hand-built trajectories for tests: one small function per event type, and `make` to assemble them.

A write or edit given `text=` leaves that text in the trajectory's media store, as the engine does.
"""

from __future__ import annotations

from pathlib import Path

from filegram_kit.traces.media import MediaStore
from filegram_kit.traces.schema import Event, Trajectory


def read(path="notes/a.md", view=1):
    return "file_read", {"file_path": path, "file_type": "md", "directory_depth": 1, "view_count": view,
                         "view_range": [1, 20], "content_length": 400, "revisit_interval_ms": None}


def browse(path="."):
    return "file_browse", {"directory_path": path, "files_listed": 4, "depth": 0}


def search(query="budget"):
    return "file_search", {"search_type": "grep", "query": query, "files_matched": 1, "files_opened_after": []}


def write(path, text=None, length=None, operation="create"):
    fields = {"file_path": path, "file_type": path.rsplit(".", 1)[-1], "directory_depth": path.count("/"),
              "operation": operation, "content_length": len(text) if length is None else length,
              "before_hash": None, "after_hash": None}
    return "file_write", {**fields, **({"text": text} if text is not None else {})}


def edit(path, added, deleted, text=None):
    fields = {"file_path": path, "file_type": "md", "edit_tool": "edit", "lines_added": added,
              "lines_deleted": deleted, "lines_modified": 0, "diff_summary": f"+{added} -{deleted}",
              "before_hash": None, "after_hash": None}
    return "file_edit", {**fields, **({"text": text} if text is not None else {})}


def mkdir(depth, path="out"):
    return "dir_create", {"dir_path": path, "depth": depth, "sibling_count": 0}


def move(old="a.md", new="archive/a.md"):
    return "file_move", {"old_path": old, "new_path": new, "destination_directory_depth": 1}


def delete(path="scratch.tmp"):
    return "file_delete", {"file_path": path, "file_age_ms": 100.0, "was_temporary": True}


def make(root: Path, tid: str, specs: list[tuple[str, dict]]) -> Trajectory:
    """A trajectory whose writes/edits with `text` leave that text in its media store."""
    store = MediaStore(root / "media" / tid)
    events = []
    for i, (kind, fields) in enumerate(specs):
        fields = dict(fields)
        text = fields.pop("text", None)
        if text is not None:
            fields["media_ref_new" if kind == "file_edit" else "media_ref"] = store.put_blob(text, fields["file_path"])
        events.append(Event(f"{tid}-{i}", kind, 1000.0 * i, "sess", None, fields))
    store.flush()
    profile, task = tid.rsplit("_", 1)
    return Trajectory(tid, tuple(events), profile, task, media=store)
