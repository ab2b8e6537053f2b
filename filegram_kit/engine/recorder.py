"""The behavior recorder: turns what the tools did into the release's typed events (spec 4.2-4.3).

One `Recorder` per trajectory. Tools call `file_read`, `file_write`, ... after really acting on the
sandbox; the agent loop calls `iteration_start`, `llm_response`, ... The recorder owns the rules
that are not a single tool's business:

- view_count / revisit_interval_ms per file (nth view, ms since the previous view);
- context_switch on a read of a different file than the current one (trigger "file_read");
- cross_file_reference when a read or edit touches a different file than the previous read/edit
  within 30 s (read->edit: read_then_edit; a file a search just matched: search_then_read; else
  sequential_access);
- error_response when a tool succeeds after an error (same tool: "retry", other: "rethink").

Paths in events are absolute under a *virtual* sandbox root (`/home/agent/filegram/sandbox/<id>`),
never the real temp folder, so the same seed gives byte-identical events wherever it runs.
Timestamps come from a `SimClock`; ids from a seeded generator.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import uuid
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from ..traces.media import MediaStore, content_hash
from ..traces.schema import BACKUP_EXTENSIONS, TEMPORARY_EXTENSIONS

VIRTUAL_HOME = "/home/agent/filegram/sandbox"
CROSS_REFERENCE_WINDOW_MS = 30_000


class SimClock:
    """Simulated wall clock in epoch milliseconds; only `advance` moves it."""

    def __init__(self, start_ms: float):
        self.ms = float(start_ms)

    def now(self) -> float:
        return round(self.ms, 3)

    def advance(self, ms: float) -> float:
        self.ms += max(0.0, float(ms))
        return self.now()


def naming_pattern_change(old_path: str, new_path: str) -> str:
    """Classify a rename by how the file stem's naming convention changed."""
    old, new = PurePosixPath(old_path).stem, PurePosixPath(new_path).stem
    if "_" in old and "-" in new:
        return "snake_to_kebab"
    if "-" in old and "_" in new:
        return "kebab_to_snake"
    if old.lower() == new.lower() and old != new:
        return "case_change"
    if any(c.isupper() for c in old) and (" " in old or "_" in old):
        return "mixed_to_other"
    return "other"


def depth_of(rel_path: str) -> int:
    """Directories between the sandbox root and a file ('a.md' -> 0, 'x/y/a.md' -> 2)."""
    parts = [p for p in PurePosixPath(rel_path).parts if p not in (".", "")]
    return max(0, len(parts) - 1)


def file_type(rel_path: str) -> str:
    return PurePosixPath(rel_path).suffix.lstrip(".").lower()


