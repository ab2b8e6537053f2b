"""Table 3 answers do not depend on the last bits of floats (issue 50), for every Table 3 method and sub-task:

- embeddings and BM25 scores perturbed by a relative 1e-12 (another machine's BLAS kernel or SIMD path differs
  by about 1e-16) give the same answers;
- so does another float environment of this machine: OpenBLAS's plainest kernel and numpy without its AVX2 and
  AVX-512 paths (the sums and the exp and log of an older CPU)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from filegram_kit.bench.generate import build_items
from filegram_kit.bench.harness import evaluate, select
from filegram_kit.llm.algorithms import bm25, lexical_reader, memo
from filegram_kit.llm.base import Backend
from filegram_kit.report.settings import TABLE3_METHODS

NOISE = 1e-12
PER_SUB_TASK = 3


@pytest.fixture(scope="module")
def three_personas(tmp_path_factory) -> Path:
    """Three personas x all 32 tasks: the smallest engine corpus whose items cover all seven sub-tasks."""
    from filegram_kit.engine import build_corpus

    out = tmp_path_factory.mktemp("noise") / "corpus"
    build_corpus(out, profiles=["p1", "p3", "p7"], workers=1, progress=False)
    return out


def _forget() -> None:
    """Drop the per-process memos, so each run computes (and perturbs) every row afresh."""
    memo._memo.clear()
    lexical_reader._indexed.cache_clear()
    lexical_reader._units.cache_clear()


def _answers(corpus: Path, out: Path) -> pl.DataFrame:
    _forget()
    items = select(build_items(corpus, seed=0, progress=False), PER_SUB_TASK)
    rows = evaluate(items, corpus, list(TABLE3_METHODS), out=out, workers=1, progress=False)
    assert rows["error"].null_count() == rows.height
    return rows.select("method", "question_id", "sub_track", "answer", "score").sort("method", "question_id")


def _perturb(monkeypatch, seed: int) -> None:
    """Every embedding row and BM25 score handed out is multiplied by (1 + e), e uniform in +-NOISE, drawn
    afresh per call: the same text embedded twice differs, as a row computed in another kernel's order would."""
    rng = np.random.default_rng(seed)

    def noisy(values):
        values = np.asarray(values, dtype=np.float64)
        return values * (1.0 + rng.uniform(-NOISE, NOISE, values.shape))

    embed_with, backend_embed, scores = lexical_reader.embed_with, Backend.embed, bm25.Bm25Index.scores
    monkeypatch.setattr(lexical_reader, "embed_with", lambda *a, **k: noisy(embed_with(*a, **k)))
    monkeypatch.setattr(Backend, "embed", lambda self, *a, **k: noisy(backend_embed(self, *a, **k)))
    monkeypatch.setattr(bm25.Bm25Index, "scores", lambda self, *a, **k: noisy(scores(self, *a, **k)))


@pytest.fixture(scope="module")
def clean(three_personas, tmp_path_factory) -> pl.DataFrame:
    return _answers(three_personas, tmp_path_factory.mktemp("clean"))


def test_answers_survive_last_bit_noise(three_personas, clean, tmp_path, monkeypatch):
    assert clean["sub_track"].n_unique() == 7 and clean["method"].n_unique() == len(TABLE3_METHODS)
    _perturb(monkeypatch, seed=1)
    _check_same(clean, _answers(three_personas, tmp_path / "noisy"), "with 1e-12 noise")


OTHER_MACHINE = {"OPENBLAS_CORETYPE": "Sandybridge", "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"}


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the float environments named are x86-64's")
def test_answers_are_the_same_in_another_float_environment(three_personas, clean, tmp_path):
    script = (f"import sys; sys.path.insert(0, {os.getcwd()!r}); from pathlib import Path; "
              "from tests.test_float_noise_rows import _answers; "
              f"_answers(Path({str(three_personas)!r}), Path({str(tmp_path / 'run')!r}))"
              f".write_parquet({str(tmp_path / 'rows.parquet')!r})")
    done = subprocess.run([sys.executable, "-c", script], env={**os.environ, **OTHER_MACHINE}, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    _check_same(clean, pl.read_parquet(tmp_path / "rows.parquet"), f"under {json.dumps(OTHER_MACHINE)}")


def _check_same(clean: pl.DataFrame, other: pl.DataFrame, where: str) -> None:
    assert other.height == clean.height
    changed = clean.join(other, on=["method", "question_id"], suffix="_other").filter(
        (pl.col("answer") != pl.col("answer_other")) | (pl.col("score") != pl.col("score_other")))
    assert changed.is_empty(), f"{changed.height} of {clean.height} answers moved {where}:\n{changed}"
