"""Fixtures written by hand from the spec's event schema (spec 4.1-4.3), not from the code under test."""

from __future__ import annotations

import difflib
import hashlib
import json
from pathlib import Path

import pytest

SANDBOX = "/home/agent/FileGram/sandbox/p1_methodical_T-05"
REPORT_V1 = "# Report\n\n| item | value |\n|---|---|\n| a | 1 |\n"
REPORT_V2 = "# Report\n\n| item | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n"


def sha16(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _diff(before: str, after: str, path: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}"))


def raw_events(profile: str = "p1_methodical") -> list[dict]:
    """One raw run touching all 22 event types, as the release's engine writes them."""
    diff = _diff(REPORT_V1, REPORT_V2, f"{SANDBOX}/report.md")
    env = {"session_id": "sess-1", "profile_id": profile, "message_id": "msg-1",
           "model_provider": "anthropic", "model_name": "claude-haiku-4-5"}
    blob = lambda t: {"type": "blob", "hash": sha16(t), "path": f"blobs/{sha16(t)}.blob"}  # noqa: E731
    specs = [
        ("session_start", {"target_directory": SANDBOX}),
        ("iteration_start", {"iteration_number": 1}),
        ("llm_response", {"response_time_ms": 812, "input_tokens": 1500, "output_tokens": 90,
                          "has_reasoning": False, "stop_reason": "tool_use"}),
        ("tool_call", {"tool_name": "read", "tool_parameters": {"file_path": f"{SANDBOX}/notes/a.md"},
                       "execution_time_ms": 3, "success": True, "error_type": None, "error_message": None,
                       "retry_count": 0, "sequence_position": 0}),
        ("file_read", {"file_path": f"{SANDBOX}/notes/a.md", "file_type": "md", "directory_depth": 1,
                       "view_count": 1, "view_range": [1, 40], "content_length": 900, "revisit_interval_ms": None}),
        ("context_switch", {"from_file": None, "to_file": f"{SANDBOX}/notes/a.md", "trigger": "file_read",
                            "switch_count": 1}),
        ("file_read", {"file_path": f"{SANDBOX}/notes/a.md", "file_type": "md", "directory_depth": 1,
                       "view_count": 2, "view_range": [1, 40], "content_length": 900, "revisit_interval_ms": 5000}),
        ("file_browse", {"directory_path": SANDBOX, "files_listed": 7, "depth": 0}),
        ("file_search", {"search_type": "grep", "query": "revenue", "files_matched": 2,
                         "files_opened_after": [f"{SANDBOX}/notes/a.md"]}),
        ("file_write", {"file_path": f"{SANDBOX}/report.md", "file_type": "md", "directory_depth": 0,
                        "operation": "create", "content_length": len(REPORT_V1), "before_hash": None,
                        "after_hash": sha16(REPORT_V1), "media_ref": blob(REPORT_V1)}),
        ("cross_file_reference", {"source_file": f"{SANDBOX}/notes/a.md", "target_file": f"{SANDBOX}/report.md",
                                  "reference_type": "read_then_edit", "interval_ms": 1200}),
        ("file_edit", {"file_path": f"{SANDBOX}/report.md", "file_type": "md", "edit_tool": "edit",
                       "lines_added": 1, "lines_deleted": 0, "lines_modified": 0, "diff_summary": "+1 -0",
                       "before_hash": sha16(REPORT_V1), "after_hash": sha16(REPORT_V2),
                       "media_ref_old": blob(REPORT_V1), "media_ref_new": blob(REPORT_V2),
                       "media_ref_diff": {"type": "diff", "hash": sha16(diff), "path": f"diffs/{sha16(diff)}.diff"}}),
        ("dir_create", {"dir_path": f"{SANDBOX}/archive/2024", "depth": 2, "sibling_count": 0}),
        ("file_copy", {"source_path": f"{SANDBOX}/report.md", "dest_path": f"{SANDBOX}/report.md.bak",
                       "is_backup": True}),
        ("file_move", {"old_path": f"{SANDBOX}/old.txt", "new_path": f"{SANDBOX}/archive/2024/old.txt",
                       "destination_directory_depth": 2}),
        ("file_rename", {"old_path": f"{SANDBOX}/my-notes.md", "new_path": f"{SANDBOX}/my_notes.md",
                         "naming_pattern_change": "kebab_to_snake"}),
        ("file_delete", {"file_path": f"{SANDBOX}/scratch.tmp", "file_age_ms": 30000, "was_temporary": True}),
        ("fs_snapshot", {"file_count_by_type": {"md": 3, "txt": 1}, "max_depth": 2, "total_files": 4}),
        ("error_encounter", {"error_type": "FileNotFound", "context": "read missing.md", "severity": "low",
                             "tool_name": "read", "file_path": f"{SANDBOX}/missing.md"}),
        ("error_response", {"strategy": "retry", "latency_ms": 40, "error_event_id": "e-19",
                            "resolution_successful": True}),
        ("compaction_triggered", {"reason": "context_limit", "messages_before": 40, "messages_after": 12,
                                  "tokens_saved": 30000}),
        ("iteration_end", {"iteration_number": 1, "duration_ms": 4200, "tools_called": 9, "has_tool_error": True}),
        ("session_end", {"total_iterations": 1, "total_tool_calls": 9, "duration_ms": 60000}),
    ]
    return [{"event_id": f"e-{i}", "event_type": t, "timestamp": 1_700_000_000_000.0 + 1000 * i, **env, **fields}
            for i, (t, fields) in enumerate(specs)]


BEHAVIORAL_IN_FIXTURE = 13  # two file_reads + one of each other retained type
METADATA_IN_FIXTURE = 10


def write_trajectory_dir(root: Path, name: str = "p1_methodical_T-05", events: list | None = None,
                         with_media: bool = True) -> Path:
    """A release-layout trajectory folder under root/signal/name."""
    d = root / "signal" / name
    (d / "media" / "blobs").mkdir(parents=True, exist_ok=True)
    (d / "media" / "diffs").mkdir(parents=True, exist_ok=True)
    events = raw_events() if events is None else events
    (d / "events.json").write_text(json.dumps(events, indent=2, ensure_ascii=False), encoding="utf-8")
    summary = {"session_id": "sess-1", "profile_id": "p1_methodical", "model_provider": "anthropic",
               "model_name": "claude-haiku-4-5", "total_events": len(events), "completed": True}
    (d / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    if with_media:
        entries = {}
        diff = _diff(REPORT_V1, REPORT_V2, f"{SANDBOX}/report.md")
        for kind, text in (("blob", REPORT_V1), ("blob", REPORT_V2), ("diff", diff)):
            folder = "blobs" if kind == "blob" else "diffs"
            (d / "media" / folder / f"{sha16(text)}.{kind}").write_text(text, encoding="utf-8")
            entries[sha16(text)] = {"type": kind, "original_path": f"{SANDBOX}/report.md",
                                    "size_bytes": len(text.encode()), "stored_at": 1.0, "references": 1}
        (d / "media" / "manifest.json").write_text(json.dumps({"version": 1, "entries": entries}), encoding="utf-8")
    return d


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Two trajectories of the release layout under tmp_path/signal/."""
    write_trajectory_dir(tmp_path, "p1_methodical_T-05")
    write_trajectory_dir(tmp_path, "p3_efficient_executor_T-12", raw_events("p3_efficient_executor"))
    return tmp_path


@pytest.fixture(autouse=True)
def _no_writes_to_the_project_cache(tmp_path_factory, monkeypatch):
    """Paid backends default to the project's response cache; tests get a private one instead."""
    monkeypatch.setenv("FILEGRAM_CACHE", str(tmp_path_factory.mktemp("llm-cache")))


@pytest.fixture
def sleeps(monkeypatch) -> list[float]:
    """Backoff waits of provider retries, recorded instead of slept."""
    from filegram_kit.llm import retry

    waits: list[float] = []
    monkeypatch.setitem(retry.call_with_retries.__kwdefaults__, "sleep", waits.append)
    return waits


@pytest.fixture
def server():
    """A loopback HTTP server speaking whatever wire format the test scripts (tests/loopback.py)."""
    from tests.loopback import LoopbackServer

    with LoopbackServer() as loopback:
        yield loopback


@pytest.fixture(scope="module")
def browser():
    """The system Chromium, headless, for the browser checks (skipped where there is none)."""
    from tests.browser_check import BrowserCheckUnavailable, chromium, chromium_path

    try:
        path = chromium_path()
    except BrowserCheckUnavailable as err:
        pytest.skip(f"browser check skipped: {err}")
    with chromium(path) as context:
        yield context


SMALL_CORPUS = {"profiles": ["p1", "p3"], "tasks": ["T-01", "T-05", "T-12"]}  # understand, organize, iterate


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """Two personas x three task types from the engine, built once per test session for every module that only
    reads it (a test that changes a corpus builds its own)."""
    from filegram_kit.engine import build_corpus

    out = tmp_path_factory.mktemp("small") / "corpus"
    build_corpus(out, **SMALL_CORPUS, workers=1, progress=False)
    return out