class Recorder:
    """Collects one trajectory's events, media and summary statistics."""

    def __init__(self, *, root: Path, trajectory_id: str, profile_id: str, clock: SimClock,
                 rng: np.random.Generator, media: MediaStore, model_provider: str = "offline",
                 model_name: str = "filegram-policy"):
        self.root = Path(root)
        self.virtual_root = f"{VIRTUAL_HOME}/{trajectory_id}"
        self.profile_id = profile_id
        self.clock = clock
        self.rng = rng
        self.media = media
        self.model_provider, self.model_name = model_provider, model_name
        self.session_id = self._uuid()
        self.message_id = ""
        self.events: list[dict[str, Any]] = []
        self._views: dict[str, tuple[int, float]] = {}
        self._first_seen: dict[str, float] = {}
        self._current_file: str | None = None
        self._last_op: tuple[str, str, float] | None = None
        self._search_hits: list[str] = []
        self._pending_error: tuple[str, str, float] | None = None
        self._iteration: tuple[int, float, int, bool] | None = None  # number, start, tools, error
        self.stats: Counter[str] = Counter()
        self.tool_sequence: list[str] = []
        self.files_read: set[str] = set()
        self.files_modified: set[str] = set()
        self.files_created: list[str] = []
        self.files_deleted: list[str] = []
        self.files_renamed: list[list[str]] = []
        self.dirs_created: list[str] = []
        self.start_ms = clock.now()

    # -- envelope ------------------------------------------------------------------------------
    def _uuid(self) -> str:
        return str(uuid.UUID(bytes=self.rng.bytes(16), version=4))

    def path(self, rel: str) -> str:
        """The absolute (virtual) path events carry for a sandbox-relative path."""
        rel = str(PurePosixPath(rel))
        return self.virtual_root if rel in (".", "") else f"{self.virtual_root}/{rel}"

    def emit(self, event_type: str, **fields: Any) -> dict[str, Any]:
        event = {"event_id": self._uuid(), "event_type": event_type, "timestamp": self.clock.now(),
                 "session_id": self.session_id, "profile_id": self.profile_id, "message_id": self.message_id,
                 "model_provider": self.model_provider, "model_name": self.model_name, **fields}
        self.events.append(event)
        self.stats[event_type] += 1
        return event

    # -- reading -------------------------------------------------------------------------------
    def file_read(self, rel: str, view_range: tuple[int, int], content_length: int) -> None:
        now = self.clock.now()
        count, last = self._views.get(rel, (0, 0.0))
        self._views[rel] = (count + 1, now)
        self._first_seen.setdefault(rel, now)
        if self._current_file is not None and self._current_file != rel:
            self.stats["context_switch_count"] += 1
            self.emit("context_switch", from_file=self.path(self._current_file), to_file=self.path(rel),
                      trigger="file_read", switch_count=self.stats["context_switch_count"])
        self._current_file = rel
        self.files_read.add(rel)
        self._cross_reference(rel, "read")
        self.emit("file_read", file_path=self.path(rel), file_type=file_type(rel), directory_depth=depth_of(rel),
                  view_count=count + 1, view_range=[int(view_range[0]), int(view_range[1])],
                  content_length=int(content_length), revisit_interval_ms=round(now - last, 3) if count else None)
        self._last_op = (rel, "read", now)

    def file_browse(self, rel_dir: str, files_listed: int) -> None:
        rel_dir = str(PurePosixPath(rel_dir))
        self.emit("file_browse", directory_path=self.path(rel_dir), files_listed=int(files_listed),
                  depth=0 if rel_dir in (".", "") else len(PurePosixPath(rel_dir).parts))

    def file_search(self, search_type: str, query: str, matched: list[str]) -> dict[str, Any]:
        """The event's files_opened_after is filled in as the agent opens matched files."""
        self._search_hits = list(matched)
        return self.emit("file_search", search_type=search_type, query=query, files_matched=len(matched),
                         files_opened_after=[])

    def _cross_reference(self, rel: str, op: str) -> None:
        now = self.clock.now()
        if rel in self._search_hits:
            for event in reversed(self.events):
                if event["event_type"] == "file_search":
                    if self.path(rel) not in event["files_opened_after"]:
                        event["files_opened_after"].append(self.path(rel))
                    break
        if self._last_op is None or self._last_op[0] == rel or now - self._last_op[2] > CROSS_REFERENCE_WINDOW_MS:
            return
        last_file, last_op, last_time = self._last_op
        kind = "read_then_edit" if (last_op, op) == ("read", "edit") else "sequential_access"
        if op == "read" and rel in self._search_hits:
            kind = "search_then_read"
            self._search_hits.remove(rel)
        self.emit("cross_file_reference", source_file=self.path(last_file), target_file=self.path(rel),
                  reference_type=kind, interval_ms=round(now - last_time, 3))

    # -- writing -------------------------------------------------------------------------------
    def file_write(self, rel: str, before: str | bytes | None, after: str | bytes) -> None:
        operation = "create" if before is None else "overwrite"
        now = self.clock.now()
        self._first_seen.setdefault(rel, now)
        text = after if isinstance(after, str) else None
        ref = self.media.put_blob(text, self.path(rel)) if text is not None else None
        if operation == "create":
            self.files_created.append(rel)
        self.files_modified.add(rel)
        fields = {"file_path": self.path(rel), "file_type": file_type(rel), "directory_depth": depth_of(rel),
                  "operation": operation, "content_length": len(after), "before_hash": _hash(before),
                  "after_hash": _hash(after)}
        self.emit("file_write", **fields, **({"media_ref": ref} if ref else {}))

    def file_edit(self, rel: str, before: str, after: str, edit_tool: str = "edit") -> dict[str, int]:
        added = deleted = 0
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
            if line.startswith("+") and not line.startswith("+++"):
                added += 1
            elif line.startswith("-") and not line.startswith("---"):
                deleted += 1
        refs = {"media_ref_old": self.media.put_blob(before, self.path(rel)),
                "media_ref_new": self.media.put_blob(after, self.path(rel)),
                "media_ref_diff": self.media.put_diff(before, after, self.path(rel))}
        self._cross_reference(rel, "edit")
        self.files_modified.add(rel)
        self.stats["lines_added"] += added
        self.stats["lines_deleted"] += deleted
        self.emit("file_edit", file_path=self.path(rel), file_type=file_type(rel), edit_tool=edit_tool,
                  lines_added=added, lines_deleted=deleted, lines_modified=min(added, deleted),
                  diff_summary=f"+{added} -{deleted} lines", before_hash=_hash(before), after_hash=_hash(after),
                  **{k: v for k, v in refs.items() if v is not None})
        self._last_op = (rel, "edit", self.clock.now())
        return {"lines_added": added, "lines_deleted": deleted}

    # -- organizing ----------------------------------------------------------------------------
    def dir_create(self, rel_dir: str) -> None:
        rel_dir = str(PurePosixPath(rel_dir))
        parent = (self.root / rel_dir).parent
        siblings = sum(1 for p in parent.iterdir() if p.is_dir()) - 1 if parent.is_dir() else 0
        self.dirs_created.append(rel_dir)
        self.emit("dir_create", dir_path=self.path(rel_dir), depth=len(PurePosixPath(rel_dir).parts),
                  sibling_count=max(0, siblings))

    def move(self, old: str, new: str) -> None:
        """`mv`: a rename when the parent folder stays, a move otherwise (spec 4.3)."""
        if PurePosixPath(old).parent == PurePosixPath(new).parent:
            self.files_renamed.append([self.path(old), self.path(new)])
            self.emit("file_rename", old_path=self.path(old), new_path=self.path(new),
                      naming_pattern_change=naming_pattern_change(old, new))
        else:
            self.emit("file_move", old_path=self.path(old), new_path=self.path(new),
                      destination_directory_depth=depth_of(new))

    def file_delete(self, rel: str) -> None:
        first = self._first_seen.get(rel)
        self.files_deleted.append(rel)
        self.emit("file_delete", file_path=self.path(rel),
                  file_age_ms=round(self.clock.now() - first, 3) if first is not None else None,
                  was_temporary=PurePosixPath(rel).suffix.lower() in TEMPORARY_EXTENSIONS)

    def file_copy(self, source: str, dest: str) -> None:
        self.emit("file_copy", source_path=self.path(source), dest_path=self.path(dest),
                  is_backup=PurePosixPath(dest).suffix.lower() in BACKUP_EXTENSIONS)

    # -- the agent loop ------------------------------------------------------------------------
    def session_start(self) -> None:
        self.emit("session_start", target_directory=self.virtual_root)
        self.fs_snapshot()

    def iteration_start(self) -> int:
        number = self.stats["iterations"] + 1
        self.stats["iterations"] = number
        self.message_id = f"msg_{self.rng.bytes(12).hex()}"
        self._iteration = (number, self.clock.now(), 0, False)
        self.emit("iteration_start", iteration_number=number)
        return number

    def llm_response(self, response_time_ms: float, input_tokens: int, output_tokens: int, *,
                     has_reasoning: bool, stop_reason: str) -> None:
        self.stats["input_tokens"] += input_tokens
        self.stats["output_tokens"] += output_tokens
        self.emit("llm_response", response_time_ms=round(response_time_ms, 3), input_tokens=int(input_tokens),
                  output_tokens=int(output_tokens), has_reasoning=has_reasoning, stop_reason=stop_reason)

    def tool_call(self, name: str, params: dict[str, Any], execution_ms: float, *, success: bool,
                  error_type: str | None = None, error_message: str | None = None, retry_count: int = 0) -> None:
        self.stats["tool_calls"] += 1
        self.stats["tool_successes"] += success
        self.tool_sequence.append(name)
        if self._iteration is not None:
            number, start, tools, error = self._iteration
            self._iteration = (number, start, tools + 1, error or not success)
        self.emit("tool_call", tool_name=name, tool_parameters=params, execution_time_ms=round(execution_ms, 3),
                  success=success, error_type=error_type, error_message=error_message, retry_count=retry_count,
                  sequence_position=self.stats["tool_calls"])
        if not success:
            self._error(name, error_type or "tool_error", error_message or "", params)
        elif self._pending_error is not None:
            event_id, tool, at = self._pending_error
            self.stats["error_recoveries"] += 1
            self.emit("error_response", strategy="retry" if tool == name else "rethink",
                      latency_ms=round(self.clock.now() - at, 3), error_event_id=event_id,
                      resolution_successful=True)
            self._pending_error = None

    def _error(self, tool: str, error_type: str, message: str, params: dict[str, Any]) -> None:
        self.stats["errors"] += 1
        path = params.get("file_path") or params.get("path")
        event = self.emit("error_encounter", error_type=error_type, context=message[:200],
                          severity="medium" if error_type != "permission_denied" else "high", tool_name=tool,
                          file_path=self.path(path) if isinstance(path, str) else None)
        self._pending_error = (event["event_id"], tool, self.clock.now())

    def iteration_end(self) -> None:
        number, start, tools, error = self._iteration or (0, self.clock.now(), 0, False)
        self.emit("iteration_end", iteration_number=number, duration_ms=round(self.clock.now() - start, 3),
                  tools_called=tools, has_tool_error=error)
        self._iteration = None

    def compaction(self, messages_before: int, messages_after: int, tokens_saved: int) -> None:
        self.stats["compactions"] += 1
        self.emit("compaction_triggered", reason="context_limit", messages_before=messages_before,
                  messages_after=messages_after, tokens_saved=tokens_saved)

    def fs_snapshot(self) -> None:
        """File counts by extension, deepest level and the directory tree (stored as a blob)."""
        by_type: Counter[str] = Counter()
        tree, max_depth = [], 0
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root)
            max_depth = max(max_depth, len(rel.parts))
            tree.append(rel.as_posix())
            if path.is_file():
                by_type[path.suffix.lstrip(".").lower() or "unknown"] += 1
        ref = self.media.put_blob(json.dumps(tree, indent=2, ensure_ascii=False), "fs_snapshot.json") if tree else None
        self.emit("fs_snapshot", file_count_by_type=dict(sorted(by_type.items())), max_depth=max_depth,
                  total_files=sum(by_type.values()), **({"media_ref": ref} if ref else {}))

    def session_end(self, *, completed: bool = True) -> dict[str, Any]:
        """Final snapshot + session_end; returns summary.json's content."""
        self.fs_snapshot()
        duration = round(self.clock.now() - self.start_ms, 3)
        self.emit("session_end", total_iterations=self.stats["iterations"], total_tool_calls=self.stats["tool_calls"],
                  duration_ms=duration)
        return self.summary(duration, completed)

    def summary(self, duration: float, completed: bool) -> dict[str, Any]:
        calls = self.stats["tool_calls"]
        return {
            "session_id": self.session_id, "profile_id": self.profile_id, "model_provider": self.model_provider,
            "model_name": self.model_name, "total_duration_ms": duration,
            "total_iterations": self.stats["iterations"], "total_tool_calls": calls,
            "tool_success_rate": round(self.stats["tool_successes"] / calls, 4) if calls else 1.0,
            "tool_usage_frequency": dict(sorted(Counter(self.tool_sequence).items())),
            "tool_sequence": self.tool_sequence,
            "unique_files_read": len(self.files_read), "unique_files_modified": len(self.files_modified),
            "files_created": [self.path(p) for p in self.files_created],
            "files_modified": sorted(self.path(p) for p in self.files_modified),
            "total_lines_added": self.stats["lines_added"], "total_lines_deleted": self.stats["lines_deleted"],
            "compaction_count": self.stats["compactions"], "total_input_tokens": self.stats["input_tokens"],
            "total_output_tokens": self.stats["output_tokens"],
            "context_switch_count": self.stats["context_switch_count"],
            "files_deleted": [self.path(p) for p in self.files_deleted], "files_renamed": self.files_renamed,
            "dirs_created": [self.path(p) for p in self.dirs_created], "error_count": self.stats["errors"],
            "error_recovery_count": self.stats["error_recoveries"], "completed": completed,
            "total_events": len(self.events),
        }


def _hash(content: str | bytes | None) -> str | None:
    if content is None or len(content) == 0:
        return None
    if isinstance(content, bytes):
        return hashlib.sha256(content).hexdigest()[:16]
    return content_hash(content)
