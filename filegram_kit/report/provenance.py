"""What a regenerated artifact depends on, as a hash that changes exactly when its output may change.

    step_key(ARTIFACTS["table13_channel_ablation"], settings, corpus_stamp)  -> "3f0a..." (sha256)

An artifact's code is the import closure of the module that defines it (`code_closure.closure`: every
package module it imports or a registry names, transitively, read from the source), the package data
files those modules name, and the writer (registry, export, reproduce), hashed by what the code does (its
normalised AST: a docstring, comment or layout edit keys nothing). The key also covers the corpus
the artifact reads (its engine fingerprint, seed and style pack), the run settings and the keys of the
artifacts it reads.

`reproduce` skips a step whose key and output bytes are unchanged since it last ran on this machine,
and records every key in figures/MANIFEST.json, so a test can tell, without running anything, which
committed artifacts are stale for the code of the checkout.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..util.code_closure import PACKAGE, closure, data_files, digest, file_hash

WRITER_MODULES = ("filegram_kit.report.registry", "filegram_kit.report.export")  # + reproduce.py itself (not its
# closure: it reaches the corpus builder, which only corpus artifacts depend on, through their own closure)


def code_files(module: str) -> list[Path]:
    """The artifact module's closure, the writer's closure and the package data files they name, less the files
    that only describe a run (bench.manifest.RECORD_ONLY: as for the results cache, an edit there re-keys no
    step: the git state a MANIFEST records is not something a table is computed from)."""
    from ..bench.manifest import RECORD_ONLY

    files = list(closure(module))
    for writer in WRITER_MODULES:
        files += closure(writer)
    files.append(PACKAGE / "report" / "reproduce.py")
    return sorted({p for p in files + data_files(files) if p.relative_to(PACKAGE).as_posix() not in RECORD_ONLY})


def code_hash(module: str) -> str:
    """sha256 of what `code_files` do (`code_closure.digest`: docstrings, comments and layout do not count)."""
    return digest(code_files(module))


def code_table(modules: Iterable[str]) -> dict[str, str]:
    """Package-relative path -> `file_hash` of every file these modules' keys cover (the manifest keeps it, so
    a plan can name the files whose change makes a step stale)."""
    files = {p for module in set(modules) for p in code_files(module)}
    return {p.relative_to(PACKAGE).as_posix(): file_hash(p) for p in sorted(files)}


def value_hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def step_inputs(art: Any, settings: dict[str, Any], corpus: dict[str, Any] | None,
                upstream: dict[str, str]) -> dict[str, Any]:
    """What the step key hashes, spelled out (the manifest keeps it, so a stale step says why)."""
    return {"code": code_hash(art.function.__module__),
            "corpus": corpus if art.corpus else None,
            "settings": settings if art.corpus or art.reads else None,
            "reads": {name: upstream.get(name) for name in art.reads}}


def step_key(inputs: dict[str, Any]) -> str:
    return value_hash(inputs)


VERSIONED = ("filegram_kit", "polars", "numpy", "scipy", "scikit-learn", "threadpoolctl", "plotly", "kaleido",
             "wordllama", "tokenizers", "networkx", "pillow", "fpdf2", "fonttools", "pypdf", "python-docx",
             "python-pptx", "openpyxl", "marimo")


def machine() -> dict[str, Any]:
    """The float environment a run had: CPU, numpy's SIMD paths, the BLAS kernel and tesseract. Results should not
    depend on it (util/float_ties.py); when a `--check` differs anyway, this says what else differed."""
    import platform
    import re
    import shutil
    import subprocess

    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy's private module moved: the other fields still say what machine this was
        __cpu_features__ = {}
    cpu = None
    with contextlib.suppress(OSError):
        found = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(encoding="utf-8"), re.M)
        cpu = found.group(1).strip() if found else None
    simd = [f for f in ("X86_V2", "X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR", "ASIMD", "SVE")
            if __cpu_features__.get(f)]
    blas = None
    with contextlib.suppress(Exception):
        import scipy.linalg  # noqa: F401 (loads scipy's BLAS too, so the list does not depend on what ran before)
        from threadpoolctl import threadpool_info

        found = sorted({f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')}" for i in threadpool_info()
                        if i.get("user_api") == "blas"})  # numpy's and scipy's, whichever was loaded first
        blas = "; ".join(found) or None
    tesseract = None
    if shutil.which("tesseract"):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run(["tesseract", "--version"], capture_output=True, text=True, timeout=10)
            tesseract = (done.stdout or done.stderr).split("\n", 1)[0].strip() or None
    return {"arch": platform.machine(), "cpu": cpu, "numpy_simd": simd, "blas": blas, "tesseract": tesseract}


def versions() -> dict[str, str | None]:
    """Python and the versions of the packages whose behaviour reaches the figures."""
    import platform

    from ..bench.manifest import package_versions

    return {"python": platform.python_version(), **package_versions(VERSIONED)}
