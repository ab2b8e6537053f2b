"""The run manifest beside results.jsonl: what produced the rows, so a number can be traced and rerun.

`manifest.json` (written atomically at the start and the end of every `evaluate` call) holds the
code (git sha and dirty flag, and a fingerprint of the package's sources and data), package
versions, python, seed, the corpus (path and its engine fingerprint from corpus.json), the items
(sha256 of their canonical JSON, counts), methods with resolved params and hashes, the backend
and its params, reader prompt versions, cache statistics, usage by phase, start/end times, row
and error counts, and the history of runs into the same folder.

A folder holds the results of one corpus and one item set: resuming into a folder whose manifest
names other items or another corpus is refused; other code only warns (its rows are kept).
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
import subprocess
import sys
import time
import warnings
from collections import Counter
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.tasks import PROMPT_VERSION, TASKS
from ..util.atomic import write_json
from .schema import FIELDS, Item

if TYPE_CHECKING:
    from ..llm.base import Backend

PACKAGE = Path(__file__).resolve().parents[1]
SDKS = {"gemini": "google-genai", "cohere": "cohere", "openai_compat": "openai"}
READER_TASKS = ("answer_mcq", "answer_open", "judge_attribute", "judge_likert")


def items_hash(items: list[Item]) -> str:
    """sha256 of the items' canonical JSON (every field, in order; sorted keys, no spaces, UTF-8 kept)."""
    rows = [{name: getattr(i, name) for name in FIELDS} for i in items]  # tuples encode as JSON lists
    text = json.dumps(rows, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


RESULT_MODULES = ("filegram_kit.bench.harness", "filegram_kit.bench.controls", "filegram_kit.bench.generate")
RECORD_ONLY = ("bench/manifest.py", "util/code_closure.py")  # describe a run, never change its rows


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """sha256 (16 hex) of the code a result row depends on: the closure of the harness (every memory and
    backend it can name), the controls and the item generator, and the package data they read."""
    from ..util.code_closure import closure, data_files, digest

    files = sorted({p for module in RESULT_MODULES for p in closure(module)
                    if p.relative_to(PACKAGE).as_posix() not in RECORD_ONLY})
    return digest(files + data_files(files))[:16]


def _git(*args: str, repo: Path = PACKAGE) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(outputs: Path | None = None, repo: Path = PACKAGE) -> dict[str, Any]:
    """The checkout's HEAD sha and whether tracked files differ from it (None outside a git checkout), not
    counting the folder `outputs` (a run's own outputs, e.g. figures/, are not a change to what made them)."""
    sha = _git("rev-parse", "HEAD", repo=repo)
    top = _git("rev-parse", "--show-toplevel", repo=repo) if sha else None
    inside = outputs is not None and top is not None and Path(outputs).resolve().is_relative_to(Path(top).resolve())
    exclude = [f":(exclude){Path(outputs).resolve()}"] if inside else []  # git refuses a path outside the checkout
    status = _git("status", "--porcelain", "--untracked-files=no", "--", ":/", *exclude, repo=repo) if sha else None
    return {"git_sha": sha, "git_dirty": None if status is None else bool(status)}


def package_versions(names: list[str] | tuple[str, ...]) -> dict[str, str | None]:
    """Installed version of each distribution (None when it is not installed)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def versions(backend_name: str) -> dict[str, str | None]:
    return package_versions(["filegram_kit", "polars", "numpy", "scikit-learn"]
                            + ([SDKS[backend_name]] if backend_name in SDKS else []))


def corpus_info(corpus: str | Path) -> dict[str, Any]:
    """The corpus path and its corpus.json engine fingerprint (None fields when there is no corpus.json)."""
    path = Path(corpus)
    info: dict[str, Any] = {"path": str(path), "engine": None, "engine_version": None, "agent": None, "seed": None,
                            "style_pack": None, "trajectories": None}
    try:
        found = json.loads((path / "corpus.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return info
    info.update({k: found.get(k) for k in ("engine", "engine_version", "agent", "seed", "trajectories")})
    info["style_pack"] = found.get("style_pack", "A")  # corpora written before packs existed are pack A
    return info


def _read(out: Path) -> dict[str, Any]:
    try:
        return json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def run_facts(items: list[Item], chosen: list[Item], corpus: str | Path, limit: int | None,
              backend_name: str) -> dict[str, Any]:
    """What stays fixed during a run (computed once): code, versions, corpus and items."""
    return {"code": {**git_state(), "fingerprint": code_fingerprint()}, "versions": versions(backend_name),
            "python": platform.python_version(), "platform": sys.platform, "corpus": corpus_info(corpus),
            "items": {"sha256": items_hash(items), "count": len(items), "selected": len(chosen), "limit": limit,
                      "by_sub_track": dict(Counter(i.sub_track for i in chosen))}}


def check_resume(out: Path, facts: dict[str, Any]) -> None:
    """Refuse to add rows to a folder made from other items or another corpus; warn when the code changed."""
    old = _read(out)
    if not old:
        return
    old_items, new_items = old.get("items", {}).get("sha256"), facts["items"]["sha256"]
    if old_items and old_items != new_items:
        raise ValueError(f"{out}: its results were made from other items (sha256 {old_items[:12]}..., these are "
                         f"{new_items[:12]}...); use another --out folder or remove this one")
    old_engine, engine = old.get("corpus", {}).get("engine"), facts["corpus"]["engine"]
    if old_engine and engine and old_engine != engine:
        raise ValueError(f"{out}: its results were made from a corpus with engine {old_engine}, "
                         f"{facts['corpus']['path']} has {engine}; use another --out folder or remove this one")
    old_code, code = old.get("code", {}).get("fingerprint"), facts["code"]["fingerprint"]
    if old_code not in (None, code):
        warnings.warn(f"{out}: earlier rows were made by other code (fingerprint {old_code}, now {code}); they are "
                      "kept: pass a new out folder to recompute", stacklevel=3)


def _usage_delta(before: dict, after: dict) -> dict[str, dict[str, int]]:
    return {phase: {k: v - before.get(phase, {}).get(k, 0) for k, v in row.items()} for phase, row in after.items()}


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def write_manifest(out: Path, state: Any, facts: dict[str, Any], methods: list, backend: Backend, run: dict[str, Any],
                   usage_before: dict, rows: list[dict[str, Any]]) -> Path:
    """Write out/manifest.json for the current state of a run (called at its start and its end)."""
    old = _read(out)
    if state.history is None:
        state.history = [r for r in old.get("runs", []) if isinstance(r, dict)]
    this_run = {"started_at": _stamp(state.started), "finished_at": None if state.status == "running"
                else _stamp(time.time()), "status": state.status, "methods": [m.name for m in methods],
                "backend": run["backend"], "model": run["model"], "seed": run["seed"],
                "limit": facts["items"]["limit"], "rows_written": state.written, "rows_resumed": state.resumed,
                "rows_retried": state.dropped}
    cache = getattr(backend, "cache", None)
    manifest = {
        "status": state.status, "started_at": this_run["started_at"], "finished_at": this_run["finished_at"],
        **facts, "seed": run["seed"],
        "methods": [{"name": m.name, "params": m.params, "resolved": m.resolved, "params_hash": m.params_hash}
                    for m in methods],
        "backend": {"name": run["backend"], "model": run["model"], "params": backend.params()},
        "reader": {"prompt_version": PROMPT_VERSION, "tasks": {t: TASKS[t].version for t in READER_TASKS}},
        "cache": None if cache is None else {"root": str(cache.root), "mode": cache.mode, **cache.stats()},
        "usage": _usage_delta(usage_before, json.loads(json.dumps(backend.usage.counts))),
        "counts": {"rows": len(rows), "written": state.written, "resumed": state.resumed, "retried": state.dropped,
                   "errors": dict(Counter(r["error"] for r in rows if r.get("error")))},
        "runs": state.history + [this_run],
    }
    return write_json(out / "manifest.json", json.loads(json.dumps(manifest, default=str)))
