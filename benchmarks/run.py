"""Speed of the trajectory pipeline at paper scale: 640 trajectories, ~121 raw events each.

    python benchmarks/run.py --out BENCHMARKS.md [--trajectories 640]

Builds a synthetic release-layout corpus whose event mix matches paper Table 5 (20,028 behavioral
+ 57,811 metadata events over 640 trajectories), then times load (with media checks), clean and
events_frame. Results are written as a Markdown table; nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import platform
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

import filegram_kit as fk
from filegram_kit import atomic
from filegram_kit.media import MediaStore
from filegram_kit.schema import Event

TABLE5 = {"file_read": 4541, "file_browse": 1649, "file_search": 294, "file_write": 3024, "file_edit": 1057,
          "dir_create": 944, "file_copy": 211, "file_move": 130, "file_delete": 92, "file_rename": 83,
          "cross_file_reference": 4094, "context_switch": 3909, "tool_call": 15301, "llm_response": 13096,
          "iteration_start": 13096, "iteration_end": 13096, "fs_snapshot": 1280, "session_start": 640,
          "session_end": 640, "error_encounter": 233, "error_response": 215, "compaction_triggered": 214}
ROOT = "/bench/sandbox/{traj}/"
FIELDS = {
    "file_read": lambda p, i: {"file_path": p + f"in/f{i % 20}.md", "file_type": "md", "directory_depth": 1,
                               "view_count": 1 + i % 3, "view_range": [1, 80], "content_length": 2400,
                               "revisit_interval_ms": None},
    "file_browse": lambda p, i: {"directory_path": p + "in", "files_listed": 12, "depth": 1},
    "file_search": lambda p, i: {"search_type": "grep", "query": "revenue", "files_matched": 3,
                                 "files_opened_after": [p + "in/f1.md"]},
    "file_edit": lambda p, i: {"file_path": p + "out/report.md", "file_type": "md", "edit_tool": "edit",
                               "lines_added": 3, "lines_deleted": 1, "lines_modified": 1, "diff_summary": "+3 -1",
                               "before_hash": "a" * 16, "after_hash": "b" * 16},
    "dir_create": lambda p, i: {"dir_path": p + f"out/d{i}", "depth": 2, "sibling_count": 1},
    "file_copy": lambda p, i: {"source_path": p + "out/report.md", "dest_path": p + "out/report.md.bak",
                               "is_backup": True},
    "file_move": lambda p, i: {"old_path": p + f"in/f{i}.md", "new_path": p + f"out/d/f{i}.md",
                               "destination_directory_depth": 2},
    "file_delete": lambda p, i: {"file_path": p + f"tmp{i}.tmp", "file_age_ms": 1000, "was_temporary": True},
    "file_rename": lambda p, i: {"old_path": p + f"a-{i}.md", "new_path": p + f"a_{i}.md",
                                 "naming_pattern_change": "kebab_to_snake"},
    "cross_file_reference": lambda p, i: {"source_file": p + "in/f1.md", "target_file": p + "out/report.md",
                                          "reference_type": "sequential_access", "interval_ms": 900},
    "context_switch": lambda p, i: {"from_file": p + "in/f1.md", "to_file": p + "in/f2.md",
                                    "trigger": "file_read", "switch_count": i},
    "tool_call": lambda p, i: {"tool_name": "read", "tool_parameters": {"file_path": p + "in/f1.md"},
                               "execution_time_ms": 3, "success": True, "error_type": None, "error_message": None,
                               "retry_count": 0, "sequence_position": i},
    "llm_response": lambda p, i: {"response_time_ms": 900, "input_tokens": 4000, "output_tokens": 120,
                                  "has_reasoning": False, "stop_reason": "tool_use"},
    "iteration_start": lambda p, i: {"iteration_number": i},
    "iteration_end": lambda p, i: {"iteration_number": i, "duration_ms": 1500, "tools_called": 1,
                                   "has_tool_error": False},
    "fs_snapshot": lambda p, i: {"file_count_by_type": {"md": 5}, "max_depth": 2, "total_files": 5},
    "session_start": lambda p, i: {"target_directory": p},
    "session_end": lambda p, i: {"total_iterations": 20, "total_tool_calls": 24, "duration_ms": 60000},
    "error_encounter": lambda p, i: {"error_type": "NotFound", "context": "read", "severity": "low",
                                     "tool_name": "read", "file_path": None},
    "error_response": lambda p, i: {"strategy": "retry", "latency_ms": 30, "error_event_id": None,
                                    "resolution_successful": True},
    "compaction_triggered": lambda p, i: {"reason": "limit", "messages_before": 40, "messages_after": 10,
                                          "tokens_saved": 20000},
}


def build_corpus(root: Path, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    scale = n / 640
    for t in range(n):
        traj_id = f"p{t % 20 + 1}_bench_T-{t // 20 % 32 + 1:02d}" + ("" if t < 640 else f"x{t}")
        prefix = ROOT.format(traj=traj_id)
        counts = {k: int(rng.poisson(v * scale / n)) for k, v in TABLE5.items()}
        types = [k for k, c in counts.items() for _ in range(c)]
        order = rng.permutation(len(types))
        media = MediaStore(root / "signal" / traj_id / "media", clock=lambda: 0.0)
        events = []
        for i, j in enumerate(order):
            kind = types[j]
            if kind == "file_write":
                text = f"# Output {i}\n\n| a | b |\n|---|---|\n" + "line of text\n" * int(rng.integers(10, 200))
                fields = {"file_path": prefix + f"out/o{i}.md", "file_type": "md", "directory_depth": 1,
                          "operation": "create", "content_length": len(text), "before_hash": None,
                          "after_hash": "c" * 16, "media_ref": media.put_blob(text, f"out/o{i}.md")}
            else:
                fields = FIELDS[kind](prefix, i)
            events.append(Event(f"{traj_id}-{i}", kind, 1.7e12 + 1000 * i, "s", f"p{t % 20 + 1}",
                                {"message_id": "m", "model_provider": "x", "model_name": "y", **fields}))
        if media.entries:
            media.flush()
        atomic.write_json(root / "signal" / traj_id / "events.json", [e.to_dict() for e in events])


def timed(label: str, fn, results: list):
    start = time.perf_counter()
    value = fn()
    results.append((label, time.perf_counter() - start))
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("BENCHMARKS.md"))
    parser.add_argument("--trajectories", type=int, default=640)
    args = parser.parse_args()
    results: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        timed("build synthetic corpus", lambda: build_corpus(root, args.trajectories), results)
        trajs = timed("load_trajectories (validate + media check)",
                      lambda: fk.load_trajectories(root, progress=False), results)
        cleaned, report = timed("clean", lambda: fk.clean(trajs), results)
        frame = timed("events_frame (cleaned)", lambda: fk.events_frame(cleaned), results)
        timed("events_frame (cleaned, with_content)", lambda: fk.events_frame(cleaned, with_content=True), results)
        timed("save_trajectories (cleaned)", lambda: fk.save_trajectories(cleaned, root / "out", progress=False),
              results)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines = ["# Benchmarks", "", f"`make bench` ({Path(__file__).name}) on {platform.machine()}, "
             f"Python {platform.python_version()}, {args.trajectories} synthetic trajectories with paper Table 5's "
             f"event mix: {report.raw_total} raw events, {frame.height} after cleaning "
             f"({report.metadata_share:.1%} metadata). Peak memory {peak_mb:.0f} MB.", "",
             "| step | seconds |", "|---|---|"]
    lines += [f"| {label} | {sec:.2f} |" for label, sec in results]
    atomic.write_text(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
