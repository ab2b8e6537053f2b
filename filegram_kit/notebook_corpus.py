"""The corpus a notebook works on, with a progress bar whenever it has to be built.

    corpus_or_small(smoke, WORK, ["p1", "p3"], ["T-01"])  -> WORK/corpus (these personas x tasks, a smoke run)
    corpus_or_small(False, ...)                             -> data/corpus (report.corpus_source.default_corpus)

The first open of a notebook on a fresh clone builds the full corpus (about a minute on 2 cores). That build
shows its progress (tqdm in marimo's console and in Jupyter, a log line every 30 s in a script); a corpus that is
already complete is only checked, without bars that would say nothing. This lives beside the notebooks, not in
report/: figures are keyed by the code they run, and how a notebook shows a build is none of theirs.
"""

from __future__ import annotations

import json
from pathlib import Path

from .engine import build_corpus
from .report.corpus_source import STAMP, corpus_dir, default_corpus, expected_stamp, source_hash


def corpus_complete(out: Path) -> bool:
    """True when `out` holds the whole default corpus, written by this checkout's engine (nothing to build)."""
    stamp, manifest = out / STAMP, out / "corpus.json"
    if not (stamp.is_file() and manifest.is_file()):
        return False
    if stamp.read_text(encoding="utf-8").strip() != source_hash():
        return False
    try:
        built = json.loads(manifest.read_text(encoding="utf-8")).get("trajectories")
    except (OSError, ValueError):
        return False
    return built == expected_stamp()["trajectories"]


def corpus_or_small(small: bool, scratch: str | Path, profiles: list[str], tasks: list[str]) -> Path:
    """A notebook's corpus: these personas x tasks built into `scratch`/corpus (smoke runs: seconds, quietly),
    else the default one, with progress shown while anything is built."""
    if not small:
        return default_corpus(progress=False if corpus_complete(corpus_dir()) else None)
    out = Path(scratch) / "corpus"
    build_corpus(out, seed=0, profiles=profiles, tasks=tasks, workers=1, progress=False)
    return out
