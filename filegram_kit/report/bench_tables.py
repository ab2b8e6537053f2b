"""FileGramBench tables: paper Table 3 (main results) from our harness run, beside the paper's printed rows.

The run answers every item of `build_items(corpus)` with the offline backend (lexical reader,
LSA embeddings) for the context baselines and FileGramOS. Its rows go to
`<corpus>/../results/offline/table03-<corpus engine>-<items hash>-<code fingerprint>/` (for the
default corpus: data/results/offline/...), so rerunning `make reproduce` with unchanged code and
corpus reads the finished rows back, and any change of code, corpus or items starts a new folder.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import polars as pl

from ..memory.base import MEMORIES
from .registry import artifact

TABLE3_METHODS = ("no_context", "full_context", "naive_rag", "filegramos")
OURS = "ours (offline backend)"
PAPER = "paper (Gemini 2.5-Flash)"


def _registered(methods: tuple[str, ...] = TABLE3_METHODS) -> tuple[list[str], list[str]]:
    """(methods get_memory can build, methods it cannot) — a baseline still being written is skipped."""
    from ..memory import get_memory

    ready, missing = [], []
    for name in methods:
        try:
            get_memory(name)
        except (KeyError, ImportError, AttributeError):
            missing.append(name)
        else:
            ready.append(name)
    return ready, missing


def _note() -> str:
    missing = [m for m in TABLE3_METHODS if m not in MEMORIES]
    skipped = f" Not registered yet, so skipped: {', '.join(missing)}." if missing else ""
    return ("Our rows: every FileGramBench item of tracks 1-3 built from the corpus, answered by the offline "
            "backend's lexical reader (not an LLM), so compare methods with each other, not with the paper's "
            "numbers. Sub-task columns: accuracy (%), ProfRec = rescaled Likert (0-100) of the offline judge; "
            "Proc/Sem/Epi count multiple-choice items only; our Avg = mean of the seven sub-task columns (the "
            "paper's Avg fits no simple formula and includes Track 4, whose columns are dropped here). Tok In = "
            "mean stored memory per persona, Tok Out = mean context per query (estimated tokens)."
            f"{skipped} Paper rows: Table 3 as printed.")


def results_dir(corpus: Path, items: list) -> Path:
    """Where the offline run of these items on this corpus with this code keeps its rows."""
    from ..bench.manifest import code_fingerprint, corpus_info, items_hash

    engine = corpus_info(corpus)["engine"] or "unknown"
    return corpus.resolve().parent / "results" / "offline" / f"table03-{engine}-{items_hash(items)[:12]}-" \
        f"{code_fingerprint()}"


@artifact("table03_main_results", paper="Table 3", notebook="05_benchmark", corpus=True,
          title="Main results: FileGramBench accuracy per sub-task and channel, with memory and context tokens",
          note=_note())
def table03_main_results(corpus: str | Path | None = None, *, limit: int | None = None, workers: int = 2,
                         out: str | Path | None = None, progress: bool | None = None) -> pl.DataFrame:
    from ..bench.generate import build_items
    from ..bench.harness import evaluate
    from ..bench.score import side_by_side, table3
    from .corpus_source import resolve_corpus

    corpus = resolve_corpus(corpus)
    ready, missing = _registered()
    if missing:
        warnings.warn(f"table03_main_results: skipping memories that are not registered: {', '.join(missing)}",
                      stacklevel=2)
    items = build_items(corpus)
    out = Path(out) if out is not None else results_dir(corpus, items)
    rows = evaluate(items, corpus, ready, backend="offline", out=out, workers=workers, limit=limit, progress=progress,
                    executor="process" if workers > 1 else "thread")  # offline work is CPU-bound: processes
    return side_by_side(table3(rows), ours_label=OURS, paper_label=PAPER)
