"""`filegram reproduce` as a pipeline: step keys follow the code each artifact really uses, unchanged steps
are skipped, MANIFEST.json is complete, and the committed figures/ are not stale for this checkout's code."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from filegram_kit.report import ARTIFACTS, provenance, reproduce
from filegram_kit.report.reproduce import MANIFEST
from filegram_kit.report.settings import FULL, QUICK

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "figures"
STATIC = [n for n, a in ARTIFACTS.items() if not a.corpus and not a.reads and not a.figure]


def _rel(paths) -> set[str]:
    from filegram_kit.util import code_closure

    return {p.relative_to(code_closure.PACKAGE).as_posix() for p in paths}


def test_closure_follows_imports_and_registry_strings_only():
    tables = _rel(provenance.closure("filegram_kit.report.tables"))
    assert {"engine/event_counts.py", "traces/profiles.py", "traces/schema.py", "report/corpus_source.py"} <= tables
    assert not any(p.startswith(("memory/", "record/", "knowact/")) for p in tables)
    baselines = _rel(provenance.closure("filegram_kit.report.baseline_tables"))
    assert {"memory/mem0.py", "memory/zep.py", "memory/filegramos/retrieve.py"} <= baselines  # named in MEMORIES


def test_code_hash_changes_with_a_dependency_and_not_with_an_unrelated_module(tmp_path, monkeypatch):
    package = tmp_path / "filegram_kit"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from .b import g\n    return g()\n")
    (package / "b.py").write_text("def g():\n    return 1\n")
    (package / "c.py").write_text("X = 1\n")
    (package / "d.py").write_text("TARGET = 'filegram_kit.c:X'\n")
    from filegram_kit.util import code_closure

    monkeypatch.setattr(code_closure, "PACKAGE", package)
    monkeypatch.setattr(provenance, "PACKAGE", package)
    monkeypatch.setattr(provenance, "WRITER_MODULES", ())
    (package / "report").mkdir()
    (package / "report" / "reproduce.py").write_text("")

    def key(module):
        return provenance.code_hash(module)

    assert _rel(provenance.closure("filegram_kit.d")) == {"__init__.py", "c.py", "d.py"}
    before = key("filegram_kit.a")
    (package / "c.py").write_text("X = 2\n")
    assert key("filegram_kit.a") == before
    (package / "b.py").write_text("def g():\n    return 2\n")
    assert key("filegram_kit.a") != before


def test_unchanged_steps_are_skipped_and_a_touched_output_is_rewritten(tmp_path):
    first = reproduce(tmp_path, only=STATIC, progress=False)
    assert {p.name for p in first} == {f"{n}.{e}" for n in STATIC for e in ("csv", "md")}
    assert reproduce(tmp_path, only=STATIC, progress=False) == []
    (tmp_path / "table02_dimensions.md").write_text("edited by hand\n")
    again = reproduce(tmp_path, only=STATIC, progress=False)
    assert {p.name for p in again} == {"table02_dimensions.csv", "table02_dimensions.md"}
    assert "edited by hand" not in (tmp_path / "table02_dimensions.md").read_text()
    assert len(reproduce(tmp_path, only=STATIC, progress=False, force=True)) == len(first)
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert set(manifest["steps"]) == set(STATIC)
    for step in manifest["steps"].values():
        for file, sha in step["files"].items():
            assert hashlib.sha256((tmp_path / file).read_bytes()).hexdigest() == sha
        assert step["key"] == provenance.step_key(step["inputs"])
    assert {"git_sha", "versions", "settings", "backend", "corpus", "seconds", "wall_seconds"} <= set(manifest)
    assert manifest["wall_seconds"] >= 0


def test_quick_personas_show_every_tier_of_every_dimension():
    from filegram_kit.traces.profiles import load_profiles
    from filegram_kit.traces.schema import DIMENSION_CODES

    profiles = load_profiles()
    for d in DIMENSION_CODES:
        assert {profiles[p].tiers[d].value for p in QUICK.personas} == {"L", "M", "R"}, d
    assert QUICK.keyed() != FULL.keyed() and "workers" not in FULL.keyed()


@pytest.fixture(scope="module")
def committed() -> dict:
    path = FIGURES / MANIFEST
    assert path.is_file(), "run `make reproduce` and commit figures/MANIFEST.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_committed_manifest_is_complete(committed):
    assert committed["settings"] == FULL.as_dict() and committed["backend"]["name"] == "offline"
    assert committed["corpus"]["seed"] == 0 and committed["corpus"]["style_pack"] == "A"
    assert set(committed["steps"]) == set(ARTIFACTS), "run `make reproduce`: MANIFEST.json lacks steps"
    assert all(step.get("seconds") is not None for step in committed["steps"].values())
    assert committed.get("wall_seconds") is not None, "run `make reproduce`: MANIFEST.json lacks the wall time"


@pytest.mark.parametrize("name", list(ARTIFACTS))
def test_committed_artifact_is_not_stale(committed, name):
    """Each committed artifact's key, recomputed from this checkout's code, equals the key it was made with."""
    from filegram_kit.engine.corpus import engine_fingerprint

    step = committed["steps"].get(name)
    assert step, f"{name} is not in figures/MANIFEST.json: run `make reproduce`"
    art = ARTIFACTS[name]
    corpus = dict(committed["corpus"])
    if art.corpus:
        assert corpus["engine"] == engine_fingerprint()[:16], "the engine changed: run `make reproduce`"
    upstream = {r: committed["steps"][r]["key"] for r in art.reads}
    inputs = provenance.step_inputs(art, FULL.keyed(), corpus, upstream)
    stale = [part for part in inputs if inputs[part] != step["inputs"].get(part)]
    assert not stale, f"{name} is stale ({', '.join(stale)} changed): run `make reproduce` and commit figures/"
    for file, sha in step["files"].items():
        assert hashlib.sha256((FIGURES / file).read_bytes()).hexdigest() == sha, f"{file} differs from its run"


def test_a_figure_first_written_without_png_is_redrawn_when_images_are_wanted(tmp_path, monkeypatch):
    drawn = []

    def fake_png(fig, path):  # no browser needed: what matters is whether the step asks for the PNG
        drawn.append(path)
        Path(path).write_bytes(b"png")
        return Path(path)

    monkeypatch.setattr("filegram_kit.report.export.write_png", fake_png)
    name = next(n for n, a in ARTIFACTS.items() if a.figure and not a.corpus and not a.reads)
    assert {p.name for p in reproduce(tmp_path, only=[name], progress=False, images=False)} == {
        f"{name}.csv", f"{name}.md", f"{name}.html"}
    assert reproduce(tmp_path, only=[name], progress=False, images=False) == []
    again = reproduce(tmp_path, only=[name], progress=False, images=True)
    assert f"{name}.png" in {p.name for p in again} and len(drawn) == 1


def test_a_failing_step_names_itself_and_keeps_the_steps_before_it(tmp_path, monkeypatch):
    from filegram_kit.report import Artifact

    def broken():
        raise OSError("disk full")

    monkeypatch.setitem(ARTIFACTS, "zz_broken", Artifact("zz_broken", broken, "t", None, None))
    with pytest.raises(OSError, match="disk full") as caught:
        reproduce(tmp_path, only=["table02_dimensions", "zz_broken"], progress=False)
    assert any("step zz_broken" in note for note in caught.value.__notes__)
    steps = json.loads((tmp_path / MANIFEST).read_text())["steps"]
    assert list(steps) == ["table02_dimensions"]
