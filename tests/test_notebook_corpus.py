"""A notebook's corpus: progress while the default corpus has to be built, none once it is complete, and no
figure keyed by how a notebook shows it."""

import json
import shutil
from pathlib import Path

import pytest

from filegram_kit import notebook_corpus
from filegram_kit.engine import build_corpus
from filegram_kit.report import ARTIFACTS
from filegram_kit.report.corpus_source import STAMP, source_hash
from filegram_kit.util import code_closure


@pytest.fixture
def built(tmp_path, monkeypatch) -> Path:
    """A one-trajectory corpus written as `default_corpus` leaves it (the engine's stamp beside it), standing in
    for the default corpus: its expected size is one trajectory."""
    out = tmp_path / "corpus"
    build_corpus(out, seed=0, profiles=["p1"], tasks=["T-01"], workers=1, progress=False)
    (out / STAMP).write_text(source_hash() + "\n", encoding="utf-8")
    monkeypatch.setattr(notebook_corpus, "expected_stamp", lambda: {"trajectories": 1})
    return out


def test_a_complete_corpus_by_this_engine_needs_no_build(built):
    assert notebook_corpus.corpus_complete(built)


def test_a_missing_stamp_another_engine_or_missing_trajectories_mean_a_build(built, tmp_path):
    assert not notebook_corpus.corpus_complete(tmp_path / "nowhere")
    other = tmp_path / "other"
    shutil.copytree(built, other)
    (other / STAMP).write_text("0" * 64 + "\n", encoding="utf-8")
    assert not notebook_corpus.corpus_complete(other)
    (other / STAMP).unlink()
    assert not notebook_corpus.corpus_complete(other)
    manifest = built / "corpus.json"
    info = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps(info | {"trajectories": 0}), encoding="utf-8")  # an interrupted build
    assert not notebook_corpus.corpus_complete(built)
    manifest.write_text("{", encoding="utf-8")
    assert not notebook_corpus.corpus_complete(built)


def test_progress_is_shown_exactly_when_the_default_corpus_is_built(built, tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(notebook_corpus, "default_corpus", lambda progress: asked.append(progress) or built)
    monkeypatch.setattr(notebook_corpus, "corpus_dir", lambda: built)
    assert notebook_corpus.corpus_or_small(False, tmp_path, ["p1"], ["T-01"]) == built
    monkeypatch.setattr(notebook_corpus, "corpus_dir", lambda: tmp_path / "fresh_clone")
    notebook_corpus.corpus_or_small(False, tmp_path, ["p1"], ["T-01"])
    assert asked == [False, None]  # None: tqdm in a notebook, a line every 30 s in a log


def test_no_registered_figure_or_table_is_keyed_by_the_notebooks_corpus_helper():
    helper = code_closure.module_path("filegram_kit.notebook_corpus")
    for artifact in ARTIFACTS.values():
        assert helper not in code_closure.closure(artifact.function.__module__), artifact.name
