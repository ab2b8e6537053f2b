"""What a `filegram reproduce` run would do, and why, before it does anything (`filegram reproduce --plan`).

    planned = reproduce.plan("figures")                 # computes keys only: no step runs, no corpus is built
    print(format_plan(planned, Path("figures")))        # what `filegram reproduce --plan` prints
    plan_steps(keyed, manifest, state, out)             # the same from (name, inputs, key) per step in run order

A step is *current* when the manifest in the output folder records it with the key this checkout computes
and every file it wrote is as the manifest says. A stale step names why: the files of its code that changed
(the manifest's `code_files` table against this checkout, by what the code does), the corpus fields, the
settings, the artifacts it reads, or its output files. A run also reruns a current step that this machine
has no record of running into the folder (a fresh clone regenerates everything; `--force` reruns all).
Estimated seconds come from the manifest's last run of each step.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..util.code_closure import PACKAGE, file_hash
from .provenance import code_files
from .registry import ARTIFACTS


@dataclass(frozen=True)
class PlannedStep:
    name: str
    current: bool  # the manifest's output is this checkout's (key and files)
    runs: bool  # a run (without --force) would run it
    why: tuple[str, ...]  # why it is stale, or why a current step still runs
    seconds: float | None  # the manifest's last run of the step


def _changed_code(module: str, table: dict[str, str] | None) -> str:
    if not table:
        return "code changed (the manifest predates per-file code hashes)"
    files = code_files(module)
    changed = [p.relative_to(PACKAGE).as_posix() for p in files
               if table.get(p.relative_to(PACKAGE).as_posix()) != file_hash(p)]
    if not changed:
        return "code changed (which files is not known: the manifest's file table was recorded after it ran)"
    shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
    return f"code changed: {shown}"


def _changed_fields(part: str, now: Any, then: Any) -> str:
    if isinstance(now, dict) and isinstance(then, dict):
        fields = sorted(k for k in set(now) | set(then) if now.get(k) != then.get(k))
        return f"{part} changed: " + ", ".join(f"{k} {then.get(k)!r} -> {now.get(k)!r}" for k in fields)
    return f"{part} changed"


def stale_reasons(name: str, inputs: dict[str, Any], key: str, entry: dict[str, Any] | None, out: Path,
                  table: dict[str, str] | None, images: bool) -> tuple[str, ...]:
    """Why the manifest's output of step `name` is not this checkout's (empty: it is)."""
    if not entry:
        return ("not in the manifest: never ran into this folder",)
    reasons = []
    recorded = entry.get("inputs", {})
    if inputs["code"] != recorded.get("code"):
        reasons.append(_changed_code(ARTIFACTS[name].function.__module__, table))
    for part in ("corpus", "settings"):
        if inputs[part] != recorded.get(part):
            reasons.append(_changed_fields(part, inputs[part], recorded.get(part)))
    upstream = [r for r in inputs["reads"] if inputs["reads"][r] != recorded.get("reads", {}).get(r)]
    if upstream:
        reasons.append(f"reads {', '.join(upstream)}, which changed")
    if not reasons and entry.get("key") != key:
        reasons.append("key differs from the manifest's")
    files = entry.get("files", {})
    edited = [f for f, sha in files.items()
              if not (out / f).is_file() or hashlib.sha256((out / f).read_bytes()).hexdigest() != sha]
    if edited:
        reasons.append(f"output missing or edited: {', '.join(edited)}")
    if ARTIFACTS[name].figure and images and f"{name}.png" not in files:
        reasons.append("its PNG was never drawn")
    return tuple(reasons)


def plan_steps(keyed: list[tuple[str, dict[str, Any], str]], manifest: dict[str, Any], state: dict[str, Any],
               out: Path, *, images: bool = True, force: bool = False) -> list[PlannedStep]:
    """Each step's status against the manifest (`<out>/MANIFEST.json`) and this machine's record (`state`)."""
    steps, table = manifest.get("steps", {}), manifest.get("code_files")
    planned = []
    for name, inputs, key in keyed:
        entry = steps.get(name)
        stale = stale_reasons(name, inputs, key, entry, out, table, images)
        here = state.get(name, {}).get("key") == key
        if stale:
            why = stale
        elif force:
            why = ("--force",)
        elif not here:
            why = ("current, but this machine has no record of running it here (a fresh clone regenerates)",)
        else:
            why = ()
        planned.append(PlannedStep(name, not stale, bool(why), why, (entry or {}).get("seconds")))
    return planned


def format_plan(planned: list[PlannedStep], out: Path) -> str:
    """One line per step (what happens, estimated seconds, why), then the totals."""
    lines = [f"plan for {out}/ ({len(planned)} steps, against {out}/MANIFEST.json):"]
    for step in planned:
        status = "run  " if step.runs else "skip "
        seconds = "    ?" if step.seconds is None else f"{step.seconds:7.1f} s"
        reason = f"  {'; '.join(step.why)}" if step.runs else ""
        lines.append(f"  {status}{step.name:<34} {seconds if step.runs else '':>9}{reason}")
    running = [s for s in planned if s.runs]
    known = sum(s.seconds or 0 for s in running)
    unknown = sum(s.seconds is None for s in running)
    stale = sum(not s.current for s in planned)
    lines.append(f"{len(planned) - stale} of {len(planned)} steps current for this checkout, {stale} stale; "
                 f"a run runs {len(running)}: about {known:,.0f} s by the last run"
                 + (f" (+ {unknown} never timed)" if unknown else ""))
    return "\n".join(lines)
