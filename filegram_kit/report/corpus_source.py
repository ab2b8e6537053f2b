"""The trace corpus behind corpus-backed artifacts: all 20 personas x 32 tasks, built once.

    default_corpus() -> data/corpus        (or $FILEGRAM_CORPUS; seed != 0 -> data/corpus_seed<N>)

`build_corpus` resumes, so the first call takes about a minute on 2 cores and later calls only
check that every trajectory is there. Resuming alone would keep trajectories an older engine
wrote, so the folder also holds `.source_hash`, a hash of the code and data that decide what a
trajectory contains; when it changes the corpus is rebuilt from scratch.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polars as pl

from ..engine import build_corpus
from ..engine.corpus import engine_fingerprint

ENV_VAR = "FILEGRAM_CORPUS"
STAMP = ".source_hash"
_PACKAGE = Path(__file__).resolve().parents[1]


def _project_root() -> Path:
    """The checkout this package lives in (editable install), else the working directory."""
    root = _PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() else Path.cwd()


def corpus_dir(seed: int = 0) -> Path:
    """Where the default corpus of `seed` lives (nothing is built)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    return _project_root() / "data" / ("corpus" if seed == 0 else f"corpus_seed{seed}")


def source_hash() -> str:
    """The engine's fingerprint (`filegram_kit.engine.corpus.engine_fingerprint`): what decides the bytes."""
    return engine_fingerprint()


def _drop_if_stale(out: Path, current: str) -> None:
    stamp = out / STAMP
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() != current:
        print(f"{out}: the engine changed since this corpus was built; rebuilding it")
        shutil.rmtree(out)


def default_corpus(seed: int = 0, *, progress: bool | None = None) -> Path:
    """Build (or finish, or just check) the full corpus and return its root folder."""
    out = corpus_dir(seed)
    current = source_hash()
    _drop_if_stale(out, current)
    build_corpus(out, seed=seed, progress=progress)
    (out / STAMP).write_text(current + "\n", encoding="utf-8")
    return out


def cleaned_frame(corpus: str | Path, *, progress: bool | None = None) -> pl.DataFrame:
    """The corpus's behavioral events (after `clean()`) as one polars frame (`events_frame`)."""
    from ..traces import clean, events_frame, load_trajectories

    trajs = load_trajectories(corpus, check_media=False, progress=progress)
    return events_frame(clean(trajs).trajectories)
