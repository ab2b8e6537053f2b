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


def test_quick_side_checks_run_on_quick_personas_and_knowact_has_its_reader_personas():
    assert set(QUICK.track4_personas) <= set(QUICK.personas) and set(QUICK.knowact_personas) <= set(QUICK.personas)
    assert len(QUICK.personas) >= 3  # KnowAct fits a persona's Act reader on at least two others


def test_a_small_offline_evaluation_runs_here_and_a_large_one_or_a_remote_one_keeps_its_workers():
    from filegram_kit.report.settings import SPAWN_WORTH

    assert FULL.pool(2, SPAWN_WORTH - 1) == {"executor": "thread", "workers": 1}
    assert FULL.pool(2, SPAWN_WORTH) == {"executor": "process", "workers": 2}
    assert FULL.pool(1, 10 * SPAWN_WORTH) == {"executor": "thread", "workers": 1}
    assert FULL.with_backend("gemini").pool(2, 10) == {"executor": "thread", "workers": 2}  # waits on the network


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
    _check_not_stale(committed, name, FIGURES, FULL, "make reproduce")


@pytest.fixture(scope="module")
def committed_quick() -> dict:
    path = QUICK_REFERENCE / MANIFEST
    assert path.is_file(), "run `make quick-reference` and commit figures/quick/MANIFEST.json"
    return json.loads(path.read_text(encoding="utf-8"))


QUICK_REFERENCE = FIGURES / "quick"  # what `make check-reproduce` compares a fresh quick run with


def test_committed_quick_reference_is_complete(committed_quick):
    assert committed_quick["settings"] == QUICK.as_dict() and committed_quick["backend"]["name"] == "offline"
    assert set(committed_quick["steps"]) == set(ARTIFACTS), "run `make quick-reference`: MANIFEST.json lacks steps"


@pytest.mark.parametrize("name", list(ARTIFACTS))
def test_committed_quick_reference_is_not_stale(committed_quick, name):
    """figures/quick/ follows the code by the same step keys as figures/: a change that re-keys a step fails here
    until the reference is rewritten, so `make check-reproduce` never compares with an outdated one."""
    _check_not_stale(committed_quick, name, QUICK_REFERENCE, QUICK, "make quick-reference")


def _check_not_stale(committed: dict, name: str, folder: Path, settings, remedy: str) -> None:
    from filegram_kit.engine.corpus import engine_fingerprint

    step = committed["steps"].get(name)
    assert step, f"{name} is not in {folder.name}/MANIFEST.json: run `{remedy}`"
    art = ARTIFACTS[name]
    corpus = dict(committed["corpus"])
    if art.corpus:
        assert corpus["engine"] == engine_fingerprint()[:16], f"the engine changed: run `{remedy}`"
    upstream = {r: committed["steps"][r]["key"] for r in art.reads}
    inputs = provenance.step_inputs(art, settings.keyed(), corpus, upstream)
    stale = [part for part in inputs if inputs[part] != step["inputs"].get(part)]
    assert not stale, f"{name} is stale ({', '.join(stale)} changed): run `{remedy}` and commit {folder.name}/"
    for file, sha in step["files"].items():
        assert hashlib.sha256((folder / file).read_bytes()).hexdigest() == sha, f"{file} differs from its run"


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


