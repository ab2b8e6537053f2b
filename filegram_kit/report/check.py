"""`filegram reproduce --check`: recompute artifacts in a scratch folder and compare them, byte for byte, with a
committed folder (figures/, or figures/quick/ for `--quick`), writing nothing there.

    result = check("figures/quick", settings=QUICK, images=False)   # make check-reproduce
    print(format_check(result, "figures/quick"))

A student who gets 26.9 where the repository says 27.3 cannot tell a machine from a bug; this says which step
and file differ, and the first line where they do. MANIFEST.json (timings, the checkout) is not compared. Unless
a corpus is given, the corpus, items and result rows are made afresh in the scratch folder too: rows a
previous run left in data/ would otherwise be read back, and the check would compare them with themselves.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .corpus_source import ENV_VAR
from .reproduce import MANIFEST, reproduce
from .settings import RunSettings


@dataclass(frozen=True)
class Difference:
    """One file of one step that is not as committed."""

    step: str
    file: str
    problem: str  # "differs", "missing from the reference"
    detail: str = ""


def _first_difference(reference: bytes, now: bytes) -> str:
    """Where two files part: the first differing line of a text file, else their sizes."""
    try:
        old, new = reference.decode("utf-8").splitlines(), now.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return f"{len(reference)} bytes committed, {len(now)} bytes now"
    for number, (a, b) in enumerate(zip(old, new, strict=False), 1):
        if a != b:
            return f"line {number}: committed {_clip(a)!r}, now {_clip(b)!r}"
    return f"{len(old)} lines committed, {len(new)} lines now"


def _clip(line: str, width: int = 160) -> str:
    return line if len(line) <= width else line[:width] + "..."


def compare(reference: str | Path, fresh: str | Path, steps: Mapping[str, Mapping[str, Any]]) -> list[Difference]:
    """Each file the fresh run's `steps` (its MANIFEST's) wrote, against the same file in `reference`."""
    reference, fresh = Path(reference), Path(fresh)
    found = []
    for step, entry in steps.items():
        for file in sorted(entry.get("files", {})):
            mine = (fresh / file).read_bytes()
            if not (reference / file).is_file():
                found.append(Difference(step, file, "missing from the reference"))
            elif (theirs := (reference / file).read_bytes()) != mine:
                found.append(Difference(step, file, "differs", _first_difference(theirs, mine)))
    return found


@dataclass(frozen=True)
class CheckResult:
    """What `check` found: the files that differ, how many were compared, and the packages whose version here
    is not the reference's (name -> (reference's, this environment's)): a likely cause of a difference; and
    the machine's fields that differ from the reference's (a cause only if a decision on floats escaped
    util/float_ties.py)."""

    differences: list[Difference]
    compared: int
    versions: dict[str, tuple[str | None, str | None]]
    machine: dict[str, tuple[Any, Any]]  # the float environment's fields that differ (provenance.machine)


def check(reference: str | Path, only: Iterable[str] | None = None, *, settings: RunSettings,
          corpus: str | Path | None = None, images: bool = False, progress: bool | None = None) -> CheckResult:
    """Every step (or those in `only` and what they read) recomputed from scratch in a temporary folder, then
    compared with `reference`. Nothing is written there."""
    from .provenance import machine, versions

    reference = Path(reference)
    if not (reference / MANIFEST).is_file():
        quick = " --quick" if settings.personas else ""
        raise FileNotFoundError(f"{reference / MANIFEST} not found: nothing to check against (write the reference "
                                f"with `filegram reproduce{quick} --out {reference}`)")
    manifest = json.loads((reference / MANIFEST).read_text(encoding="utf-8"))
    recorded, recorded_machine = manifest.get("versions", {}), manifest.get("machine", {})
    with tempfile.TemporaryDirectory(prefix="filegram-check-") as scratch:
        out = Path(scratch) / "figures"
        with _data_in(Path(scratch) / "data" / "corpus") if corpus is None else contextlib.nullcontext():
            reproduce(out, only, progress=progress, corpus=corpus, images=images, settings=settings, force=True)
        steps = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["steps"]
        differences = compare(reference, out, steps)
    here = versions()
    moved = {name: (recorded.get(name), here.get(name)) for name in sorted(set(recorded) | set(here))
             if recorded.get(name) != here.get(name)}
    mine = machine()
    other = {k: (recorded_machine.get(k), mine.get(k)) for k in mine if recorded_machine.get(k) != mine.get(k)}
    return CheckResult(differences, sum(len(s.get("files", {})) for s in steps.values()), moved, other)


@contextlib.contextmanager
def _data_in(corpus: Path):
    """The default corpus (and so every corpus, item set and result folder beside it) under `corpus` meanwhile."""
    before = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = str(corpus)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = before


def format_check(result: CheckResult, reference: str | Path) -> str:
    """What `--check` prints: each difference with its step and file, or that all were identical; then the
    package versions that are not the reference's."""
    if not result.differences:
        lines = [f"reproduced: all {result.compared} files identical to {reference}/ (MANIFEST.json not compared)"]
    else:
        lines = [f"NOT reproduced: {len(result.differences)} of {result.compared} files differ from {reference}/"]
        lines += [f"- {d.step}: {d.file} {d.problem}" + (f" ({d.detail})" if d.detail else "")
                  for d in result.differences]
    if result.versions:
        lines.append("note: versions here differ from the reference's MANIFEST.json (a difference may come from them): "
                     + ", ".join(f"{n} {a} there, {b} here" for n, (a, b) in result.versions.items()))
    if result.machine:
        lines.append("note: this machine differs from the reference's: "
                     + "; ".join(f"{k} {a!r} there, {b!r} here" for k, (a, b) in result.machine.items()))
    return "\n".join(lines)