@pytest.fixture()
def package_copy(tmp_path, monkeypatch):
    """A copy of the package that the code keys read instead of the checkout (edits never touch the real one)."""
    import shutil

    from filegram_kit.report import plan as plan_module
    from filegram_kit.util import code_closure

    copy = tmp_path / "filegram_kit"
    shutil.copytree(code_closure.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for module in (code_closure, provenance, plan_module):
        monkeypatch.setattr(module, "PACKAGE", copy)
    return copy


def _code_keys() -> dict[str, str]:
    return {name: provenance.code_hash(art.function.__module__) for name, art in ARTIFACTS.items()}


def test_docstring_comment_and_layout_edits_key_nothing_and_a_constant_rekeys_its_users(package_copy):
    from filegram_kit.engine.corpus import engine_fingerprint

    reader, recorder = package_copy / "bench" / "reader.py", package_copy / "engine" / "recorder.py"
    before, engine_before = _code_keys(), engine_fingerprint.__wrapped__()
    source = reader.read_text()
    assert source.startswith('"""'), "bench/reader.py no longer opens with a docstring: pick another edit"
    body = source[source.index('"""', 3) + 3:]  # after the module docstring
    edited = '"""A new first line of the docstring, with a comment below."""\n# a comment\n\n' + body
    edited = edited.replace("OPEN_ANSWER_WORDS = 60", "OPEN_ANSWER_WORDS  =  60   # words\n\n")
    reader.write_text(edited)
    recorder.write_text(recorder.read_text().replace('"""', '"""Edited. ', 1) + "\n# trailing comment\n")
    assert _code_keys() == before
    assert engine_fingerprint.__wrapped__() == engine_before
    reader.write_text(edited.replace("OPEN_ANSWER_WORDS  =  60", "OPEN_ANSWER_WORDS = 61"))
    after = _code_keys()
    users = {n for n, a in ARTIFACTS.items() if reader in provenance.code_files(a.function.__module__)}
    assert users and {n for n in ARTIFACTS if after[n] != before[n]} == users
    assert "table03_main_results" in users and "table02_dimensions" not in users
    recorder.write_text(recorder.read_text() + "RECORDER_CONSTANT = 1\n")
    assert engine_fingerprint.__wrapped__() != engine_before
    keys = _code_keys()
    manifest = package_copy / "bench" / "manifest.py"  # records a run (git state, versions): keys no step
    manifest.write_text(manifest.read_text() + "RECORD_CONSTANT = 1\n")
    assert _code_keys() == keys


def test_plan_names_what_makes_a_step_run_and_runs_nothing(tmp_path):
    from filegram_kit.report.plan import format_plan
    from filegram_kit.report.reproduce import STATE, plan

    assert all(s.runs and s.why == ("not in the manifest: never ran into this folder",) for s in plan(
        tmp_path, only=STATIC))
    assert not any(tmp_path.iterdir()), "a plan wrote into the output folder"
    reproduce(tmp_path, only=STATIC, progress=False)
    planned = plan(tmp_path, only=STATIC)
    assert [s.name for s in planned] == STATIC and not any(s.runs for s in planned)
    assert all(s.current for s in planned)
    assert plan(tmp_path, only=STATIC, force=True)[0].why == ("--force",)

    (tmp_path / "table02_dimensions.md").write_text("edited by hand\n")
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    step = manifest["steps"]["table08_attributes"]
    step["inputs"]["code"], step["seconds"] = "0" * 64, 12.5
    manifest["code_files"]["traces/profiles.py"] = "0" * 16  # as if made before traces/profiles.py changed
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    why = {s.name: s.why for s in plan(tmp_path, only=STATIC)}
    assert why["table02_dimensions"] == ("output missing or edited: table02_dimensions.md",)
    assert why["table08_attributes"] == ("code changed: traces/profiles.py",)
    assert sum(bool(w) for w in why.values()) == 2
    text = format_plan(plan(tmp_path, only=STATIC), tmp_path)
    assert f"{len(STATIC) - 2} of {len(STATIC)} steps current" in text and "12.5 s" in text

    (tmp_path / STATE).unlink()  # a fresh clone: the committed outputs are current, this machine never ran them
    fresh = plan(tmp_path, only=STATIC)
    assert sum(s.current for s in fresh) == len(STATIC) - 2 and all(s.runs for s in fresh)


def test_committed_figures_plan_as_current_for_this_checkout():
    """`--plan` on a fresh clone: every committed step is current (the corpus stamp is predicted, not built)."""
    from filegram_kit.report.reproduce import plan

    stale = {s.name: s.why for s in plan(FIGURES) if not s.current}
    assert not stale, f"stale for this checkout: {stale}; run `make reproduce` and commit figures/"
